"""Enrolling students from a pasted list or a CSV: existing accounts only, unknowns reported."""

import pytest
from django.contrib.auth.models import User

from quizbank.errors import AccessRuleInvalid
from quizbank.models import CourseMembership, Role
from quizbank.services.enrolment import (
    course_enrol_students,
    course_unenrol_students,
    entries_from_csv,
    entries_from_text,
)
from tests.grading.factories import member, new_course

pytestmark = pytest.mark.django_db


def test_a_pasted_list_enrols_by_username_or_email_and_reports_unknowns() -> None:
    course = new_course()
    User.objects.create(username="ada", email="Ada@Example.org")
    User.objects.create(username="alan")
    User.objects.create(username="gone", is_active=False)
    text = "ada@example.org, alan;\n nobody@example.org gone\nalan"
    result = course_enrol_students(course=course, entries=entries_from_text(text))
    assert result.added == ["ada", "alan"]
    assert result.unknown == ["nobody@example.org", "gone"]
    roles = CourseMembership.objects.filter(course=course).values_list("user__username", "role")
    assert sorted(roles) == [("ada", Role.STUDENT), ("alan", Role.STUDENT)]


def test_enrolling_twice_changes_nothing_and_keeps_other_roles() -> None:
    course = new_course()
    examiner = member(course, Role.EXAMINER)
    first = course_enrol_students(course=course, entries=[examiner.username])
    again = course_enrol_students(course=course, entries=[examiner.username])
    assert first.added == [examiner.username]
    assert again.already == [examiner.username]
    assert CourseMembership.objects.filter(user=examiner, course=course).count() == 2


def test_a_csv_gives_its_first_column_without_the_header() -> None:
    data = "\ufeffemail,name\nada@example.org,Ada\n\n alan ,Alan\n".encode()
    assert entries_from_csv(data) == ["ada@example.org", "alan"]


def test_a_csv_that_is_not_text_is_refused() -> None:
    with pytest.raises(AccessRuleInvalid):
        entries_from_csv(b"\xff\xfe\x00bad")


def test_too_many_entries_are_refused() -> None:
    with pytest.raises(AccessRuleInvalid):
        course_enrol_students(course=new_course(), entries=[f"u{n}" for n in range(5001)])


def test_removing_students_reports_each_entry_and_keeps_other_roles() -> None:
    course = new_course()
    ada = member(course, Role.STUDENT)
    both = member(course, Role.STUDENT)
    member(course, Role.EXAMINER, user=both)
    teacher = member(course, Role.EXAMINER)
    result = course_unenrol_students(
        course=course,
        entries=[ada.username, both.username, teacher.username, "nobody", ada.username],
    )
    assert result.removed == [ada.username, both.username]
    assert result.not_enrolled == [teacher.username]
    assert result.unknown == ["nobody"]
    left = CourseMembership.objects.filter(course=course).values_list("user__username", "role")
    assert sorted(left) == sorted(
        [(both.username, Role.EXAMINER), (teacher.username, Role.EXAMINER)]
    )
    assert course_unenrol_students(course=course, entries=[ada.username]).not_enrolled == [
        ada.username
    ]


def test_removing_from_one_course_leaves_the_student_in_another() -> None:
    course, other = new_course(), new_course()
    ada = member(course, Role.STUDENT)
    member(other, Role.STUDENT, user=ada)
    course_unenrol_students(course=course, entries=[ada.username])
    assert list(CourseMembership.objects.filter(user=ada).values_list("course", flat=True)) == [
        other.pk
    ]


def test_a_username_matches_ignoring_case_when_one_account_has_it() -> None:
    course = new_course()
    User.objects.create(username="Alice")
    User.objects.create(username="bob")
    result = course_enrol_students(course=course, entries=["alice", "BOB"])
    assert result.added == ["Alice", "bob"]
    assert result.unknown == []
    assert result.ambiguous == []
    removed = course_unenrol_students(course=course, entries=["ALICE"])
    assert removed.removed == ["Alice"]


def test_an_entry_several_accounts_match_ignoring_case_is_reported_not_guessed() -> None:
    course = new_course()
    # Made before usernames were unique ignoring case, or in the admin.
    User.objects.create(username="Carol")
    User.objects.create(username="carol")
    User.objects.create(username="dan", email="shared@example.org")
    User.objects.create(username="eve", email="Shared@example.org")
    result = course_enrol_students(course=course, entries=["CAROL", "shared@example.org"])
    assert result.added == []
    assert result.ambiguous == ["CAROL", "shared@example.org"]
    exact = course_enrol_students(course=course, entries=["carol", "Carol"])
    assert exact.added == ["carol", "Carol"]
    assert course_unenrol_students(course=course, entries=["cAROL"]).ambiguous == ["cAROL"]
