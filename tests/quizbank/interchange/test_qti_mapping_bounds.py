"""A QTI mapping's defaultValue (the score of a response it does not list) and its
lowerBound/upperBound: imported where the bank's question can say the same, noted where not."""

from __future__ import annotations

import pytest

from grading.scoring import score_answer
from quizbank.models import Course
from quizbank.services.interchange import interchange_import
from tests.quizbank.factories import make_course
from tests.quizbank.interchange.helpers import (
    THIRD_PARTY,
    import_file,
    notes_of,
    qti_text_entry,
    skipped_reasons,
    stored,
)

pytestmark = pytest.mark.django_db

NUMERIC = (
    '<assessmentItem identifier="two" title="Two">'
    '<responseDeclaration identifier="RESPONSE" cardinality="single" baseType="integer">'
    '<mapping defaultValue="{default}"><mapEntry mapKey="2" mappedValue="1"/></mapping>'
    "</responseDeclaration>"
    '<itemBody><p>1 + 1 = <textEntryInteraction responseIdentifier="RESPONSE"/></p>'
    "</itemBody></assessmentItem>"
)


@pytest.fixture
def course() -> Course:
    return make_course(slug="target")


def scores(course: Course, *texts: str) -> list[float]:
    content = stored(course)["word"]
    return [score_answer(content, {"text": text}).score for text in texts]


def test_a_positive_default_value_scores_every_answer_the_mapping_does_not_list(
    course: Course,
) -> None:
    data = qti_text_entry(None, "2", "0", mapping='defaultValue="0.5"')
    report = interchange_import(course=course, fmt="qti", data=data)
    assert scores(course, "answer0", "answer1", "anything else", "") == [1, 0, 0.25, 0]
    assert notes_of(report, "word") == []


def test_a_default_value_above_every_mapped_value_is_the_top_score(course: Course) -> None:
    interchange_import(
        course=course, fmt="qti", data=qti_text_entry(None, "0", mapping='defaultValue="1"')
    )
    assert scores(course, "answer0", "anything else") == [0, 1]


def test_the_bounds_apply_to_the_mapped_values_and_the_default(course: Course) -> None:
    data = qti_text_entry(
        None, "3", "1", "-2", mapping='defaultValue="-1" lowerBound="0" upperBound="2"'
    )
    report = interchange_import(course=course, fmt="qti", data=data)
    assert scores(course, "answer0", "answer1", "answer2", "other") == [1, 0.5, 0, 0]
    # The bounds keep every score at 0 or more, as the bank does: nothing is lost to note.
    assert notes_of(report, "word") == []


def test_an_upper_bound_of_zero_leaves_no_answer_that_scores(course: Course) -> None:
    data = qti_text_entry(None, "1", mapping='defaultValue="1" upperBound="0"')
    report = interchange_import(course=course, fmt="qti", data=data)
    (reason,) = skipped_reasons(report).values()
    assert "answers: no answer earns marks" in reason


def test_a_negative_default_value_is_noted_when_another_answer_scores(course: Course) -> None:
    data = qti_text_entry(None, "1", mapping='defaultValue="-1"')
    report = interchange_import(course=course, fmt="qti", data=data)
    assert scores(course, "answer0", "other") == [1, 0]
    (note,) = notes_of(report, "word")
    assert "does not list has defaultValue -1" in note
    assert "no marks are taken off" in note


@pytest.mark.parametrize(
    ("mapping", "where"),
    [
        ('defaultValue="lots"', "defaultValue 'lots' is not a number"),
        ('defaultValue="0" lowerBound="low"', "lowerBound 'low' is not a number"),
        ('defaultValue="0" upperBound="NaN"', "upperBound 'NaN' is not a finite number"),
        # Python's float() reads "1_0" as 10; no file format writes a number so.
        ('defaultValue="1_0"', "defaultValue '1_0' is not a number"),
        # A long value is quoted cut, not whole.
        ('defaultValue="' + "9" * 500 + 'x"', "defaultValue '" + "9" * 79 + "…' is not a number"),
    ],
)
def test_a_mapping_attribute_that_is_not_a_number_skips_the_item_saying_which(
    course: Course, mapping: str, where: str
) -> None:
    report = interchange_import(
        course=course, fmt="qti", data=qti_text_entry(None, "1", mapping=mapping)
    )
    assert report.questions == []
    assert skipped_reasons(report) == {"item": where}


def test_a_numeric_default_value_is_noted_as_not_kept(course: Course) -> None:
    report = interchange_import(
        course=course, fmt="qti", data=NUMERIC.format(default="0.5").encode()
    )
    assert stored(course)["two"]["answers"] == [{"value": 2}]
    (note,) = notes_of(report, "two")
    assert "defaultValue 0.5 (the score of a number the mapping does not list) not kept" in note


def test_a_numeric_default_value_of_zero_says_nothing(course: Course) -> None:
    report = interchange_import(course=course, fmt="qti", data=NUMERIC.format(default="0").encode())
    assert notes_of(report, "two") == []


def test_a_choice_mapping_note_names_the_default_value_it_replaced(course: Course) -> None:
    path = THIRD_PARTY / "qti/v2p1_oat-sa_qti-sdk/choice_multiple.xml"
    report = import_file(course, "qti", path)
    (note,) = notes_of(report, "choicemultiple")
    assert note.endswith("; its defaultValue -2 for the 3 choices it does not list not kept")


SINGLE = (
    '<assessmentItem identifier="pick" title="Pick">'
    '<responseDeclaration identifier="RESPONSE" cardinality="single" baseType="identifier">'
    "{correct}<mapping {mapping}>{entries}</mapping></responseDeclaration>"
    "<itemBody><p>Which activation do most hidden layers use?</p>"
    '<choiceInteraction responseIdentifier="RESPONSE" maxChoices="1">'
    '<simpleChoice identifier="A">ReLU</simpleChoice>'
    '<simpleChoice identifier="B">Leaky ReLU</simpleChoice>'
    '<simpleChoice identifier="C">Softmax</simpleChoice>'
    "</choiceInteraction></itemBody></assessmentItem>"
)


def single_choice(
    values: dict[str, str], correct: str | None = "A", mapping: str = 'defaultValue="0"'
) -> bytes:
    """A single-choice item of choices A, B and C, the mapping giving each of `values`."""
    entries = "".join(
        f'<mapEntry mapKey="{key}" mappedValue="{value}"/>' for key, value in values.items()
    )
    declared = (
        "" if correct is None else f"<correctResponse><value>{correct}</value></correctResponse>"
    )
    return SINGLE.format(correct=declared, mapping=mapping, entries=entries).encode()


def choice_scores(course: Course) -> list[float]:
    content = stored(course)["pick"]
    return [score_answer(content, {"choice": index}).score for index in range(3)]


def test_a_single_choice_mapping_like_the_bank_s_rule_says_nothing(course: Course) -> None:
    data = single_choice(
        {"A": "2", "B": "-1", "C": "-1"}, mapping='defaultValue="0" lowerBound="0"'
    )
    report = interchange_import(course=course, fmt="qti", data=data)
    assert choice_scores(course) == [1, 0, 0]
    assert notes_of(report, "pick") == []


def test_partial_credit_for_a_wrong_single_choice_is_noted(course: Course) -> None:
    report = interchange_import(
        course=course, fmt="qti", data=single_choice({"A": "1", "B": "0.5", "C": "0"})
    )
    assert choice_scores(course) == [1, 0, 0]
    (note,) = notes_of(report, "pick")
    assert note == (
        "the choice 'B' has mappedValue 0.5; here it gives 0 "
        "(a single choice has no partial credit)"
    )


def test_a_single_choice_default_value_for_an_unlisted_choice_is_noted(course: Course) -> None:
    data = single_choice({"A": "1", "B": "0"}, mapping='defaultValue="0.25"')
    report = interchange_import(course=course, fmt="qti", data=data)
    assert choice_scores(course) == [1, 0, 0]
    (note,) = notes_of(report, "pick")
    assert note.startswith("the choice 'C', which the mapping does not list, has defaultValue 0.25")


def test_a_negative_mapped_value_of_a_single_choice_is_noted(course: Course) -> None:
    report = interchange_import(
        course=course, fmt="qti", data=single_choice({"A": "1", "B": "0", "C": "-1"})
    )
    assert choice_scores(course) == [1, 0, 0]
    (note,) = notes_of(report, "pick")
    assert note == "the choice 'C' has mappedValue -1; here it gives 0 (no marks are taken off)"


def test_a_correct_choice_the_mapping_scores_below_another_is_noted(course: Course) -> None:
    report = interchange_import(
        course=course, fmt="qti", data=single_choice({"A": "0.5", "B": "1", "C": "0"})
    )
    assert choice_scores(course) == [1, 0, 0]
    assert notes_of(report, "pick") == [
        "the choice 'A' has mappedValue 0.5 (and the mapping gives another choice 1); "
        "here it gives full marks",
        "the choice 'B' has mappedValue 1; here it gives 0 (a single choice has no partial credit)",
    ]


def test_a_single_choice_without_correct_response_takes_the_mapping_s_top_choice(
    course: Course,
) -> None:
    data = single_choice({"A": "0", "B": "1", "C": "0"}, correct=None)
    report = interchange_import(course=course, fmt="qti", data=data)
    assert choice_scores(course) == [0, 1, 0]
    assert notes_of(report, "pick") == []


NUMERIC_MAPPED = (
    '<assessmentItem identifier="rate" title="Rate">'
    '<responseDeclaration identifier="RESPONSE" cardinality="single" baseType="float">'
    '<mapping defaultValue="0">{entries}</mapping></responseDeclaration>'
    '<itemBody><p>Learning rate: <textEntryInteraction responseIdentifier="RESPONSE"/></p>'
    "</itemBody></assessmentItem>"
)


def numeric_item(values: dict[str, str]) -> bytes:
    entries = "".join(
        f'<mapEntry mapKey="{key}" mappedValue="{value}"/>' for key, value in values.items()
    )
    return NUMERIC_MAPPED.format(entries=entries).encode()


def numeric_scores(course: Course, *values: str) -> list[float]:
    content = stored(course)["rate"]
    return [score_answer(content, {"value": value}).score for value in values]


def test_a_numeric_item_s_mapped_values_are_its_answers_fractions(course: Course) -> None:
    data = numeric_item({"0.01": "2", "0.1": "1", "1": "0"})
    report = interchange_import(course=course, fmt="qti", data=data)
    assert numeric_scores(course, "0.01", "0.1", "1", "5") == [1, 0.5, 0, 0]
    assert notes_of(report, "rate") == []


def test_a_negative_numeric_mapped_value_is_noted(course: Course) -> None:
    report = interchange_import(
        course=course, fmt="qti", data=numeric_item({"0.01": "1", "1": "-1"})
    )
    assert numeric_scores(course, "0.01", "1") == [1, 0]
    (note,) = notes_of(report, "rate")
    assert note == "the answer '1' has mappedValue -1; here it gives 0 (no marks are taken off)"


def test_a_numeric_mapping_that_scores_nothing_skips_the_item(course: Course) -> None:
    report = interchange_import(course=course, fmt="qti", data=numeric_item({"0.01": "0"}))
    (reason,) = skipped_reasons(report).values()
    assert "answers: no answer earns marks" in reason


def test_a_numeric_map_key_grading_could_not_read_skips_the_item(course: Course) -> None:
    data = numeric_item({"0.01": "1", "1e200": "0.5"})
    report = interchange_import(course=course, fmt="qti", data=data)
    assert report.questions == []
    assert skipped_reasons(report) == {
        "item": "answers[1].value: must be at most 1e+100 in size (1e+200 given)"
    }


def test_a_numeric_correct_response_grading_could_not_read_skips_the_item(
    course: Course,
) -> None:
    data = (
        b'<assessmentItem identifier="huge" title="Huge">'
        b'<responseDeclaration identifier="RESPONSE" cardinality="single" baseType="float">'
        b"<correctResponse><value>-1e150</value></correctResponse></responseDeclaration>"
        b'<itemBody><p>x = <textEntryInteraction responseIdentifier="RESPONSE"/></p>'
        b"</itemBody></assessmentItem>"
    )
    report = interchange_import(course=course, fmt="qti", data=data)
    assert report.questions == []
    assert skipped_reasons(report) == {
        "item": "answers[0].value: must be at most 1e+100 in size (-1e+150 given)"
    }


def test_a_numeric_default_value_above_every_mapped_value_leaves_the_top_at_full_marks(
    course: Course,
) -> None:
    report = interchange_import(course=course, fmt="qti", data=NUMERIC.format(default="5").encode())
    assert stored(course)["two"]["answers"] == [{"value": 2}]
    assert score_answer(stored(course)["two"], {"value": "2"}).score == 1
    (note,) = notes_of(report, "two")
    assert note.startswith("defaultValue 5 (the score of a number the mapping does not list)")


@pytest.mark.parametrize(
    "item",
    [
        qti_text_entry(None, "1", "0", mapping='defaultValue="0" lowerBound="2" upperBound="1"'),
        NUMERIC.replace('defaultValue="{default}"', 'lowerBound="2" upperBound="1"').encode(),
        single_choice({"A": "1", "B": "0"}, mapping='lowerBound="2" upperBound="1"'),
        single_choice({"A": "1"}, correct=None, mapping='lowerBound="2" upperBound="1"'),
        single_choice({"A": "1", "B": "-1"}, mapping='lowerBound="2" upperBound="1"').replace(
            b'cardinality="single"', b'cardinality="multiple"'
        ),
    ],
    ids=["text", "numeric", "single", "single-without-correct", "multiple"],
)
def test_a_lower_bound_above_the_upper_bound_skips_the_item_naming_both(
    course: Course, item: bytes
) -> None:
    report = interchange_import(course=course, fmt="qti", data=item)
    assert report.questions == []
    (reason,) = skipped_reasons(report).values()
    assert reason == "the mapping's lowerBound '2' is above its upperBound '1'"


def test_a_numeric_default_value_note_gives_the_score_within_the_bounds(course: Course) -> None:
    data = NUMERIC.replace('defaultValue="{default}"', 'defaultValue="0" lowerBound="0.5"')
    report = interchange_import(course=course, fmt="qti", data=data.encode())
    (note,) = notes_of(report, "two")
    assert note == (
        "defaultValue 0, 0.5 within the mapping's bounds (the score of a number the mapping "
        "does not list) not kept: here such a number gives 0"
    )


def test_a_single_choice_default_value_note_gives_the_score_within_the_bounds(
    course: Course,
) -> None:
    data = single_choice({"A": "1", "B": "0"}, mapping='defaultValue="2" upperBound="0.5"')
    report = interchange_import(course=course, fmt="qti", data=data)
    assert notes_of(report, "pick") == [
        "the choice 'C', which the mapping does not list, has defaultValue 2, 0.5 within the "
        "mapping's bounds; here it gives 0 (a single choice has no partial credit)"
    ]


def test_a_mapping_that_mixes_case_rules_keeps_case_and_says_so(course: Course) -> None:
    data = qti_text_entry(None, "1", "0.5").replace(
        b'mapKey="answer0"', b'mapKey="answer0" caseSensitive="false"'
    )
    report = interchange_import(course=course, fmt="qti", data=data)
    assert stored(course)["word"]["case_sensitive"] is True
    assert scores(course, "answer0", "ANSWER0", "answer1") == [1, 0, 0.5]
    assert notes_of(report, "word") == [
        "the mapping matches 'answer0' in any case (caseSensitive=\"false\") but its other "
        "answers only in their own case: here every answer must match in case"
    ]


def test_a_mapping_of_only_case_insensitive_answers_says_nothing(course: Course) -> None:
    data = qti_text_entry(None, "1", "0.5").replace(
        b'mappedValue="', b'caseSensitive="false" mappedValue="'
    )
    report = interchange_import(course=course, fmt="qti", data=data)
    assert scores(course, "ANSWER0", "Answer1") == [1, 0.5]
    assert notes_of(report, "word") == []


NO_ONE_RIGHT = "no correctResponse, and the mapping names no one right choice: "


@pytest.mark.parametrize(
    ("values", "reason"),
    [
        ({"Z": "1"}, "it scores no choice above 0; its mapKey 'Z' is no choice of the item"),
        ({"A": "1", "B": "1", "C": "0"}, "the choices 'A', 'B' tie for its top score 1"),
        ({"A": "0", "B": "-1"}, "it scores no choice above 0"),
    ],
    ids=["unknown-key", "tie", "nothing-scores"],
)
def test_a_single_choice_mapping_without_one_top_choice_skips_the_item_saying_why(
    course: Course, values: dict[str, str], reason: str
) -> None:
    data = single_choice(values, correct=None)
    report = interchange_import(course=course, fmt="qti", data=data)
    assert report.questions == []
    assert skipped_reasons(report) == {"item": NO_ONE_RIGHT + reason}
