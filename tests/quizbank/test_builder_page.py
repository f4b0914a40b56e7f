"""The quiz builder page: an author creates and edits a quiz from the course's bank."""

import re
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.test import Client

from config.text import sentence, text_problem
from quizbank.models import Quiz, Role
from quizbank.services.quiz_write import SlotSpec, quiz_create, quiz_update
from tests.grading.content import NUMERIC, SINGLE
from tests.grading.factories import member, new_course, new_topic, question, submitted_attempt

pytestmark = pytest.mark.django_db


def _browser(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _opened(author: Client, quiz: Quiz) -> dict[str, str]:
    """The stamp a page opened now carries of the quiz (its hidden `stamp` field)."""
    return {"stamp": author.get(f"/author/quizzes/{quiz.pk}/").context["form"].initial["stamp"]}


BASE = {
    "title": "Week 1",
    "slug": "week-1",
    "minutes": "30",
    "attempts_allowed": "2",
    "grading_method": "highest",
    "release_policy": "manual",
    "shuffle_choices": "on",
}


def test_an_author_builds_a_quiz_with_a_fixed_question_and_a_pool() -> None:
    course = new_course()
    topic = new_topic(course=course)
    fixed = question(course, SINGLE)
    question(course, NUMERIC, topic=topic)
    author = _browser(member(course, Role.AUTHOR))
    body = {**BASE, "questions": [str(fixed.pk)], "pool_topic": topic.slug, "pool_draw": "1"}
    reply = author.post(f"/author/courses/{course.pk}/quizzes/new/", body)
    assert reply.status_code == 302
    quiz = Quiz.objects.get(course=course, slug="week-1")
    assert quiz.time_limit is not None
    assert quiz.time_limit.total_seconds() == 1800
    assert [s.is_pool for s in quiz.slots.all()] == [False, True]
    initial = author.get(f"/author/quizzes/{quiz.pk}/").context["form"].initial
    shown = {name: value for name, value in initial.items() if value not in (None, False)}
    edited = author.post(f"/author/quizzes/{quiz.pk}/", {**shown, "title": "Week one"})
    assert edited.status_code == 302
    quiz.refresh_from_db()
    assert quiz.title == "Week one"
    assert [s.is_pool for s in quiz.slots.all()] == [False, True], "the edit form kept the pool"
    assert "no questions yet" not in author.get(f"/author/quizzes/{quiz.pk}/").content.decode()
    body = {**BASE, **_opened(author, quiz), "title": "Week one"}
    emptied = author.post(f"/author/quizzes/{quiz.pk}/", body)
    assert emptied.status_code == 302
    assert quiz.slots.count() == 0
    page = author.get(f"/author/quizzes/{quiz.pk}/").content.decode()
    assert "no questions yet: students do not see it" in page


def test_a_quiz_with_attempts_keeps_its_questions_and_the_form_says_why() -> None:
    course = new_course()
    first, second = question(course, SINGLE), question(course, NUMERIC)
    author = _browser(member(course, Role.AUTHOR))
    body = {**BASE, "questions": [str(first.pk)]}
    author.post(f"/author/courses/{course.pk}/quizzes/new/", body)
    quiz = Quiz.objects.get(course=course)
    submitted_attempt(quiz, member(course, Role.STUDENT), {})
    url = f"/author/quizzes/{quiz.pk}/"
    shown = author.get(url).text
    assert "Students have attempted this quiz, so its questions and points are fixed" in shown
    assert shown.count(' name="questions"') == shown.count(' name="questions" value') == 2
    assert all(
        "disabled" in tag for tag in re.findall(r'<input[^>]* name="questions"[^>]*>', shown)
    )
    # A POST that asks for other questions (a page opened before the first attempt, a hand-made
    # request) saves the other settings and leaves the questions as they are.
    asked = {**body, **_opened(author, quiz), "title": "Renamed", "questions": [str(second.pk)]}
    saved = author.post(url, asked)
    assert saved.status_code == 302
    said = author.get(saved["Location"]).text
    assert "Students have attempted this quiz since the page was opened" in said
    quiz.refresh_from_db()
    assert quiz.title == "Renamed"
    assert [s.question_id for s in quiz.slots.all()] == [first.pk]


STALE = "This quiz was changed in another tab or by another author since you opened this page"


def test_a_save_from_a_page_opened_before_another_save_is_refused_and_keeps_what_was_typed() -> (
    None
):
    course = new_course()
    fixed = question(course, SINGLE)
    author = _browser(member(course, Role.AUTHOR))
    body = {**BASE, "questions": [str(fixed.pk)]}
    author.post(f"/author/courses/{course.pk}/quizzes/new/", body)
    quiz = Quiz.objects.get(course=course)
    url = f"/author/quizzes/{quiz.pk}/"
    first_tab, second_tab = _opened(author, quiz), _opened(author, quiz)
    assert author.post(url, {**body, **first_tab, "title": "Week one"}).status_code == 302
    for stamp in (second_tab, {}):  # a stale tab, and a page drawn before pages carried it
        stale = author.post(url, {**body, **stamp, "attempts_allowed": "5"})
        assert stale.status_code == 200
        assert STALE in stale.text
        assert 'name="attempts_allowed" value="5"' in stale.text  # what was typed stays
        quiz.refresh_from_db()
        assert (quiz.title, quiz.attempts_allowed) == ("Week one", 2)
    quiz_update(quiz=quiz, data={"description": "Read chapter 2."}, slots=None)  # the API's
    refused = author.post(url, {**body, **first_tab, "title": "Week one", "attempts_allowed": "5"})
    assert STALE in refused.text
    reloaded = {**body, **_opened(author, quiz), "title": "Week one", "attempts_allowed": "5"}
    assert author.post(url, reloaded).status_code == 302
    quiz.refresh_from_db()
    assert (quiz.title, quiz.attempts_allowed) == ("Week one", 5)


@pytest.mark.parametrize("two_pools", [True, False])
def test_pools_the_form_cannot_show_are_left_alone(two_pools: bool) -> None:
    course = new_course()
    tagged = question(course, {**SINGLE, "tags": ["autograd"]})
    question(course, {**NUMERIC, "tags": ["autograd"]})
    pool = SlotSpec(pool_tag="autograd")
    slots = [pool, pool] if two_pools else [pool, SlotSpec(question=tagged.pk)]
    quiz = quiz_create(course=course, data={"slug": "q", "title": "Q"}, slots=slots)
    author = _browser(member(course, Role.AUTHOR))
    page = author.get(f"/author/quizzes/{quiz.pk}/")
    assert "changes its settings only" in page.text
    body = {**BASE, **_opened(author, quiz), "slug": "q"}
    assert author.post(f"/author/quizzes/{quiz.pk}/", body).status_code == 302
    kept = [(s.question_id, s.pool_tag) for s in quiz.slots.order_by("position")]
    assert kept == [(None, "autograd"), (None, "autograd") if two_pools else (tagged.pk, "")]


def test_an_author_draws_from_a_pool_by_tag_and_difficulty() -> None:
    course = new_course()
    question(course, {**SINGLE, "tags": ["autograd"], "difficulty": "advanced"})
    question(course, {**NUMERIC, "tags": ["autograd"], "difficulty": "advanced"})
    question(course, {**NUMERIC, "tags": ["autograd", "shapes"]})
    author = _browser(member(course, Role.AUTHOR))
    form = author.get(f"/author/courses/{course.pk}/quizzes/new/")
    assert '<option value="shapes">shapes</option>' in form.text
    body = {**BASE, "pool_tag": "autograd", "pool_difficulty": "advanced", "pool_draw": "3"}
    too_many = author.post(f"/author/courses/{course.pk}/quizzes/new/", body)
    assert too_many.context["form"].errors == {
        "pool_draw": ["At most 2: the pool holds 2 questions."]
    }
    saved = author.post(f"/author/courses/{course.pk}/quizzes/new/", {**body, "pool_draw": "2"})
    assert saved.status_code == 302
    quiz = Quiz.objects.get(course=course)
    pool = quiz.slots.get()
    assert (pool.pool_tag, pool.pool_difficulty, pool.draw_count) == ("autograd", "advanced", 2)
    page = author.get(f"/author/quizzes/{quiz.pk}/")
    assert "changes its settings only" not in page.text
    assert page.context["form"].initial["pool_tag"] == "autograd"


def test_settings_that_break_a_rule_are_shown_on_the_form() -> None:
    course = new_course()
    author = _browser(member(course, Role.AUTHOR))
    url = f"/author/courses/{course.pk}/quizzes/new/"
    bad = {**BASE, "opens_at": "2026-03-02T10:00", "closes_at": "2026-03-02T09:00"}
    reply = author.post(url, bad)
    assert reply.status_code == 200
    assert reply.text.count("The closing time must be after the opening time") == 1
    assert author.post(url, {**BASE, "pool_topic": "999999"}).status_code == 200
    assert not Quiz.objects.filter(course=course).exists()


def test_a_pool_drawing_more_than_it_holds_says_how_many_it_holds_beside_the_field() -> None:
    course = new_course()
    topic = new_topic(course=course)
    question(course, NUMERIC, topic=topic)
    author = _browser(member(course, Role.AUTHOR))
    body = {**BASE, "pool_topic": topic.slug, "pool_draw": "3"}
    reply = author.post(f"/author/courses/{course.pk}/quizzes/new/", body)
    assert reply.status_code == 200
    assert reply.context["form"].errors == {"pool_draw": ["At most 1: the pool holds 1 question."]}
    assert not Quiz.objects.filter(course=course).exists()


def test_a_title_that_is_not_one_line_is_shown_on_the_form_as_the_api_words_it() -> None:
    course = new_course()
    author = _browser(member(course, Role.AUTHOR))
    reply = author.post(f"/author/courses/{course.pk}/quizzes/new/", {**BASE, "title": "W\u202e1"})
    assert reply.status_code == 200
    [message] = reply.context["form"].errors["title"]
    assert message == sentence(str(text_problem("W\u202e1", one_line=True)))
    assert "a bidi formatting character (U+202E) at character 2" in message
    assert not Quiz.objects.filter(course=course).exists()


def test_oversized_fields_are_refused_without_echoing_them() -> None:
    course = new_course()
    author = _browser(member(course, Role.AUTHOR))
    url = f"/author/courses/{course.pk}/quizzes/new/"
    long_text = "x" * 20_001
    reply = author.post(url, {**BASE, "description": long_text})
    assert "at most 20000 characters" in reply.text
    reply = author.post(url, {**BASE, "grading_method": long_text})
    assert "Choose one of the options offered." in reply.text
    assert long_text[:100] not in reply.text
    assert not Quiz.objects.filter(course=course).exists()


def test_only_the_course_authors_build_quizzes() -> None:
    course = new_course()
    url = f"/author/courses/{course.pk}/quizzes/new/"
    assert _browser(member(course, Role.STUDENT)).get(url).status_code == 403
    assert _browser(member(new_course(), Role.AUTHOR)).get(url).status_code == 404
    assert _browser(member(course, Role.AUTHOR)).get(url).status_code == 200


def test_an_author_gives_a_fixed_question_and_the_pool_points_of_their_own() -> None:
    course = new_course()
    topic = new_topic(course=course)
    fixed, unweighted = question(course, SINGLE), question(course, NUMERIC)
    question(course, NUMERIC, topic=topic)
    author = _browser(member(course, Role.AUTHOR))
    body = {
        **BASE,
        "questions": [str(fixed.pk), str(unweighted.pk)],
        f"points_{fixed.pk}": "5",
        "pool_topic": topic.slug,
        "pool_draw": "1",
        "pool_points": "2.5",
    }
    assert author.post(f"/author/courses/{course.pk}/quizzes/new/", body).status_code == 302
    quiz = Quiz.objects.get(course=course)
    assert [s.points for s in quiz.slots.order_by("position")] == [5, None, Decimal("2.5")]
    page = author.get(f"/author/quizzes/{quiz.pk}/")
    assert page.context["form"].initial[f"points_{fixed.pk}"] == 5
    assert page.context["form"].initial["pool_points"] == Decimal("2.5")
    assert f'name="points_{fixed.pk}" value="5.00"' in page.text
    submitted_attempt(quiz, member(course, Role.STUDENT), {})
    asked = {**body, **_opened(author, quiz), f"points_{fixed.pk}": "6"}
    changed = author.post(f"/author/quizzes/{quiz.pk}/", asked)
    assert changed.status_code == 302  # the points are fixed now: the 6 is not taken
    assert [s.points for s in quiz.slots.order_by("position")] == [5, None, Decimal("2.5")]


def test_points_out_of_range_are_shown_on_the_form() -> None:
    course = new_course()
    fixed = question(course, SINGLE)
    author = _browser(member(course, Role.AUTHOR))
    body = {**BASE, "questions": [str(fixed.pk)], f"points_{fixed.pk}": "0"}
    reply = author.post(f"/author/courses/{course.pk}/quizzes/new/", body)
    assert reply.status_code == 200
    assert "greater than or equal to 0.01" in reply.text
    assert not Quiz.objects.filter(course=course).exists()


def test_the_new_quiz_page_says_what_the_slug_it_asks_for_is() -> None:
    # A new author met a required "Slug:" with no word of what it is or what it may hold.
    course = new_course()
    page = _browser(member(course, Role.AUTHOR)).get(f"/author/courses/{course.pk}/quizzes/new/")
    assert "Its short name in the course" in page.content.decode()


@pytest.mark.parametrize("asked", [{"pool_draw": "2"}, {"pool_points": "3"}])
def test_a_pool_count_or_points_with_nothing_to_draw_from_is_refused_not_dropped(
    asked: dict[str, str],
) -> None:
    course = new_course()
    question(course, SINGLE)
    question(course, NUMERIC)
    author = _browser(member(course, Role.AUTHOR))
    reply = author.post(f"/author/courses/{course.pk}/quizzes/new/", {**BASE, **asked})
    assert reply.status_code == 200
    problems = reply.context["form"].errors["pool_draw"]
    assert problems == [
        "Choose a topic, a tag or a difficulty for the pool to draw from, "
        "or leave How many and the pool's points empty for no pool."
    ]
    assert not Quiz.objects.filter(course=course).exists()
