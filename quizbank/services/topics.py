"""A course's topics: the bank's folders, which every question belongs to."""

from django.db import IntegrityError, transaction
from django.db.models import Max

from config.text import text_problem
from quizbank.bankfiles.schema import MAX_TOPIC_SLUG, SLUG_RE
from quizbank.errors import SlugTaken, TopicInvalid
from quizbank.interchange.common import slugify
from quizbank.models import Course, Topic

MAX_TITLE = 200  # Topic.title
SLUG_RULE = f"small letters, digits and single hyphens, at most {MAX_TOPIC_SLUG} characters"


def topic_create(*, course: Course, title: str, slug: str = "", description: str = "") -> Topic:
    """A new topic last in the course's order; its slug from the title when none is given
    (with -2, -3 ... when another title made it first: every CJK title slugifies alike).
    TopicInvalid (field `title` or `slug`) for an empty title or a slug that is not one,
    SlugTaken for a title or a given slug that the course already has."""
    title = title.strip()
    if not title or len(title) > MAX_TITLE:
        message = f"give the topic a title of 1 to {MAX_TITLE} characters"
        raise TopicInvalid(f"The topic needs a title: {message}.", fields={"title": [message]})
    problem = text_problem(title, one_line=True)
    if problem is not None:
        raise TopicInvalid(f"Not a usable title: it {problem}.", fields={"title": [problem]})
    if course.topics.filter(title__iexact=title).exists():
        message = f"the course already has a topic titled {title!r}"
        raise SlugTaken(f"Not added: {message}.", fields={"title": [message]})
    made = slugify(title, max_length=MAX_TOPIC_SLUG - 4, default="topic")
    slug = slug.strip() or _free_slug(course, made)
    if len(slug) > MAX_TOPIC_SLUG or not SLUG_RE.match(slug):
        message = SLUG_RULE
        raise TopicInvalid(f"The topic's slug is not one: {message}.", fields={"slug": [message]})
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
    except IntegrityError:  # taken meanwhile (or given): the author says which one they mean
        message = f"the course already has a topic {slug!r}"
        raise SlugTaken(f"Not added: {message}.", fields={"slug": [message]}) from None


def _free_slug(course: Course, base: str) -> str:
    taken = set(course.topics.filter(slug__startswith=base).values_list("slug", flat=True))
    return next(
        candidate
        for candidate in (base, *(f"{base}-{n}" for n in range(2, len(taken) + 3)))
        if candidate not in taken
    )
