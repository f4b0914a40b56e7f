"""Dropping root for good: no groups, an unprivileged per-slot uid, no new privileges."""

from __future__ import annotations

import os

from runner.sandbox import libc

BASE_UID = 61000


def slot_uid(slot: int) -> int:
    """The uid a slot's children run as; no account needs to exist for it."""
    return BASE_UID + slot


def drop_privileges(uid: int) -> None:
    """Become `uid` with every capability gone; setuid binaries cannot give any back."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    libc.prctl(libc.PR_SET_NO_NEW_PRIVS, 1)
    if os.getuid() == 0 or os.geteuid() == 0:
        raise OSError("the sandboxed child still runs as root")
