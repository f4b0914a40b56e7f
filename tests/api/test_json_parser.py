"""The API's JSON parser: nesting counted outside strings, text checked everywhere."""

import pytest

from config.parsers import MAX_DEPTH, nesting_depth
from config.text import KEY_MESSAGE, TEXT_MESSAGE, unstorable_text


@pytest.mark.parametrize(
    ("body", "depth"),
    [
        (b"1", 0),
        (b'{"a": [1, {"b": []}]}', 4),
        (b'{"a": "[[[[{{{{"}', 1),
        (b'{"a": "quote \\" [[[ still a string"}', 1),
        (b'["\\\\", [[]]]', 3),
    ],
)
def test_nesting_depth_counts_brackets_outside_strings(body: bytes, depth: int) -> None:
    assert nesting_depth(body) == depth


def test_nesting_depth_stops_counting_past_the_limit() -> None:
    assert nesting_depth(b"[" * 100_000) == MAX_DEPTH + 1


def test_unstorable_text_names_every_bad_place_by_its_path() -> None:
    data = {"answer": {"text": "a\x00b", "parts": ["ok", "\ud800"]}, "fine": "é😀"}

    assert unstorable_text(data) == {
        "answer.text": [TEXT_MESSAGE],
        "answer.parts[1]": [TEXT_MESSAGE],
    }


def test_a_bad_key_is_reported_at_its_object_without_repeating_it() -> None:
    assert unstorable_text({"answer": {"\udfff": 1}}) == {"answer": [KEY_MESSAGE]}
    assert unstorable_text("\x00") == {"non_field_errors": [TEXT_MESSAGE]}


def test_paired_surrogates_decoded_by_json_are_ordinary_text() -> None:
    assert unstorable_text({"emoji": "\U0001f600"}) == {}
