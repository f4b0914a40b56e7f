"""The password hasher of sign-ins: Argon2id at OWASP's recommended minimum cost.

Django's own Argon2 parameters (100 MiB, 8 lanes) cost as much CPU per check as its PBKDF2,
and a room of 300 students signing in within a minute spends that on two cores while their
autosaves wait. 19 MiB, 2 passes and 1 lane is the first of OWASP's equivalent Argon2id
settings (Password Storage Cheat Sheet): memory-hard, about a fifth of the CPU
(docs/benchmarks.md). A stored hash with other parameters verifies and is re-hashed with
these at its user's next sign-in.
"""

from django.contrib.auth.hashers import Argon2PasswordHasher


class ExamArgon2PasswordHasher(Argon2PasswordHasher):
    time_cost = 2
    memory_cost = 19 * 1024  # KiB
    parallelism = 1
