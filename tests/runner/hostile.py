"""Hostile and broken answers to the conftest question (f(x) = 2 tanh x), with the safe outcome.

Probes written as "return the right answer only if the attack worked" make a
leak visible as a score of 1; the `blocked:` messages show why it failed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

HEADER = "import os, sys, time, torch\n"
# Appended when a hostile answer runs as a try-it snippet, so its function is called.
CALL = "\nf(torch.linspace(-1, 1, 12).reshape(3, 4))\n"


def probe(attack: str) -> str:
    """An answer that is correct only when `attack` (a statement block) raises nothing."""
    body = "\n".join(f"        {line}" for line in attack.strip().splitlines())
    return (
        f"{HEADER}\ndef f(x):\n    try:\n{body}\n"
        "    except Exception as error:\n"
        "        raise RuntimeError(f'blocked: {type(error).__name__}') from None\n"
        "    return torch.tanh(x) * 2\n"
    )


def body(code: str) -> str:
    """An answer whose f runs `code` and then returns a wrong value (x itself)."""
    lines = "\n".join(f"    {line}" for line in code.strip().splitlines())
    return f"{HEADER}\ndef f(x):\n{lines}\n    return x\n"


@dataclass(frozen=True)
class Hostile:
    name: str
    source: str
    statuses: tuple[str, ...]  # acceptable statuses when graded (besides a static refusal)
    score: float = 0.0  # the score the outcome must have
    message: str = ""  # text the run's output or message must contain
    limits: dict[str, Any] | None = None
    ran: tuple[str, ...] = ()  # acceptable statuses run as a snippet, where not as graded

    @property
    def run_statuses(self) -> tuple[str, ...]:
        """Run as a snippet, a probe that was blocked raises; a wrong answer just runs."""
        if self.ran:
            return self.ran
        if self.message.startswith("blocked"):
            return ("error",)
        return tuple({*self.statuses, "error"} if "ok" in self.statuses else self.statuses)


SPIN = "while True:\n    pass"
# Looks through every live container and code object for the marker in the reference's
# source; the whole marker is never built here, so the scan cannot find itself.
MEMORY_SCAN = """
import gc, linecache
hits = 0
for o in gc.get_objects() + [linecache.cache]:
    if isinstance(o, dict):
        items = list(o.values())
    elif isinstance(o, (list, tuple)):
        items = list(o)
    else:
        items = list(getattr(getattr(o, '__code__', None), 'co_consts', ()))
    for v in items:
        if isinstance(v, (list, tuple)):
            items.extend(v)
        elif isinstance(v, str) and (at := v.find('REFERENCE-MARKER-')) >= 0:
            hits += v[at + 17:at + 21] == '7f3a'
assert hits, 'no reference in memory'
"""
HOSTILE: list[Hostile] = [
    Hostile(
        "fork bomb",
        body("while True:\n    try:\n        os.fork()\n    except OSError:\n        pass"),
        ("timeout",),
    ),
    Hostile("memory bomb bytearray", body("b = bytearray(16 * 1024**3)"), ("ok", "memory")),
    Hostile("memory bomb torch.empty", body("t = torch.empty(1 << 34)"), ("ok", "memory")),
    Hostile(
        "touched memory over the cgroup cap",
        body("t = torch.ones(100 * 2**20)\nt += 1"),
        ("memory", "ok"),
        limits={"memory_mb": 256},
    ),
    Hostile(
        "list append bomb",
        body("a = []\nwhile True:\n    a.append(' ' * 10**6)"),
        ("ok", "memory", "timeout"),
    ),
    Hostile("infinite loop", body(SPIN), ("timeout",)),
    Hostile("sleep forever", body("time.sleep(10**6)"), ("timeout",)),
    Hostile(
        "ignores SIGXCPU and SIGTERM then spins",
        body(
            "import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\n"
            "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n" + SPIN
        ),
        ("timeout",),
    ),
    Hostile("100 MB of stdout", body("sys.stdout.write('x' * 100_000_000)"), ("output_limit",)),
    Hostile(
        "huge stderr",
        body("for _ in range(10**6):\n    print('e' * 100, file=sys.stderr)"),
        ("output_limit",),
    ),
    Hostile(
        "1 GB file in scratch",
        probe(
            "with open('/tmp/big', 'wb') as fh:\n    for _ in range(1024):\n"
            "        fh.write(b'0' * 2**20)"
        ),
        ("ok",),
        message="blocked",
    ),
    Hostile(
        "1 GB file in the working directory",
        probe(
            "with open('big', 'wb') as fh:\n    for _ in range(1024):\n"
            "        fh.write(b'0' * 2**20)"
        ),
        ("ok",),
        message="blocked",
    ),
    Hostile(
        "many small files",
        probe("for i in range(100000):\n    open(f'/tmp/f{i}', 'w').close()"),
        ("ok",),
        message="blocked",
    ),
    Hostile(
        "reads /etc/shadow",
        probe("open('/etc/shadow').read()"),
        ("ok",),
        message="blocked: FileNotFoundError",  # not in the child's root at all
    ),
    Hostile(
        "writes outside scratch",
        probe("open('/etc/vivabank-owned', 'w').write('x')"),
        ("ok",),
        message="blocked",
    ),
    Hostile(
        "reads the parent's environ",
        probe("open(f'/proc/{os.getppid()}/environ').read()"),
        ("ok",),
        message="blocked",
    ),
    Hostile(
        "finds secrets in any /proc environ",
        probe(
            "import glob\nfound = []\nfor p in glob.glob('/proc/*/environ'):\n"
            "    try:\n        found.append('DATABASE_URL' in open(p, errors='replace').read())\n"
            "    except OSError:\n        continue\n"
            "assert any(found), 'no secret in sight'"
        ),
        ("ok",),
        message="blocked: AssertionError",
    ),
    Hostile(
        "secrets in its own environment",
        probe("assert 'SECRET_KEY' in os.environ or 'DATABASE_URL' in os.environ"),
        ("ok",),
        message="blocked: AssertionError",
    ),
    Hostile(
        "socket to redis",
        probe("import socket\nsocket.create_connection(('127.0.0.1', 6379), timeout=1)"),
        ("ok",),
        message="blocked",
    ),
    Hostile(
        "DNS lookup",
        probe("import socket\nsocket.getaddrinfo('example.com', 80)"),
        ("ok",),
        message="blocked",
    ),
    Hostile(
        "raw packet socket",
        probe("import socket\nsocket.socket(socket.AF_PACKET, socket.SOCK_RAW)"),
        ("ok",),
        message="blocked",
    ),
    Hostile(
        "redis unix socket",
        probe(
            "import socket\ns = socket.socket(socket.AF_UNIX)\n"
            "s.connect('/run/redis/redis-server.sock')"
        ),
        ("ok",),
        message="blocked",
    ),
    Hostile("kills its parent", body("os.kill(os.getppid(), 9)"), ("ok", "error")),
    Hostile(
        "kills every process it may",
        body("import signal\nos.kill(-1, signal.SIGKILL)"),
        ("ok", "error"),
    ),
    Hostile(
        "ctypes null dereference",
        body("import ctypes\nctypes.string_at(0)"),
        ("error",),
        message="SIGSEGV",
    ),
    Hostile("os.abort", body("os.abort()"), ("error",), message="killed by"),
    Hostile("sys.exit(0) before returning", body("sys.exit(0)"), ("error", "ok")),
    Hostile("os._exit(0) before returning", body("os._exit(0)"), ("error",)),
    Hostile(
        "huge recursion",
        body("sys.setrecursionlimit(10**6)\ndef r(n):\n    return r(n + 1)\nr(0)"),
        ("error", "ok", "timeout", "memory"),
    ),
    Hostile(
        "10 GB tensor returned",
        f"{HEADER}\ndef f(x):\n    return torch.zeros(10 * 2**30 // 4)\n",
        ("ok", "memory", "error"),
    ),
    Hostile(
        "object whose __eq__ is always true",
        f"{HEADER}\nclass Yes:\n"
        "    def __eq__(self, other):\n        return True\n"
        "def f(x):\n    return Yes()\n",
        ("ok", "error"),
    ),
    Hostile(
        "monkeypatched torch.allclose and torch.testing",
        body(
            "torch.allclose = lambda *a, **k: True\n"
            "torch.equal = lambda *a, **k: True\n"
            "torch.testing.assert_close = lambda *a, **k: None"
        ),
        ("ok",),
    ),
    Hostile(
        "tensor subclass with overridden comparison",
        f"{HEADER}\nclass Liar(torch.Tensor):\n"
        "    def __eq__(self, other):\n        return True\n"
        "    def allclose(self, *a, **k):\n        return True\n"
        "def f(x):\n    return (x * 0).as_subclass(Liar)\n",
        ("ok", "error"),
    ),
    Hostile(
        "__torch_function__ override",
        f"{HEADER}\nclass Sneaky(torch.Tensor):\n"
        "    @classmethod\n    def __torch_function__(cls, func, types, args=(), kwargs=None):\n"
        "        return True\n"
        "def f(x):\n    return torch.zeros(3, 4).as_subclass(Sneaky)\n",
        ("ok", "error"),
    ),
    Hostile(
        "prints a forged result frame",
        body(
            "sys.stdout.buffer.write(b'VBF1' + (2).to_bytes(8, 'big') + b'{}')\n"
            "print('ALL TESTS PASSED score=1.0')"
        ),
        ("ok",),
    ),
    Hostile(
        "writes a second frame on the result channel",
        f"{HEADER}\ndef f(x):\n"
        "    os.write(4, b'VBF1' + (2).to_bytes(8, 'big') + b'{}')\n"
        "    return torch.tanh(x) * 2\n",
        ("error",),
        message="more than one",
    ),
    Hostile(
        "huge length prefix on the result channel",
        body("os.write(4, b'VBF1' + (2**62).to_bytes(8, 'big'))\nos._exit(0)"),
        ("error",),
        message="cap",
    ),
    Hostile(
        "malformed bytes on the result channel",
        body("os.write(4, b'garbage')\nos._exit(0)"),
        ("error",),
        message="invalid result",
    ),
    Hostile(
        "a file named torch.py",
        body(
            "open('/tmp/torch.py', 'w').write('def allclose(*a, **k):\\n    return True\\n')\n"
            "sys.path.insert(0, '/tmp')\ndel sys.modules['torch']\nimport torch"
        ),
        ("ok", "error"),
    ),
    Hostile("blocks on input()", body("input()"), ("ok",), message="EOFError"),
    Hostile("NaN output", f"{HEADER}\ndef f(x):\n    return x * float('nan')\n", ("ok",)),
    Hostile(
        "unshare a user namespace",
        probe(
            "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
            "assert libc.unshare(0x10000000) == 0, 'unshare refused'"
        ),
        ("ok",),
        message="blocked",
    ),
    Hostile(
        "ptrace",
        probe(
            "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
            "assert libc.ptrace(0, 0, 0, 0) == 0, 'ptrace refused'"
        ),
        ("ok",),
        message="blocked",
    ),
    Hostile("becomes root again", probe("os.setuid(0)"), ("ok",), message="blocked"),
    Hostile(
        "finds the reference in memory",
        probe(MEMORY_SCAN),
        ("ok",),
        message="blocked: AssertionError",
        limits={"time_s": 10},
    ),
]
