"""An author builds a quiz, enrols a student and gives them 50% extra time; that student
sees the longer time on the dashboard and a clock that runs to the longer deadline."""

import re
from datetime import timedelta

from django.contrib.auth.models import User
from playwright.sync_api import expect

from grading.models import Attempt
from quizbank.models import Quiz, Role
from tests.browser.conftest import Site, assert_accessible, screenshots
from tests.grading.content import SINGLE
from tests.grading.factories import member, new_course, question


def test_an_author_gives_a_student_extra_time_and_their_clock_is_longer(site: Site) -> None:
    course = new_course()
    fixed = question(course, SINGLE)
    other = question(course, {**SINGLE, "title": "Another question"})
    author = member(course, Role.AUTHOR)
    User.objects.create(username="sam", email="sam@example.org")
    page = site.page(author, f"/author/courses/{course.pk}/quizzes/new/")
    page.get_by_label("Title").fill("Week 1")
    page.get_by_label("Slug").fill("week-1")
    page.get_by_label("Time limit in minutes (empty: untimed)").fill("20")
    # The bank's filter hides rows; a box checked before filtering is still sent.
    page.get_by_role("checkbox", name=re.compile(other.title)).check()
    page.get_by_label("Find in the bank").fill(fixed.title[:6])
    expect(page.get_by_role("checkbox", name=re.compile(other.title))).to_be_hidden()
    expect(page.get_by_text("1 of 2 shown")).to_be_visible()
    page.get_by_role("checkbox", name=re.compile(fixed.title)).check()
    page.get_by_role("button", name="Save quiz").click()
    expect(page.get_by_text("Saved Week 1.")).to_be_visible()
    assert Quiz.objects.get(slug="week-1").slots.count() == 2
    page.get_by_role("link", name="Students and access").click()
    page.get_by_label("Usernames or e-mails").fill("sam@example.org")
    page.get_by_role("button", name="Enrol").click()
    expect(page.get_by_text("Enrolled 1")).to_be_visible()
    page.get_by_label("Student (username)").fill("sam")
    page.get_by_label("Extra time (%)").fill("50")
    page.get_by_role("button", name="Save accommodation").click()
    expect(page.get_by_text("Saved the override for sam.")).to_be_visible()

    student = site.page(User.objects.get(username="sam"), "/dashboard/")
    expect(student.get_by_text("includes your 50% extra time")).to_be_visible()
    expect(student.get_by_role("cell", name=re.compile("30 min"))).to_be_visible()
    assert_accessible(student)
    screenshots(student, "student-dashboard-extra-time")
    student.get_by_role("button", name=re.compile("Start")).click()
    attempt = Attempt.objects.get(user__username="sam")
    assert attempt.deadline is not None
    assert attempt.deadline - attempt.started_at == timedelta(minutes=30)
    expect(student.locator("[data-clock]")).to_have_text(re.compile(r"^(29|30):"))
