"""An author checks a code question's solutions in the browser: a course with no topic yet
gets one from the question list, the question is saved, and "Check the solutions" fills in a
table as the real worker judges each file (htmx, with the page's CSRF token)."""

from playwright.sync_api import expect

from quizbank.models import Question, Role
from quizbank.services.question_authoring import starter_yaml
from quizbank.services.quiz_write import course_create
from tests.browser.conftest import Site, assert_accessible
from tests.grading.factories import new_user


def test_an_author_adds_a_topic_and_checks_a_code_questions_solutions(site: Site) -> None:
    author = new_user()
    course = course_create(slug="fresh", title="Fresh course", owner_id=author.pk)
    page = site.page(author, f"/author/courses/{course.pk}/questions/")
    expect(page.get_by_text("This course has no topic yet")).to_be_visible()
    page.get_by_label("This course has no topic yet").fill("Autograd basics")
    page.get_by_role("button", name="Add the topic").click()
    expect(page.get_by_text("Added the topic Autograd basics.")).to_be_visible()
    assert_accessible(page)

    page.goto(f"/author/courses/{course.pk}/questions/new/?type=code")
    page.get_by_label("Slug").fill("double-it")
    page.get_by_label("The question (bank-format YAML)").fill(starter_yaml("code"))
    page.get_by_role("button", name="Create the question").click()
    expect(page.get_by_role("heading", name="Check the solutions")).to_be_visible()

    page.get_by_role("button", name="Check the solutions").click()
    expect(page.get_by_text("Every solution earned what its name says.")).to_be_visible(
        timeout=60_000
    )
    rows = page.get_by_role("region", name="Solutions").get_by_role("row")
    expect(rows).to_have_count(1 + 2)  # the header, reference.py and wrong_adds_two.py
    expect(rows.nth(1)).to_contain_text("reference.py")
    expect(rows.nth(1)).to_contain_text("as its name says")
    assert_accessible(page)
    assert Question.objects.get(course=course, slug="double-it").topic.title == "Autograd basics"
    assert Role.AUTHOR in {m.role for m in course.memberships.filter(user=author)}
