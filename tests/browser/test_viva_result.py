"""A viva answer marked on its rubric in the browser reaches the student's result page, with
the level chosen on each criterion and the examiner's comment, only once released."""

import re

from playwright.sync_api import Page, expect

from quizbank.models import ReleasePolicy
from tests.browser.conftest import Site, assert_accessible
from tests.grading.content import VIVA_TWO_CRITERIA
from tests.grading.factories import staffed_quiz, submitted_attempt

COMMENT = "Clear on why .grad sums; say where zero_grad goes in the loop."


def _rubric_rows(page: Page) -> list[list[str]]:
    """The result page's rubric table: criterion, level (with its descriptor), points."""
    rows = page.get_by_role("table", name="Rubric").locator("tbody tr")
    return [
        [" ".join(cell.split()) for cell in row.locator("td").all_inner_texts()]
        for row in rows.all()
    ]


def test_the_student_sees_each_criterions_level_and_the_comment_only_after_release(
    site: Site,
) -> None:
    staff, _ = staffed_quiz(VIVA_TWO_CRITERIA)
    staff.quiz.release_policy = ReleasePolicy.MANUAL
    staff.quiz.save()
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"text": "It sums."}})
    viva = attempt.responses.get()

    examiner = site.page(staff.examiner, f"/examiner/marking/{viva.pk}/")
    examiner.get_by_role("group", name="1. Mechanism").get_by_label(re.compile("Full")).check()
    examiner.get_by_role("group", name="2. Practice").get_by_label(re.compile("Partial")).check()
    examiner.get_by_label("Comment to the student").fill(COMMENT)
    examiner.get_by_role("button", name="Save", exact=True).click()
    expect(examiner.get_by_text("Mark saved.")).to_be_visible()

    student = site.page(staff.student, f"/attempts/{attempt.pk}/result/")
    expect(student.get_by_text("Not released")).to_be_visible()
    expect(student.get_by_role("table", name="Rubric")).to_have_count(0)
    expect(student.get_by_text(COMMENT)).to_have_count(0)

    examiner.goto(f"/examiner/quizzes/{staff.quiz.pk}/release/")
    examiner.once("dialog", lambda dialog: dialog.accept())  # "Release the results of 1 attempt?"
    examiner.get_by_role("button", name="Release results").click()
    expect(examiner.get_by_text("released: their students can see them now")).to_be_visible()

    student.reload()
    expect(student.get_by_role("table", name="Rubric")).to_be_visible()
    assert _rubric_rows(student) == [
        ["Mechanism", "Full Sums over uses.", "2"],
        ["Practice", "Partial Zeroes sometimes.", "2"],
    ]
    expect(student.get_by_text(f"Examiner's comment: {COMMENT}")).to_be_visible()
    expect(student.get_by_text("Score: 4")).to_be_visible()
    assert_accessible(student)
