"""The result channel accepts exactly one well-formed frame under the cap."""

import pytest

from runner.framing import FrameError, encode_frame, parse_single_frame

CAP = 1024


def test_it_returns_the_payload_of_a_single_frame() -> None:
    assert parse_single_frame(encode_frame(b"payload"), cap=CAP) == b"payload"


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "no result"),
        (b"VBF1", "truncated"),
        (encode_frame(b"abc")[:-1], "truncated"),
        (encode_frame(b"a") + encode_frame(b"b"), "more than one"),
        (b"XXXX" + encode_frame(b"a")[4:], "not a result frame"),
        (b"VBF1" + (2**62).to_bytes(8, "big"), "cap"),
        (encode_frame(b"x" * (CAP + 1)), "cap"),
    ],
    ids=["empty", "short header", "short body", "two frames", "bad magic", "huge prefix", "big"],
)
def test_it_rejects_anything_but_one_frame(data: bytes, reason: str) -> None:
    with pytest.raises(FrameError, match=reason):
        parse_single_frame(data, cap=CAP)
