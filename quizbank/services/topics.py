"""A course's topics: the bank's folders, which every question belongs to."""

from django.db import IntegrityError, transaction
from django.db.models import Max

from quizbank.bankfiles.schema import MAX_TOPIC_SLUG, SLUG_RE
from quizbank.errors import QuestionInvalid, SlugTaken
from quizbank.interchange.common import slugify
from quizbank.models import Course, Topic

MAX_TITLE = 200  # Topic.title


def topic_create(*, course: Course, title: str, slug: str = "", description: str = "") -> Topic:
    """A new topic last in the course's order; its slug from the title when none is given.
    QuestionInvalid (field `title` or `slug`) for an empty title or a slug that is not one,
    SlugTaken for a slug the course already has."""
    title = title.strip()
    if not title or len(title) > MAX_TITLE:
        message = f"give the topic a title of 1 to {MAX_TITLE} characters"
        raise QuestionInvalid(f"The topic needs a title: {message}.", fields={"title": [message]})
    slug = slug.strip() or slugify(title, max_length=MAX_TOPIC_SLUG, default="topic")
    if len(slug) > MAX_TOPIC_SLUG or not SLUG_RE.match(slug):
        message = f"small letters, digits and single hyphens, at most {MAX_TOPIC_SLUG}"
        raise QuestionInvalid(
            f"The topic's slug is not one: {message}.", fields={"slug": [message]}
        )
    last = course.topics.aggregate(last=Max("position"))["last"]
    try:
        with transaction.atomic():
            return Topic.objects.create(
                course=course,
                slug=slug,
                title=title,
                description=description,
                position=0 if last is None else last + 1,
            )
    except IntegrityError:
        message = f"the course already has a topic {slug!r}"
        raise SlugTaken(f"Not added: {message}.", fields={"slug": [message]}) from None
