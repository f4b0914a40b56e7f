"""Draining a child's pipes: a run may end on its whole result frame, before the child exits."""

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from runner.drain import Collected, drain
from runner.framing import encode_frame, holds_whole_frame
from runner.pool import Standby

CAP = 1 << 20


@dataclass
class Child:
    """A stand-in child: the test holds the write ends; the child's process never exits."""

    standby: Standby
    pidfd: int
    result_w: int
    out_w: int
    status_w: int

    def run(self, *, wall_s: float, until_result: bool) -> Collected:
        return drain(
            self.standby,
            self.pidfd,
            wall_s=wall_s,
            output_cap=CAP,
            result_cap=CAP,
            until_result=until_result,
        )


@pytest.fixture
def child() -> Iterator[Child]:
    # A live process for the pidfd: drain kills it when a run passes its deadline.
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    pipes = [os.pipe() for _ in range(4)]
    (result_r, result_w), (out_r, out_w), (err_r, err_w), (status_r, status_w) = pipes
    standby = Standby(
        outer_pid=sleeper.pid,
        job_w=-1,
        result_r=result_r,
        out_r=out_r,
        err_r=err_r,
        status_r=status_r,
        device="cpu",
        cgroup=None,
    )
    pidfd = os.pidfd_open(sleeper.pid)
    yield Child(standby, pidfd, result_w, out_w, status_w)
    standby.close()
    for fd in (pidfd, result_w, out_w, err_w, status_w):
        os.close(fd)
    sleeper.kill()
    sleeper.wait()


def test_a_run_ends_on_its_whole_frame_with_the_output_written_before_it(child: Child) -> None:
    os.write(child.out_w, b"printed before the result\n")
    os.write(child.result_w, encode_frame(b"payload"))

    got = child.run(wall_s=5.0, until_result=True)

    assert not got.timed_out
    assert bytes(got.result) == encode_frame(b"payload")
    assert bytes(got.stdout) == b"printed before the result\n"
    assert got.exit_record is None  # not waited for


def test_a_run_that_needs_the_exit_record_waits_for_it(child: Child) -> None:
    os.write(child.result_w, encode_frame(b"payload"))

    got = child.run(wall_s=0.3, until_result=False)

    assert got.timed_out  # the child never reported its exit


def test_a_frame_still_arriving_is_waited_for(child: Child) -> None:
    os.write(child.result_w, encode_frame(b"payload")[:-1])

    got = child.run(wall_s=0.3, until_result=True)

    assert got.timed_out


@pytest.mark.parametrize(
    ("data", "whole"),
    [
        (b"", False),
        (encode_frame(b"abc")[:-1], False),
        (encode_frame(b"abc"), True),
        (encode_frame(b"abc") + b"more", True),
        (b"XXXX" + encode_frame(b"abc")[4:], False),
    ],
    ids=["empty", "short body", "whole", "followed by more", "bad magic"],
)
def test_a_whole_frame_is_a_valid_header_and_all_it_announces(data: bytes, whole: bool) -> None:
    assert holds_whole_frame(data) is whole
