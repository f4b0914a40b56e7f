"""An author writes a question in the browser: from the dashboard to the bank's list, a new
question started from an example, a refused edit shown on the form, then a new version."""

from playwright.sync_api import expect

from quizbank.models import Question, Role
from tests.browser.conftest import Site, assert_accessible
from tests.grading.factories import member, new_course, new_topic


def test_an_author_writes_and_edits_a_question_in_the_browser(site: Site) -> None:
    course = new_course(title="Deep learning 101")
    new_topic(course=course, slug="tensors", title="Tensors")
    page = site.page(member(course, Role.AUTHOR), "/dashboard/")
    page.get_by_role("link", name="New question in Deep learning 101").click()
    page.get_by_label("Start from an example of").select_option("numeric")
    page.get_by_role("button", name="Load the example").click()
    assert_accessible(page)
    page.get_by_label("Slug").fill("elements-of-a-tensor")
    # Loading another example over typed text asks first; declining keeps the text.
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.get_by_role("button", name="Load the example").click()
    expect(page.get_by_label("Slug")).to_have_value("elements-of-a-tensor")
    page.get_by_role("button", name="Create the question").click()
    expect(page.get_by_text("Created A new numeric question.")).to_be_visible()
    assert_accessible(page)

    text = page.get_by_label("The question (bank-format YAML)")
    text.fill(text.input_value().replace("value: 120", "value: many"))
    page.get_by_role("button", name="Save a new version").click()
    expect(page.get_by_role("alert")).to_contain_text("Not saved")
    expect(page.get_by_text("answers[0].value")).to_be_visible()
    text.fill(
        text.input_value().replace("value: many", "value: 24").replace("(4, 5, 6)", "(2, 3, 4)")
    )
    page.get_by_role("button", name="Save a new version").click()
    expect(page.get_by_text("Saved a new version of A new numeric question.")).to_be_visible()

    page.get_by_role("link", name="All questions of Deep learning 101").click()
    assert_accessible(page)
    expect(page.get_by_role("link", name="A new numeric question", exact=True)).to_be_visible()
    question = Question.objects.get(slug="elements-of-a-tensor")
    assert question.versions.count() == 2
    assert question.current_version is not None
    assert question.current_version.content["answers"][0]["value"] == 24
