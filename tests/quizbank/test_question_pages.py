"""Authors' question pages: the course's bank, a new question from an example, an edit as the
next version, and refusals shown on the form with nothing saved."""

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils.timezone import localtime
from pytest_django import Settings

from quizbank.models import Question, Role
from quizbank.services.question_authoring import question_yaml, starter_yaml
from tests.grading.factories import browser_as, member, new_course, new_topic

pytestmark = pytest.mark.django_db


@pytest.fixture
def author() -> User:
    course = new_course()
    new_topic(course=course, slug="tensors", title="Tensors")
    return member(course, Role.AUTHOR)


def _course_id(author: User) -> int:
    return int(author.course_memberships.get().course_id)


def _create(author: User, content: str, slug: str = "new-one") -> Client:
    page = browser_as(author)
    url = reverse("quizbank-pages:question-create", args=[_course_id(author)])
    page.post(url, {"slug": slug, "topic": "tensors", "content": content})
    return page


def test_a_new_question_starts_from_an_example_and_is_created(author: User) -> None:
    page = browser_as(author)
    url = reverse("quizbank-pages:question-create", args=[_course_id(author)])
    shown = page.get(url, {"type": "numeric"}).content.decode()
    assert "type: numeric" in shown
    created = page.post(
        url, {"slug": "elements", "topic": "tensors", "content": starter_yaml("code")}
    )
    question = Question.objects.get(slug="elements")
    assert created.status_code == 302
    assert created["Location"] == reverse("quizbank-pages:question-edit", args=[question.pk])
    assert question.type == "code"
    listed = page.get(reverse("quizbank-pages:question-list", args=[_course_id(author)]))
    assert "A new code question" in listed.content.decode()
    only_numeric = page.get(listed.request["PATH_INFO"], {"type": "numeric"}).content.decode()
    assert "A new code question" not in only_numeric


def test_a_refused_new_question_keeps_its_type_in_the_example_selector(author: User) -> None:
    page = browser_as(author)
    url = reverse("quizbank-pages:question-create", args=[_course_id(author)])
    numeric = {"slug": "Not A Slug", "topic": "tensors", "content": starter_yaml("numeric")}
    selected = '<option value="numeric" selected>'
    for address in (url, f"{url}?type=code"):  # the text's type, whatever the address says
        refused = page.post(address, numeric)
        assert refused.status_code == 200
        assert "Not saved" in refused.text
        assert selected in refused.text
        assert refused.text.count(" selected>") == 2  # the type and the topic, nothing else
    unreadable = page.post(f"{url}?type=numeric", {**numeric, "content": "type: [\n"})
    assert selected in unreadable.text  # no type in the text: the address's
    assert not Question.objects.exists()


def test_an_edit_saves_the_next_version_and_the_same_text_saves_none(author: User) -> None:
    page = _create(author, starter_yaml("true_false"))
    question = Question.objects.get(slug="new-one")
    url = reverse("quizbank-pages:question-edit", args=[question.pk])
    text = question_yaml(question).replace("A new true/false question", "Leaves and grad_fn")
    saved = page.post(url, {"topic": "tensors", "content": text, "version": 1}, follow=True)
    assert "Saved a new version of Leaves and grad_fn." in saved.content.decode()
    again = page.post(url, {"topic": "tensors", "content": text, "version": 2}, follow=True)
    assert "No change to Leaves and grad_fn." in again.content.decode()
    assert sorted(question.versions.values_list("number", flat=True)) == [1, 2]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("type: true_false\ntitle: [unclosed\n", "line 3: not valid YAML"),
        ("- just\n- a list\n", "must be a mapping of fields"),
        ("type: true_false\ntitle: T\nprompt: P\nanswer: maybe\n", "answer"),
        ("type: essay\ntitle: T\nprompt: P\n", "type"),
        # A code file's error names its line in that file (it named the file only).
        (
            starter_yaml("code").replace(
                "reference.py: |\n", "reference.py: |\n    x = 1\n    def (:\n", 1
            ),
            "reference.py, line 2: is not valid Python",
        ),
        (  # the parser gives up on it (RecursionError): a message, not a 500
            starter_yaml("code").replace(
                "reference.py: |\n", "reference.py: |\n    x = " + "-" * 100_000 + "1\n", 1
            ),
            "reference.py, line 1: is not valid Python: it is nested too deeply to be read",
        ),
    ],
)
def test_a_refused_edit_says_where_and_changes_nothing(author: User, text: str, shown: str) -> None:
    page = _create(author, starter_yaml("true_false"))
    question = Question.objects.get(slug="new-one")
    url = reverse("quizbank-pages:question-edit", args=[question.pk])
    reply = page.post(url, {"topic": "tensors", "content": text, "version": 1})
    assert reply.status_code == 200
    body = reply.content.decode()
    assert "Not saved" in body
    assert shown in body
    assert question.versions.count() == 1


def test_a_taken_slug_is_shown_on_its_field(author: User) -> None:
    _create(author, starter_yaml("numeric"), slug="taken")
    page = browser_as(author)
    url = reverse("quizbank-pages:question-create", args=[_course_id(author)])
    reply = page.post(
        url, {"slug": "taken", "topic": "tensors", "content": starter_yaml("numeric")}
    )
    assert "Already taken." in reply.content.decode()
    assert Question.objects.count() == 1


def test_only_the_courses_authors_reach_the_pages(author: User) -> None:
    _create(author, starter_yaml("numeric"))
    question = Question.objects.get()
    course_id = _course_id(author)
    course = question.course
    urls = [
        reverse("quizbank-pages:question-list", args=[course_id]),
        reverse("quizbank-pages:question-create", args=[course_id]),
        reverse("quizbank-pages:question-edit", args=[question.pk]),
    ]
    for role in (Role.STUDENT, Role.EXAMINER):
        user = member(course, role)
        assert [browser_as(user).get(url).status_code in (403, 404) for url in urls] == [True] * 3
    outsider = member(new_course(), Role.AUTHOR)
    assert [browser_as(outsider).get(url).status_code in (403, 404) for url in urls] == [True] * 3
    assert Client().get(urls[0]).status_code == 302  # to sign in


LAUGHS = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{name}: &{name} [{', '.join(['*' + prev] * 9)}]\n"
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True)
)


def test_yaml_anchors_are_refused_before_they_expand(author: User) -> None:
    """Nine levels of nine aliases would walk to 387 million items: refused at once."""
    page = browser_as(author)
    url = reverse("quizbank-pages:question-create", args=[_course_id(author)])
    content = "type: true_false\ntitle: T\nprompt: P\nanswer: true\n" + LAUGHS
    reply = page.post(url, {"slug": "laughs", "topic": "tensors", "content": content})
    assert "anchors and aliases (&amp;name, *name) are not allowed" in reply.content.decode()
    assert not Question.objects.exists()


def test_a_second_tab_saving_an_older_version_is_refused(author: User) -> None:
    page = _create(author, starter_yaml("true_false"))
    question = Question.objects.get(slug="new-one")
    url = reverse("quizbank-pages:question-edit", args=[question.pk])
    text = question_yaml(question)
    first = page.post(
        url, {"topic": "tensors", "content": text + "difficulty: advanced\n", "version": 1}
    )
    assert first.status_code == 302
    second = page.post(url, {"topic": "tensors", "content": text.replace("T", "t"), "version": 1})
    assert "began from version 1, but the question is at version 2" in second.content.decode()
    assert question.versions.count() == 2


@pytest.mark.parametrize("version", ["", "abc", "0"])
def test_an_edit_that_does_not_say_its_version_is_refused_and_says_why(
    author: User, version: str
) -> None:
    """A missing stamp skipped the two-tab check; a damaged one was refused unmarked."""
    page = _create(author, starter_yaml("true_false"))
    question = Question.objects.get(slug="new-one")
    url = reverse("quizbank-pages:question-edit", args=[question.pk])
    text = question_yaml(question).replace("T", "t")
    reply = page.post(url, {"topic": "tensors", "content": text, "version": version})
    assert reply.status_code == 200
    assert "This page did not say which version it edits" in reply.content.decode()
    assert question.versions.count() == 1


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("type: true_false\ntitle: T\ntitle: U\nprompt: P\nanswer: true\n", "appears twice"),
        ("type: true_false\ntitle: T\nprompt: " + "[" * 60 + "]" * 60 + "\n", "levels deep"),
    ],
)
def test_duplicate_keys_and_deep_nesting_are_refused_with_their_line(
    author: User, text: str, shown: str
) -> None:
    page = browser_as(author)
    url = reverse("quizbank-pages:question-create", args=[_course_id(author)])
    reply = page.post(url, {"slug": "s", "topic": "tensors", "content": text})
    assert shown in reply.content.decode()
    assert not Question.objects.exists()


@pytest.mark.parametrize("slug", ["-", "-----", "_", "a--b", "Upper"])
def test_a_slug_the_bank_files_could_not_hold_is_refused(author: User, slug: str) -> None:
    page = browser_as(author)
    url = reverse("quizbank-pages:question-create", args=[_course_id(author)])
    reply = page.post(url, {"slug": slug, "topic": "tensors", "content": starter_yaml("numeric")})
    assert "Not saved" in reply.content.decode()
    assert not Question.objects.exists()


def test_a_version_page_shows_what_it_changed_and_brings_it_back(author: User) -> None:
    page = _create(author, starter_yaml("true_false"))
    question = Question.objects.get(slug="new-one")
    edit = reverse("quizbank-pages:question-edit", args=[question.pk])
    first_text = question_yaml(question)
    second_text = first_text.replace("A new true/false question", "Leaves <b>and</b> grad_fn")
    page.post(edit, {"topic": "tensors", "content": second_text, "version": 1})
    assert question.versions.count() == 2
    assert reverse("quizbank-pages:question-version", args=[question.pk, 1]) in page.get(edit).text

    second = page.get(reverse("quizbank-pages:question-version", args=[question.pk, 2])).text
    assert '<span class="diff-removed">-title: A new true/false question</span>' in second
    assert '<span class="diff-added">+title: Leaves &lt;b&gt;and&lt;/b&gt; grad_fn</span>' in second
    assert "This is the current version." in second
    assert reverse("quizbank-pages:question-version", args=[question.pk, 1]) in second
    assert "Bring this version back" not in second
    first = page.get(reverse("quizbank-pages:question-version", args=[question.pk, 1])).text
    assert "nothing before it to compare with" in first
    assert f"{edit}?from_version=1" in first

    restoring = page.get(edit, {"from_version": "1"}).text
    assert "The editor holds version 1's content" in restoring
    assert "title: A new true/false question" in restoring
    for junk in ("2", "9", "x", "-1", "99999999999999999999"):  # current, missing, not a number
        assert "The editor holds" not in page.get(edit, {"from_version": junk}).text
    saved = page.post(edit, {"topic": "tensors", "content": first_text, "version": 2}, follow=True)
    assert "Saved a new version of A new true/false question." in saved.text
    latest = question.versions.get(number=3)
    assert latest.content == question.versions.get(number=1).content


def test_when_a_version_was_saved_is_written_with_its_time_zone(
    author: User, settings: Settings
) -> None:
    settings.TIME_ZONE = "Asia/Tokyo"
    page = _create(author, starter_yaml("numeric"))
    question = Question.objects.get()
    saved = f"{localtime(question.versions.get().created_at):%-d %b %Y, %H:%M} JST"
    edit = page.get(reverse("quizbank-pages:question-edit", args=[question.pk])).text
    assert f"Version 1, {saved}" in edit
    version = reverse("quizbank-pages:question-version", args=[question.pk, 1])
    assert f"Saved {saved}" in page.get(version).text


def test_a_version_page_is_for_the_courses_authors_and_real_versions(author: User) -> None:
    _create(author, starter_yaml("numeric"))
    question = Question.objects.get()
    url = reverse("quizbank-pages:question-version", args=[question.pk, 1])
    assert browser_as(author).get(url).status_code == 200
    for number in (2, 0, 2**63 - 1):
        missing = reverse("quizbank-pages:question-version", args=[question.pk, number])
        assert browser_as(author).get(missing).status_code == 404
    assert (
        browser_as(author).get(f"/author/questions/{question.pk}/versions/{2**64}/").status_code
        == 404
    )
    assert browser_as(author).post(url).status_code == 405
    for user in (member(question.course, Role.STUDENT), member(new_course(), Role.AUTHOR)):
        assert browser_as(user).get(url).status_code in (403, 404)
    assert Client().get(url).status_code == 302


def test_a_long_history_says_how_many_versions_the_list_leaves_out(author: User) -> None:
    page = _create(author, starter_yaml("true_false"))
    question = Question.objects.get(slug="new-one")
    edit = reverse("quizbank-pages:question-edit", args=[question.pk])
    for number in range(1, 22):
        text = question_yaml(question).replace(question.title, f"Version {number + 1}")
        page.post(edit, {"topic": "tensors", "content": text, "version": number})
        question.refresh_from_db()
    assert question.versions.count() == 22
    assert "The newest 20 of 22" in page.get(edit).text


def test_a_refused_slug_does_not_hide_what_is_wrong_in_the_yaml(author: User) -> None:
    # Only the slug's refusal was shown; the YAML's came after the slug was fixed.
    page = browser_as(author)
    url = reverse("quizbank-pages:question-create", args=[_course_id(author)])
    broken = starter_yaml("numeric").replace("value: 120", "value: many")
    reply = page.post(url, {"slug": "My Question!", "topic": "tensors", "content": broken})
    shown = reply.content.decode()
    assert reply.status_code == 200
    assert "words joined by single hyphens" in shown
    assert "answers[0].value: must be a number" in shown
    assert not Question.objects.exists()
