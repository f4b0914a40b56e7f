"""CPU time of one sign-in's password check with each hasher, side by side in one run.

Run as `python scripts/password_cost.py [ROUNDS]` (SECRET_KEY set); prints JSON: the median
CPU seconds (all threads of this process) of one check per hasher, over ROUNDS checks taken
in turn, so every hasher sees the same machine load.
"""

import json
import os
import statistics
import sys
import time
from pathlib import Path


def main(rounds: int) -> dict[str, float]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.contrib.auth.hashers import (
        Argon2PasswordHasher,
        PBKDF2PasswordHasher,
        get_hasher,
    )

    hashers = {
        "project (first in PASSWORD_HASHERS)": get_hasher("default"),
        "argon2, Django's default parameters": Argon2PasswordHasher(),
        "pbkdf2_sha256, Django's default": PBKDF2PasswordHasher(),
    }
    encoded = {name: h.encode("exam-pass", h.salt()) for name, h in hashers.items()}
    cpu_s: dict[str, list[float]] = {name: [] for name in hashers}
    for _ in range(rounds):
        for name, hasher in hashers.items():
            began = time.process_time()
            assert hasher.verify("exam-pass", encoded[name])  # noqa: S101
            cpu_s[name].append(time.process_time() - began)
    return {name: round(statistics.median(times), 4) for name, times in cpu_s.items()}


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]) if len(sys.argv) > 1 else 20), indent=1))
