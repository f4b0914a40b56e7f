"""A student takes the demo quiz in the browser: answers of each kind, a reload, a dropped
network, a stale second tab, submit, the examiner's marks and the result; and the clock
submits at the deadline. The demo quiz's last question is drawn at random from a pool (a
viva, two numeric questions, a single choice), so nothing here assumes which one came."""

import re
from datetime import timedelta

from django.contrib.auth.models import User
from playwright.sync_api import Page, Request, Route, expect

from grading.models import Attempt
from quizbank.models import Quiz
from tests.browser.conftest import AXE, PHONE, Site, assert_accessible, screenshots

VIVA = "backward() adds into .grad, so gradients of several calls sum; zero them each step."
COMMENT = "Right about accumulation; say where zero_grad goes in the loop."
WRITTEN_VIVA = 6  # the demo quiz's fixed viva; position 7 is a draw that may be a viva too


def _start(page: Page, title: str) -> None:
    page.goto("/dashboard/")
    page.get_by_role("button", name=f"Start {title}").click()
    expect(page.locator("[data-clock]")).not_to_have_text("…")


def _saved(page: Page) -> None:
    expect(page.locator("[data-save-state]")).to_have_text(re.compile(r"^Saved at \d\d:\d\d:\d\d$"))


def _with_a_saved_answer(site: Site, student: User) -> Page:
    """The demo quiz started by `student`, with question 4's answer typed and saved."""
    page = site.context(student).new_page()
    _start(page, "Fundamentals check: tensors and autograd")
    page.locator("#q3 input").fill("13")
    _saved(page)
    return page


def test_a_student_takes_the_demo_quiz_and_loses_nothing(site: Site, demo: dict[str, User]) -> None:
    context = site.context(demo["student"])
    page = context.new_page()
    _start(page, "Fundamentals check: tensors and autograd")
    assert_accessible(page)
    page.locator("#q0 input").first.check()
    page.locator("#q3 input").fill("13")
    page.locator("#q5 .cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.type("def softmax_rows(x):\nreturn x.exp() / x.exp().sum(1, keepdim=True)\n")
    page.keyboard.press("Shift+Tab")
    page.keyboard.type("print('ran in the sandbox')\n")
    _saved(page)
    page.get_by_role("button", name="Run the code of question 6").click()
    expect(page.locator('[data-run-output="5"]')).to_contain_text(
        "ran in the sandbox", timeout=30_000
    )
    expect(page.locator('[data-nav="0"]')).to_have_attribute("data-answered", "true")
    page.evaluate("window.scrollTo(0, 0)")
    screenshots(page, "student-quiz")

    page.reload()
    expect(page.locator("#q3 input")).to_have_value("13")
    expect(page.locator("#q0 input").first).to_be_checked()
    expect(page.locator("#q5 .cm-content")).to_contain_text("keepdim=True")
    clock = page.locator("[data-clock]").inner_text()
    assert re.fullmatch(r"4\d:\d\d", clock), clock

    context.set_offline(True)
    page.locator("#q6 textarea").fill(VIVA)
    expect(page.locator("[data-save-state]")).to_contain_text("Offline, retrying")
    context.set_offline(False)
    _saved(page)
    attempt = Attempt.objects.get(user=demo["student"])
    assert attempt.responses.get(position=6).answer == {"text": VIVA}

    page.get_by_role("button", name="Submit attempt").click()
    expect(page.locator("[data-unanswered]")).to_contain_text("Not answered: questions 2, 3, 5")
    expect(page.locator("[data-confirm-no]")).to_be_focused()  # Enter keeps working
    page.locator("[data-confirm-yes]").click()
    expect(page).to_have_url(re.compile(rf"/attempts/{attempt.pk}/result/$"))
    expect(page.get_by_text(VIVA)).to_be_visible()
    expect(page.locator(".cases li").first).to_be_visible(timeout=60_000)
    assert_accessible(page)

    _mark_every_viva(site, demo["examiner"], attempt)
    page.reload()
    expect(page.get_by_text(f"Examiner's comment: {COMMENT}").first).to_be_visible()
    expect(page.get_by_role("table", name="Rubric").first).to_contain_text("Good")
    expect(page.get_by_text(re.compile(r"^Score: [\d.]+ / [\d.]+$"))).to_be_visible()
    page.evaluate("window.scrollTo(0, 0)")
    screenshots(page, "student-result")


def _mark_every_viva(site: Site, examiner: User, attempt: Attempt) -> None:
    """The examiner marks the attempt's viva answers with the keyboard: the fixed one and,
    when the last slot's draw from the backpropagation pool gave one, the drawn viva too
    (the pool also holds numeric and choice questions, which grade themselves)."""
    vivas = attempt.responses.filter(question_version__content__type="viva")
    page = site.context(examiner).new_page()
    for viva in vivas.order_by("position"):
        page.goto(f"/examiner/marking/{viva.pk}/")
        page.get_by_role("radio").first.focus()
        for _ in viva.question_version.content["rubric"]:
            page.keyboard.press("3")
        page.get_by_label("Comment to the student").fill(COMMENT)
        if viva.position == WRITTEN_VIVA:
            assert_accessible(page)
            page.evaluate("window.scrollTo(0, 0)")
            screenshots(page, "examiner-marking-demo")
        page.get_by_label("Comment to the student").press("Control+Enter")
        expect(page.get_by_text("Mark saved.")).to_be_visible()


def test_a_stale_second_tab_keeps_its_text_and_never_saves_it_over_a_newer_answer(
    site: Site, demo: dict[str, User]
) -> None:
    context = site.context(demo["student"])
    first = context.new_page()
    _start(first, "Fundamentals check: tensors and autograd")
    second = context.new_page()
    second.goto(first.url)
    first.locator("#q4 input").fill("grad_fn")
    _saved(first)
    second.locator("#q4 input").fill("typed in the stale tab")
    expect(second.locator("[data-stale-banner]")).to_be_visible()
    expect(second.locator("#q4 input")).to_have_value("typed in the stale tab")
    second.locator("#q3 input").fill("13")  # another answer: not "Saving…" forever
    expect(second.locator("[data-save-state]")).to_contain_text("this page is out of date")
    screenshots(second, "student-stale-tab")
    # The fresh tab saves again and leaves the field: the stale tab's kept text is its own.
    first.locator("#q4 input").fill("grad_fn, saved again")
    first.locator("#q4 input").press("Tab")
    _saved(first)
    second.get_by_role("button", name="Reload").click()
    # Nobody saved question 3 since: its kept text is restored and saved. Question 4 was saved
    # by the other tab meanwhile: that answer stays, and the kept text is offered back.
    expect(second.locator("#q3 input")).to_have_value("13")
    expect(second.locator("#q4 input")).to_have_value("grad_fn, saved again")
    offer = second.locator("#q4 [role=alert]")
    expect(offer).to_contain_text("typed in the stale tab")
    _saved(second)
    offer.get_by_role("button", name="Use my earlier text").click()
    expect(second.locator("#q4 input")).to_have_value("typed in the stale tab")
    expect(offer).to_have_count(0)
    _saved(second)
    second.reload()
    expect(second.locator("#q4 input")).to_have_value("typed in the stale tab")
    expect(second.locator("#q4 [role=alert]")).to_have_count(0)


def test_an_answer_over_the_size_limit_is_said_while_typing_and_not_sent(
    site: Site, demo: dict[str, User]
) -> None:
    page = site.context(demo["student"]).new_page()
    _start(page, "Fundamentals check: tensors and autograd")
    answer = page.locator(f"#q{WRITTEN_VIVA} textarea")
    answer.fill("ü" * 40_000)  # 80,000 bytes in UTF-8: over the 64 KiB limit
    expect(page.locator("[data-error-banner]")).to_contain_text("the limit is 65,536")
    # 80,000 bytes with the JSON around it: {"text":"..."} adds 11.
    expect(page.locator("[data-error-banner]")).to_contain_text("Shorten it by at least 14,475")
    expect(page.locator("[data-save-state]")).to_have_text("Not saved: an answer is too long")
    answer.fill("It sums the gradients of every backward call.")
    _saved(page)
    expect(page.locator("[data-error-banner]")).to_be_hidden()


def test_the_clock_submits_the_attempt_at_its_deadline(site: Site, demo: dict[str, User]) -> None:
    Quiz.objects.filter(slug="fundamentals-check").update(time_limit=timedelta(seconds=8))
    page = _with_a_saved_answer(site, demo["student"])
    expect(page).to_have_url(re.compile(r"/result/$"), timeout=20_000)
    expect(page.get_by_text("at the deadline")).to_be_visible()
    expect(page.get_by_role("paragraph").filter(has_text=re.compile(r"^13$"))).to_be_visible()


def test_text_typed_in_the_last_second_is_saved_before_the_deadline_submit(
    site: Site, demo: dict[str, User]
) -> None:
    Quiz.objects.filter(slug="fundamentals-check").update(
        time_limit=timedelta(seconds=6), grace_period=timedelta(seconds=30)
    )
    page = site.context(demo["student"]).new_page()
    _start(page, "Fundamentals check: tensors and autograd")
    # Typed with no pause for the save: the 800 ms autosave is still waiting at 0:00.
    page.wait_for_function("document.querySelector('[data-clock]').textContent === '00:01'")
    page.wait_for_timeout(600)  # about 0.4 s left: the save's timer would fire after 0:00
    page.locator("#q3 input").fill("13")
    expect(page).to_have_url(re.compile(r"/result/$"), timeout=20_000)
    attempt = Attempt.objects.get(user=demo["student"])
    assert attempt.responses.get(position=3).answer == {"value": "13"}


def test_a_refused_submit_keeps_the_page_and_a_failing_server_is_tried_again(
    site: Site, demo: dict[str, User]
) -> None:
    page = _with_a_saved_answer(site, demo["student"])
    answers: list[int] = []

    def flaky_then_refused(route: Route) -> None:
        answers.append(1)
        if len(answers) == 1:  # the server fails once: the page tries again by itself
            route.fulfill(status=503, json={"error": {"code": "database_unavailable"}})
            return
        refusal = {"code": "network_not_allowed", "message": "Only from the exam room."}
        route.fulfill(status=403, json={"error": refusal})

    page.route("**/submit/", flaky_then_refused)
    page.get_by_role("button", name="Submit attempt").click()
    page.locator("[data-confirm-yes]").click()
    expect(page.locator("[data-error-banner]")).to_have_text(
        "Not submitted: Only from the exam room."
    )
    assert len(answers) == 2
    attempt = Attempt.objects.get(user=demo["student"])
    assert attempt.status == "open"
    assert "/result/" not in page.url

    page.unroute("**/submit/")
    page.get_by_role("button", name="Submit attempt").click()
    page.locator("[data-confirm-yes]").click()
    expect(page).to_have_url(re.compile(rf"/attempts/{attempt.pk}/result/$"))


def test_an_answer_saved_before_submit_is_not_called_unsaved(
    site: Site, demo: dict[str, User]
) -> None:
    # Leaving the field (a "change" event) after it was saved counted as a new answer: the
    # submit dialog said "Not saved yet: question 4" just under "Saved at ...".
    page = _with_a_saved_answer(site, demo["student"])
    saves: list[str] = []

    def note_save(request: Request) -> None:
        if request.method == "PUT":
            saves.append(request.url)

    page.on("request", note_save)

    page.get_by_role("button", name="Submit attempt").click()

    expect(page.locator("[data-unanswered]")).to_contain_text("Not answered")
    expect(page.locator("[data-unanswered]")).not_to_contain_text("Not saved yet")
    page.wait_for_timeout(1200)  # longer than the autosave's wait
    assert saves == []
    expect(page.locator("[data-save-state]")).to_have_text(re.compile(r"^Saved at "))


def test_each_scrolling_code_block_and_formula_has_its_own_name(
    site: Site, demo: dict[str, User]
) -> None:
    # Every code block was a region named "Code (scrolls sideways)": landmarks a screen
    # reader cannot tell apart (axe: landmark-unique, a moderate violation).
    page = site.context(demo["student"]).new_page()
    _start(page, "Fundamentals check: tensors and autograd")
    expect(page.locator("pre[role=region]").first).to_have_attribute("tabindex", "0")

    names = page.eval_on_selector_all("[role=region]", "els => els.map(e => e.ariaLabel)")
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("async () => (await axe.run(document)).violations")

    assert "Code 1 (scrolls sideways)" in names
    assert len(names) == len(set(names)), names
    assert "landmark-unique" not in [violation["id"] for violation in found]


def test_the_quiz_page_passes_axe_on_a_phone(site: Site, demo: dict[str, User]) -> None:
    page = site.context(demo["student"]).new_page()
    _start(page, "Fundamentals check: tensors and autograd")
    page.set_viewport_size(PHONE)
    assert_accessible(page)
    editor = page.locator(".cm-content").first
    expect(editor).to_have_attribute("aria-describedby", re.compile(r"^q\d+-keys$"))
    hint = page.locator(f"#{editor.get_attribute('aria-describedby')}")
    expect(hint).to_contain_text("press Esc, then Tab")


def test_the_dashboard_shows_its_start_buttons_on_a_phone(
    site: Site, demo: dict[str, User]
) -> None:
    """Each quiz is a card on a narrow screen: no button hides off the side of a table."""
    page = site.context(demo["student"]).new_page()
    page.set_viewport_size(PHONE)
    page.goto("/dashboard/")
    start = page.get_by_role("button", name="Start Fundamentals check: tensors and autograd")
    box = start.bounding_box()
    assert box is not None
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= PHONE["width"]
    expect(page.locator("table.stack td[data-label='Attempts left']").first).to_be_visible()
    assert_accessible(page)
    screenshots(page, "student-dashboard")


def test_a_run_that_prints_nothing_says_how_to_see_a_result(
    site: Site, demo: dict[str, User]
) -> None:
    page = site.context(demo["student"]).new_page()
    _start(page, "Fundamentals check: tensors and autograd")
    page.locator("#q5 .cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.type("def softmax_rows(x):\nreturn x\n")
    page.get_by_role("button", name="Run the code of question 6").click()
    output = page.locator('[data-run-output="5"]')
    expect(output.locator("p").first).to_have_text("Finished", timeout=30_000)
    expect(output).to_contain_text("No output. Run executes your code as a script")


def test_a_run_stopped_by_a_limit_says_so_in_words(site: Site, demo: dict[str, User]) -> None:
    # The page showed the runner's status code: "Finished: output_limit (the output ...)".
    page = site.context(demo["student"]).new_page()
    _start(page, "Fundamentals check: tensors and autograd")
    page.locator("#q5 .cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.type("print('x' * 100_000)\n")
    page.get_by_role("button", name="Run the code of question 6").click()
    title = page.locator('[data-run-output="5"] p').first
    expect(title).to_have_text(
        re.compile(r"^Stopped: too much output \(the output passed"), timeout=30_000
    )


def test_a_refused_answer_says_why_beside_it(site: Site, demo: dict[str, User]) -> None:
    page = site.context(demo["student"]).new_page()
    _start(page, "Fundamentals check: tensors and autograd")
    page.locator("#q3 input").fill("abc")
    note = page.locator("#q3 .field-error")
    expect(note).to_contain_text("number")
    expect(page.locator("#q3 input")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("[data-save-state]")).to_have_text("Not saved: question 4 says why")
    page.locator("#q3 input").fill("13")
    _saved(page)
    expect(note).to_have_count(0)
    expect(page.locator("#q3 input")).not_to_have_attribute("aria-invalid", "true")


def test_a_reload_restores_this_tabs_text_and_leaves_another_tabs_alone(
    site: Site, demo: dict[str, User]
) -> None:
    """Both tabs offline, each with text the server never took: reloading one restores its
    own text, and the other tab's stays kept for it."""
    context = site.context(demo["student"])
    first = context.new_page()
    _start(first, "Fundamentals check: tensors and autograd")
    second = context.new_page()
    second.goto(first.url)
    saves = "**/api/attempts/*/responses/**"
    for page in (first, second):
        page.route(saves, lambda route: route.abort())
    first.locator("#q4 input").fill("typed in the first tab")
    second.locator("#q4 input").fill("typed in the second tab")
    expect(first.locator("[data-save-state]")).to_contain_text("Offline")
    expect(second.locator("[data-save-state]")).to_contain_text("Offline")
    first.unroute(saves)
    first.reload()
    expect(first.locator("#q4 input")).to_have_value("typed in the first tab")
    _saved(first)
    kept = second.evaluate("() => Object.values(localStorage).join(' ')")
    assert "typed in the second tab" in kept
