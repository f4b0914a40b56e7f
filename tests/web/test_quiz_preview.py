"""The authors' preview of a whole quiz: every slot as a student sees it (the quiz page's
partial and presenter), pools drawn with a seed, nothing saved, nothing examiner-only shown."""

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from grading.models import Attempt, Response
from grading.services.attempts import attempt_draw
from quizbank.models import Quiz, Role
from quizbank.services.quiz_write import SlotSpec, quiz_update
from tests.grading.content import CODE, MULTIPLE, NUMERIC, SHORT_TEXT, SINGLE, TRUE_FALSE, VIVA
from tests.grading.factories import member, new_course, new_quiz, new_topic, question

pytestmark = pytest.mark.django_db

# Each marker sits in a field only an examiner may see; none may reach the preview.
SECRETS = {
    "general": "GENERAL-FEEDBACK-SECRET",
    "right_choice": "RIGHT-CHOICE-FEEDBACK-SECRET",
    "wrong_choice": "WRONG-CHOICE-FEEDBACK-SECRET",
    "true_false": "TRUE-FEEDBACK-SECRET",
    "numeric": "424242.125",
    "numeric_feedback": "NUMERIC-FEEDBACK-SECRET",
    "short_text": "SHORT-ANSWER-SECRET",
    "reference": "REFERENCE-CODE-SECRET",
    "wrong_code": "WRONG-SOLUTION-SECRET",
    "hidden_case": "HIDDEN-CASE-SECRET",
    "model_answer": "MODEL-ANSWER-SECRET",
    "guidance": "GUIDANCE-SECRET",
    "rubric": "RUBRIC-SECRET",
}

PLANTED: list[dict[str, Any]] = [
    {
        **SINGLE,
        "general_feedback": SECRETS["general"],
        "choices": [
            {"text": "3", "correct": True, "feedback": SECRETS["right_choice"]},
            {"text": "2", "feedback": SECRETS["wrong_choice"]},
            {"text": "4"},
        ],
    },
    MULTIPLE,
    {**TRUE_FALSE, "true_feedback": SECRETS["true_false"]},
    {
        **NUMERIC,
        "answers": [{"value": float(SECRETS["numeric"]), "feedback": SECRETS["numeric_feedback"]}],
    },
    {**SHORT_TEXT, "answers": [{"text": SECRETS["short_text"]}]},
    {
        **CODE,
        "cases": [*CODE["cases"], {"name": SECRETS["hidden_case"], "hidden": True, "args": [1]}],
        "files": {
            "reference.py": f"def double(x):\n    return x * 2  # {SECRETS['reference']}\n",
            "wrong_add.py": f"def double(x):\n    return x + 2  # {SECRETS['wrong_code']}\n",
        },
    },
    VIVA,  # its model answer, guidance and a rubric descriptor are the three last markers
]
POOL_TITLES = ("Pool leaves", "Pool graphs", "Pool hooks")


def _quiz(**settings: Any) -> Quiz:
    """Every question type as a fixed slot, then a pool drawing one of three true/false."""
    quiz = new_quiz(**settings)
    fixed = [question(quiz.course, content) for content in PLANTED]
    topic = new_topic(course=quiz.course)
    for title in POOL_TITLES:
        question(quiz.course, {**TRUE_FALSE, "title": title}, topic=topic)
    slots = [SlotSpec(question=q.pk) for q in fixed] + [SlotSpec(pool_topic=topic.slug)]
    return quiz_update(quiz=quiz, data={}, slots=slots)


def _browser(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _preview(quiz: Quiz, role: str = Role.AUTHOR, seed: int = 7) -> str:
    reply = _browser(member(quiz.course, role)).get(f"/quizzes/{quiz.pk}/preview/?seed={seed}")
    assert reply.status_code == 200
    return reply.text


def test_every_slot_is_shown_as_a_student_sees_it_with_answers_disabled() -> None:
    quiz = _quiz(shuffle_choices=False)
    page = _preview(quiz)
    for content in PLANTED:
        assert content["title"] in page
    assert sum(title in page for title in POOL_TITLES) == 1, "the pool is drawn once"
    assert "Drawn from a pool of 3 questions" in page
    assert page.count('data-type="') == len(PLANTED) + 1
    for kind in ("radio", "checkbox"):
        inputs = re.findall(rf'<input type="{kind}"[^>]*>', page)
        assert inputs
        assert all("disabled" in tag for tag in inputs)
    assert all("disabled" in tag for tag in re.findall(r"<textarea[^>]*>", page))
    assert "def double(x):" in page, "the starter code is what a student starts from"
    assert "data-run=" not in page, "no Run button: a preview runs nothing"
    assert "Preview." in page


def test_nothing_only_an_examiner_may_see_reaches_the_preview() -> None:
    page = _preview(_quiz(), role=Role.EXAMINER)
    shown = [name for name, marker in SECRETS.items() if marker in page]
    assert shown == []


def test_nothing_is_saved() -> None:
    quiz = _quiz()
    _preview(quiz, seed=1)
    _preview(quiz, seed=2)
    assert not Attempt.objects.filter(quiz=quiz).exists()
    assert not Response.objects.exists()


def _draw(page: str) -> list[str]:
    """The page's question titles and choice texts, in order."""
    return re.findall(r'<h2 id="q\d+-title">\d+\. ([^<]+) <span|> <span>(.*?)</span></label>', page)


def _draw_again(page: str) -> str:
    found = re.search(r'href="/quizzes/\d+/preview/\?seed=(\d+)">Draw again', page)
    assert found
    return found.group(1)


def test_the_seed_draws_as_an_attempt_would_and_draw_again_changes_it() -> None:
    quiz = _quiz(shuffle_choices=True, shuffle_questions=True)
    author = _browser(member(quiz.course, Role.AUTHOR))
    first = author.get(f"/quizzes/{quiz.pk}/preview/")
    assert first.status_code == 302, "no seed: a fresh one, kept in the address for reloads"
    seed = int(first["Location"].rsplit("=", 1)[1])
    page = author.get(first["Location"]).text
    assert _draw(page) == _draw(author.get(first["Location"]).text), "same seed, same draw"
    drawn = attempt_draw(quiz=quiz, seed=seed)
    titles = re.findall(r'<h2 id="q\d+-title">\d+\. ([^<]+) <span', page)
    assert titles == [d.version.content["title"] for d in drawn]
    single = next(d for d in drawn if d.version.content["type"] == "single_choice")
    section = page.split(f'id="q{drawn.index(single)}-title"')[1].split("</section>")[0]
    texts = [single.version.content["choices"][i]["text"] for i in single.choice_order]
    shown = re.findall(r"> <span>(.*?)</span></label>", section, re.DOTALL)
    assert [re.sub(r"<[^>]+>", "", html).strip() for html in shown] == texts
    assert _draw_again(page) != str(seed)


def test_a_seed_that_is_not_a_whole_number_in_range_is_a_400_saying_so() -> None:
    quiz = _quiz()
    author = _browser(member(quiz.course, Role.AUTHOR))
    for bad in ("x", "-1", "1.5", str(2**62), "9" * 400, "٣"):
        reply = author.get(f"/quizzes/{quiz.pk}/preview/", {"seed": bad})
        assert reply.status_code == 400, bad
        assert "The seed must be a whole number" in reply.text


def test_an_empty_quiz_says_so() -> None:
    quiz = new_quiz()
    assert "no questions to draw yet" in _preview(quiz)


def test_only_the_courses_authors_and_examiners_preview() -> None:
    quiz = _quiz()
    url = f"/quizzes/{quiz.pk}/preview/?seed=1"
    assert _browser(member(quiz.course, Role.STUDENT)).get(url).status_code == 403
    assert _browser(member(new_course(), Role.AUTHOR)).get(url).status_code == 404
    assert _browser(member(quiz.course, Role.EXAMINER)).get(url).status_code == 200
    assert Client().get(url)["Location"].startswith("/signin/?next=")
    assert (
        _browser(member(quiz.course, Role.AUTHOR)).get("/quizzes/999999/preview/").status_code
        == 404
    )


def test_the_builder_and_the_examiners_dashboard_link_to_the_preview() -> None:
    quiz = _quiz()
    builder = _browser(member(quiz.course, Role.AUTHOR)).get(f"/author/quizzes/{quiz.pk}/")
    assert f'href="/quizzes/{quiz.pk}/preview/"' in builder.text
    dashboard = _browser(member(quiz.course, Role.EXAMINER)).get("/dashboard/")
    assert f'href="/quizzes/{quiz.pk}/preview/"' in dashboard.text


def test_a_pools_size_leaves_out_the_quizs_fixed_questions() -> None:
    # The note counted a fixed question of the pool's topic, which the pool never draws.
    quiz = new_quiz()
    topic = new_topic(course=quiz.course)
    pooled = [question(quiz.course, {**TRUE_FALSE, "title": t}, topic=topic) for t in POOL_TITLES]
    slots = [SlotSpec(question=pooled[0].pk), SlotSpec(pool_topic=topic.slug)]
    quiz_update(quiz=quiz, data={}, slots=slots)

    page = _preview(quiz)

    assert "Drawn from a pool of 2 questions" in page
