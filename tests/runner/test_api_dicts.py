"""Jobs and results travel as JSON dicts and come back equal; bad dicts say what is wrong."""

import json

import pytest

from runner.api import (
    CaseResult,
    CompareSettings,
    Device,
    GradingJob,
    GradingResult,
    Limits,
    RunResult,
    Status,
    queue_for,
)


def _job() -> GradingJob:
    return GradingJob(
        job_id="j-1",
        source="def f(x):\n    return x\n",
        entry_point="f",
        reference_source="def f(x):\n    return x\n",
        cases=[{"name": "one", "args": [{"tensor": [1.0]}]}],
        compare=CompareSettings(rtol=1e-3, dtype="promotable"),
        device=Device.CUDA,
        limits=Limits(time_s=2.5, memory_mb=256),
        forbidden=["torch.linalg.inv"],
    )


def test_a_job_survives_a_json_round_trip() -> None:
    job = _job()
    assert GradingJob.from_dict(json.loads(json.dumps(job.to_dict()))) == job


def test_a_result_survives_a_json_round_trip() -> None:
    result = GradingResult(
        job_id="j-1",
        status=Status.ERROR,
        score=0.5,
        cases=[CaseResult(name="one", passed=True, weight=1.0, max_abs_error=0.0)],
        timings_ms={"run_ms": 3.0},
    )
    data = json.loads(json.dumps(result.to_dict()))
    assert data["status"] == "error"
    assert GradingResult.from_dict(data) == result


def test_a_run_result_survives_a_json_round_trip() -> None:
    result = RunResult(status=Status.TIMEOUT, exit_code=-9, stdout="x", truncated=True)
    assert RunResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result


def test_an_unknown_key_is_named_in_the_error() -> None:
    data = _job().to_dict() | {"colour": "red"}
    with pytest.raises(ValueError, match="GradingJob: unknown keys \\['colour'\\]"):
        GradingJob.from_dict(data)


def test_a_bad_nested_limit_is_named_in_the_error() -> None:
    data = _job().to_dict() | {"limits": {"time": 3}}
    with pytest.raises(ValueError, match="Limits: unknown keys"):
        GradingJob.from_dict(data)


@pytest.mark.parametrize(
    ("device", "queue"), [(Device.CPU, "cpu"), (Device.ANY, "cpu"), (Device.CUDA, "gpu")]
)
def test_jobs_are_routed_by_device(device: Device, queue: str) -> None:
    assert queue_for(device) == queue
