"""The result channel: round trips, and malformed payloads are refused."""

from __future__ import annotations

import json
import struct
from typing import Any

import pytest
import torch

from runner.api import Status
from runner.harness.encode import Encoder, pack
from runner.harness.payload import MAGIC, NodeDecoder, PayloadError, Rejected, TensorValue
from runner.harness.results import decode_result
from runner.harness.scoring import Payloads, score_job
from tests.runner.harness.helpers import make_job, payload

SOURCE = "import torch\ndef f(x):\n    return x * 2\n"
CASES: list[dict[str, Any]] = [{"args": [{"tensor": [[1.0, 2.0], [3.0, 4.0]]}]}]


def roundtrip(value: Any) -> Any:
    encoder = Encoder()
    node = encoder.encode(value)
    return NodeDecoder(bytes(encoder.blob)).decode(json.loads(json.dumps(node)))


@pytest.mark.parametrize(
    "dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int64, torch.bool]
)
def test_tensors_survive_the_round_trip_bit_for_bit(dtype: torch.dtype) -> None:
    tensor = (torch.arange(12).reshape(3, 4) % 3).to(dtype)
    decoded = roundtrip(tensor)
    assert isinstance(decoded, TensorValue)
    assert decoded.tensor.dtype == dtype
    assert torch.equal(decoded.tensor, tensor)


def test_structure_and_flags_survive_the_round_trip() -> None:
    leaf = torch.ones(2, requires_grad=True)
    value = {"a": [1, 2.5, "s", None, True], "b": (leaf, leaf * 2), "e": torch.empty(0, 3)}
    decoded = roundtrip(value)
    assert decoded["a"] == [1, 2.5, "s", None, True]
    assert isinstance(decoded["b"], tuple)
    assert decoded["b"][0].requires_grad
    assert decoded["b"][0].is_leaf
    assert not decoded["b"][1].is_leaf
    assert decoded["e"].tensor.shape == (0, 3)


def test_non_contiguous_tensors_are_sent_in_logical_order() -> None:
    tensor = torch.arange(6.0).reshape(2, 3).t()
    assert torch.equal(roundtrip(tensor).tensor, tensor)


def test_a_whole_payload_decodes_into_case_records() -> None:
    job = make_job(SOURCE, SOURCE, CASES)
    result = decode_result(payload(job, "student"))
    (record,) = result.cases
    assert record.error is None
    assert torch.equal(record.values["output"].tensor, torch.tensor([[2.0, 4.0], [6.0, 8.0]]))


def frame(header: dict[str, Any], blob: bytes = b"") -> bytes:
    return pack(header, blob)


def tensor_header(**changes: Any) -> dict[str, Any]:
    node = {"k": "tensor", "dtype": "float32", "shape": [2], "offset": 0, "nbytes": 8}
    node.update(device="cpu", requires_grad=False, is_leaf=True, type="torch.Tensor")
    node.update(changes)
    case = {"name": "case 1", "values": {"output": node}}
    return {"cases": [case]}


BLOB = struct.pack("<2f", 1.0, 2.0)


def test_a_well_formed_hand_made_payload_is_accepted() -> None:
    result = decode_result(frame(tensor_header(), BLOB))
    assert result.cases[0].values["output"].tensor.tolist() == [1.0, 2.0]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "magic"),
        (b"PICKLE" + b"\x00" * 10, "magic"),
        (MAGIC + struct.pack("<I", 10**9) + b"{}", "header length"),
        (MAGIC + struct.pack("<I", 3) + b"{x}", "not valid JSON"),
        (frame(tensor_header(), BLOB)[:-1], "blob size"),
        (frame(tensor_header(offset=4), BLOB), "outside the blob"),
        (frame(tensor_header(offset=-8), BLOB), "non-negative"),
        (frame(tensor_header(shape=[2**40, 2**40]), BLOB), "cannot hold"),
        (frame(tensor_header(shape=[-2]), BLOB), "invalid size"),
        (frame(tensor_header(shape=[1] * 17), BLOB), "at most 16"),
        (frame(tensor_header(dtype="object"), BLOB), "unknown dtype name 'object'"),
        (frame(tensor_header(dtype="torch.float32"), BLOB), "unknown dtype name"),
        (frame(tensor_header(nbytes=4), BLOB), "cannot hold 4 bytes"),
        (frame(tensor_header(requires_grad="yes"), BLOB), "flags"),
        (frame({"cases": [{"name": "case 1", "values": {"output": {"k": "pickle"}}}]}), "kind"),
        (frame({"cases": [{"name": "case 1", "values": {"evil": {"k": "py", "v": 1}}}]}), "values"),
        (
            frame({"cases": [{"name": "case 1", "values": {"output": {"k": "py", "v": [1]}}}]}),
            "plain",
        ),
        (frame({"cases": "all passed"}), "case list"),
        (
            frame({"cases": [{"name": "case 1", "values": {}, "input_reads": -1}]}),
            "a count of input reads is not a non-negative integer",
        ),
        (
            frame({"cases": [{"name": "case 1", "values": {}, "aliased_inputs": [True]}]}),
            "input positions",
        ),
        (
            frame(
                {
                    "cases": [
                        {
                            "name": "case 1",
                            "values": {},
                            "input_marks": [
                                {
                                    "hooks": 0,
                                    "written": 0,
                                    "moved": False,
                                    "accumulated": 1,
                                    "grad_kept": None,
                                    "reaches": True,
                                    "backward_error": None,
                                }
                            ],
                        }
                    ]
                }
            ),
            "a list of marks on the inputs is malformed",
        ),
    ],
)
def test_malformed_payloads_are_refused_with_a_reason(data: bytes, reason: str) -> None:
    with pytest.raises(PayloadError, match=reason):
        decode_result(data)


def test_deeply_nested_values_are_refused() -> None:
    node: dict[str, Any] = {"k": "py", "v": 1}
    for _ in range(40):
        node = {"k": "list", "items": [node]}
    with pytest.raises(PayloadError, match="deeply"):
        NodeDecoder(b"").decode(node)


def test_a_malformed_student_payload_is_the_students_error() -> None:
    job = make_job(SOURCE, SOURCE, CASES)
    forged = frame({"cases": [{"name": "case 1", "values": {"output": {"k": "ok"}}}]})
    score, cases, status, message = score_job(job, Payloads(payload(job, "reference"), forged))
    assert (score, cases, status) == (0.0, [], Status.ERROR)
    assert message.startswith("the answer's result could not be read:")


def test_a_forged_all_passed_payload_does_not_pass() -> None:
    job = make_job(SOURCE, SOURCE, CASES)
    forged = frame({"cases": [{"name": "case 1", "values": {"output": {"k": "py", "v": True}}}]})
    score, cases, status, _message = score_job(job, Payloads(payload(job, "reference"), forged))
    assert score == 0.0
    assert status == Status.OK
    assert cases[0].message == "case 1: the output is a bool, expected a tensor"


def test_a_wrong_number_of_case_records_is_invalid() -> None:
    job = make_job(SOURCE, SOURCE, CASES)
    empty = frame({"cases": []})
    score, _cases, status, message = score_job(job, Payloads(payload(job, "reference"), empty))
    assert (score, status) == (0.0, Status.ERROR)
    assert "0 case records for 1 cases" in message


def test_a_broken_reference_payload_is_an_internal_error() -> None:
    job = make_job(SOURCE, SOURCE, CASES)
    _score, _cases, status, message = score_job(job, Payloads(b"garbage", payload(job, "student")))
    assert status == Status.INTERNAL
    assert "reference" in message


def test_rejected_nodes_keep_their_reason() -> None:
    assert roundtrip(object()) == Rejected("an object of type object")


def test_tensors_that_share_bytes_are_refused_so_decoding_stays_within_the_frame() -> None:
    # A 4 MB blob named by many nodes would decode to thousands of copies of it.
    node = {"k": "tensor", "dtype": "float32", "shape": [1 << 20], "offset": 0, "nbytes": 4 << 20}
    node.update(device="cpu", requires_grad=False, is_leaf=True, type="torch.Tensor")
    decoder = NodeDecoder(bytes(4 << 20))
    decoder.decode(node)
    with pytest.raises(PayloadError, match="claim the same bytes"):
        decoder.decode({**node, "offset": 4, "nbytes": 4, "shape": [1]})


def test_tensor_ranges_may_touch_but_not_overlap() -> None:
    base = {"k": "tensor", "dtype": "uint8", "device": "cpu", "requires_grad": False}
    base.update(is_leaf=True, type="torch.Tensor")
    decoder = NodeDecoder(bytes(8))
    for offset in (4, 0, 6):
        decoder.decode({**base, "shape": [2], "offset": offset, "nbytes": 2})
    with pytest.raises(PayloadError, match="claim the same bytes"):
        decoder.decode({**base, "shape": [2], "offset": 5, "nbytes": 2})
