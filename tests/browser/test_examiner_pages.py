"""Examiners and authors in the browser: mark a viva answer with the keyboard and release it
(the student then sees the feedback); every examiner and author page passes axe-core and
fits 375 px, with screenshots in test-artifacts/."""

import re

from django.contrib.auth.models import User
from playwright.sync_api import Dialog, expect

from grading.models.marking import Mark
from quizbank.models import ReleasePolicy, Role
from tests.browser.conftest import Site, assert_accessible, screenshots
from tests.grading.content import SINGLE, VIVA
from tests.grading.factories import (
    api_as,
    member,
    new_topic,
    question,
    staffed_quiz,
    submitted_attempt,
)


def test_an_examiner_marks_a_viva_with_the_keyboard_and_releases(site: Site) -> None:
    staff, _ = staffed_quiz(SINGLE, VIVA)
    staff.quiz.release_policy = ReleasePolicy.MANUAL
    staff.quiz.save()
    attempt = submitted_attempt(
        staff.quiz, staff.student, {0: {"choice": 0}, 1: {"text": "It sums."}}
    )
    viva = attempt.responses.get(position=1)
    page = site.page(staff.examiner, "/examiner/marking/?status=unmarked")
    assert_accessible(page)
    screenshots(page, "examiner-queue")
    page.goto(f"/examiner/marking/{viva.pk}/")
    assert_accessible(page)
    screenshots(page, "examiner-marking")
    page.get_by_role("radio").first.focus()
    for _ in VIVA["rubric"]:
        page.keyboard.press("3")
    page.get_by_label("Comment to the student").fill("Clear on accumulation.")
    page.get_by_label("Comment to the student").press("Control+Enter")
    expect(page.get_by_text("Mark saved.")).to_be_visible()
    mark = Mark.objects.get(response=viva)
    assert mark.levels == [min(2, len(c["levels"]) - 1) for c in VIVA["rubric"]]
    # Changing the mark: the reason is typed, not read as level and criterion keys.
    page.goto(f"/examiner/marking/{viva.pk}/")
    checked = "[...document.querySelectorAll('input[type=radio]:checked')].map(i => i.value)"
    levels_before = page.evaluate(checked)
    reason = page.get_by_label("Why the mark changes")
    reason.press_sequentially("typo fixed in 2nd pass, n p 1")
    expect(reason).to_have_value("typo fixed in 2nd pass, n p 1")
    assert page.evaluate(checked) == levels_before
    page.goto(f"/examiner/quizzes/{staff.quiz.pk}/release/")
    assert_accessible(page)
    screenshots(page, "examiner-release")
    page.once("dialog", lambda dialog: dialog.accept())  # "Release the results of 1 attempt?"
    page.get_by_role("button", name="Release results").click()
    expect(page.get_by_text("released: their students can see them now")).to_be_visible()
    result = api_as(staff.student).get(f"/api/attempts/{attempt.pk}/result/").json()
    assert result["score"] is not None
    assert "Clear on accumulation." in str(result)
    page.goto(f"/examiner/quizzes/{staff.quiz.pk}/report/")
    assert_accessible(page)
    screenshots(page, "examiner-report")
    page.goto(f"/examiner/quizzes/{staff.quiz.pk}/viva/")
    assert_accessible(page)
    screenshots(page, "examiner-viva-start")
    page.get_by_label("Student").select_option(label=staff.student.username)
    # Students also take this quiz online, so the start asks first.
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Start the viva").click()
    page.get_by_role("button", name="Draw the next question").click()
    expect(page.get_by_role("heading", name=re.compile("Question 1"))).to_be_visible()
    assert_accessible(page)
    screenshots(page, "examiner-viva")
    # Notes or a level not yet saved: drawing the next question asks first, and "no" keeps them.
    asked: list[str] = []

    def answer_no(dialog: Dialog) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", answer_no)
    page.get_by_role("radio").first.check()
    page.get_by_role("button", name="Draw the next question").click()
    assert asked
    assert asked[0].startswith("Draw the next question?")
    expect(page.get_by_role("radio").first).to_be_checked()


def test_the_author_pages_pass_axe_and_fit_a_phone(site: Site) -> None:
    staff, made = staffed_quiz(SINGLE)
    author = member(staff.course, Role.AUTHOR)
    new_topic(course=staff.course)
    question(staff.course, SINGLE)
    # A long unbreakable name (a PyTorch API) widened the bank table's fieldset, and with it
    # the page, past a phone's width instead of scrolling inside the table.
    long_name = "torch.nn.functional.scaled_dot_product_attention"
    question(staff.course, {**SINGLE, "title": long_name})
    page = site.page(author, f"/author/quizzes/{staff.quiz.pk}/")
    expect(page.get_by_role("heading", name=re.compile("Edit quiz"))).to_be_visible()
    assert_accessible(page)
    screenshots(page, "author-builder")
    page.goto(f"/author/quizzes/{staff.quiz.pk}/access/")
    page.get_by_label("Student (username)").fill(staff.student.username)
    page.get_by_label("Extra time (%)").fill("50")
    page.get_by_role("button", name="Save accommodation").click()
    expect(page.get_by_text(f"Saved the override for {staff.student.username}.")).to_be_visible()
    assert_accessible(page)
    screenshots(page, "author-access")
    assert User.objects.filter(quiz_overrides__extra_time_percent=50).exists()
    page.goto("/dashboard/")
    assert_accessible(page)
    screenshots(page, "dashboard-author")
    page.get_by_role("link", name=f"Preview {staff.quiz.title}").click()
    expect(page.get_by_role("heading", name=f"Preview: {staff.quiz.title}")).to_be_visible()
    assert_accessible(page)
    screenshots(page, "author-quiz-preview")
