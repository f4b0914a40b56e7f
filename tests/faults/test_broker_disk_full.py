"""The filesystem broker (`make run`) on a full disk: sending a job is a clear error and
leaves no half-written message for a worker to choke on.

A 64 KiB tmpfs, filled up, is the broker folder (mounting needs root, as the sandbox does).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from celery import Celery
from kombu.exceptions import OperationalError

from config.exceptions import BROKER_ERRORS
from runner.api import GradingJob, Limits
from tests.runner.conftest import CASES, REFERENCE


def _fill(folder: Path) -> None:
    """Write until the disk is full (closing the file may itself meet the full disk)."""
    try:
        with (folder / "filler").open("wb", buffering=0) as filler:
            while True:
                filler.write(b"\0" * 4096)
    except OSError:
        return


@pytest.fixture
def full_folder() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="vivabank-broker-full-"))
    mount = ["/usr/bin/mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)]
    mounted = subprocess.run(mount, capture_output=True, text=True, check=False)  # noqa: S603
    if mounted.returncode != 0:
        os.rmdir(folder)
        if os.environ.get("CI") == "true":
            pytest.fail(f"cannot mount a tmpfs: {mounted.stderr}")
        pytest.skip(f"cannot mount a tmpfs: {mounted.stderr}")
    try:
        _fill(folder)
        yield folder
    finally:
        subprocess.run(["/usr/bin/umount", str(folder)], check=True)  # noqa: S603
        os.rmdir(folder)


def _app(folder: Path, transport: str, tmp_path: Path) -> Celery:
    app = Celery("full-disk", broker="filesystem://", set_as_current=False)
    app.conf.update(
        broker_transport=transport,
        broker_transport_options={
            "data_folder_in": str(folder),
            "data_folder_out": str(folder),
            "control_folder": str(tmp_path / "control"),
            "store_processed": False,
        },
        task_serializer="json",
    )
    return app


def test_a_job_sent_to_a_full_broker_folder_fails_clearly_and_leaves_nothing(
    full_folder: Path, tmp_path: Path
) -> None:
    app = _app(full_folder, "config.broker_files:Transport", tmp_path)
    job = GradingJob(
        job_id="full-disk-1",
        source=REFERENCE,
        entry_point="f",
        reference_source=REFERENCE,
        cases=CASES,
        limits=Limits(),
    )

    with pytest.raises(OperationalError, match="No space left on device"):
        app.send_task("runner.tasks.grade_submission", args=(job.to_dict(),), queue="cpu")

    assert sorted(os.listdir(full_folder)) == ["filler"]


@pytest.mark.parametrize("gone", ["removed", "a file"])
def test_a_job_sent_to_a_broker_folder_that_is_gone_fails_clearly(
    tmp_path: Path, gone: str
) -> None:
    # `rm -rf var` (or a clean-up) while `make run` serves: the web tier's send must be the
    # broker error it answers 503 for (config.exceptions.BROKER_ERRORS), not a bare OSError.
    folder = tmp_path / "broker"
    if gone == "a file":
        folder.write_bytes(b"")
    app = _app(folder, "config.broker_files:Transport", tmp_path)

    with pytest.raises(BROKER_ERRORS, match=str(folder)):
        app.send_task("runner.tasks.run_snippet", args=("run-gone", "print(1)"), queue="cpu")
