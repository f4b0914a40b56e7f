"""Attempts to forge a verdict, each graded in the real sandbox (issue 7's trust rule).

Every attempt must end refused (`forbidden`) or score no more than the honest
wrong answer it builds on. After each one the worker must still grade a wrong
answer below 1, a correct one at 1, and a question whose reference is not
cached yet.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest

from runner.api import GradingJob, GradingResult, Limits, Status
from runner.supervisor import Supervisor
from runner.worker import grade

LIMITS = Limits(time_s=5.0, memory_mb=1024, output_kb=64)


@dataclass(frozen=True)
class Question:
    entry_point: str
    reference: str
    wrong: str  # an honest wrong answer: the tampering builds on it
    cases: list[dict[str, Any]]
    forbidden: list[str] = field(default_factory=list)
    efficiency: dict[str, float] = field(default_factory=dict)


GRAD_ARGS = [{"random": [4, 3], "requires_grad": True}, {"random": [3], "requires_grad": True}]
PURE = Question(
    "f",
    "import torch\ndef f(x, w):\n    return (x * w).sum(dim=1)\n",
    "import torch\ndef f(x, w):\n    x.mul_(1.0)\n    return (x.detach() * w).sum(dim=1)\n",
    [{"name": "purity", "seed": 3, "args": GRAD_ARGS, "checks": ["gradients", "purity"]}],
)
NO_GRAPH = Question(
    "predict",
    "import torch\ndef predict(x, w):\n    with torch.no_grad():\n        return x @ w\n",
    "import torch\ndef predict(x, w):\n    return (x @ w).detach()\n",
    [
        {
            "name": "no graph",
            "seed": 4,
            "args": [{"random": [4, 3]}, {"random": [3, 2], "requires_grad": True}],
            "checks": [{"kind": "requires_grad", "expected": False}, "no_graph", "purity"],
        }
    ],
)
KEEP_GRAPH = Question(
    "saliency",
    "import torch\ndef saliency(x, w):\n    loss = (x @ w).pow(2).mean()\n"
    "    (g,) = torch.autograd.grad(loss, x, retain_graph=True)\n    return loss, g\n",
    "import torch\ndef saliency(x, w):\n    loss = (x @ w).pow(2).mean()\n"
    "    (g,) = torch.autograd.grad(loss, x)\n    return loss, g\n",
    [
        {
            "name": "kept",
            "seed": 5,
            "args": [
                {"random": [3, 4], "requires_grad": True},
                {"random": [4, 2], "requires_grad": True},
            ],
            "checks": [{"kind": "retain_graph", "expected": True}],
        }
    ],
)
TRAIN = Question(
    "train_step",
    "import torch.nn.functional as F\ndef train_step(model, optimizer, x, y):\n"
    "    optimizer.zero_grad()\n    loss = F.mse_loss(model(x), y)\n    loss.backward()\n"
    "    optimizer.step()\n    return loss.item()\n",
    "def train_step(model, optimizer, x, y):\n    return 0.0\n",
    [
        {
            "name": "tiny",
            "kind": "training",
            "seed": 6,
            "model": {"linear": [3, 1]},
            "data": {"x": {"random": [16, 3]}, "y": {"random": [16, 1]}},
            "optimizer": {"sgd": {"lr": 0.1}},
            "steps": 5,
            "stages": [
                {"check": "runs"},
                {"check": "loss_decreases", "tolerance": 0.01},
                {"check": "matches_reference"},
            ],
        }
    ],
)
SIGMOID = """
import torch
class Sig(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = 1 / (1 + torch.exp(-x))
        ctx.save_for_backward(out)
        return out
    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return BACKWARD
"""
CUSTOM = Question(
    "Sig",
    SIGMOID.replace("BACKWARD", "grad * out * (1 - out)"),
    SIGMOID.replace("BACKWARD", "out * (1 - out)"),
    [
        {
            "name": "gradcheck",
            "seed": 7,
            "args": [{"random": [3, 2], "dtype": "float64", "requires_grad": True}],
            "checks": ["gradcheck"],
        }
    ],
    forbidden=["torch.sigmoid", "torch.special.expit", "torch.nn.functional.silu"],
)
SUM_OF_SQUARES = Question(
    "sumsq",
    "import torch\ndef sumsq(x):\n    return (x * x).sum(dim=1)\n",
    "import torch\ndef sumsq(x):\n"
    "    return torch.tensor([sum(v * v for v in row) for row in x.tolist()])\n",
    [
        {
            "name": "timed",
            "seed": 8,
            "args": [{"random": [1000, 400]}],
            "checks": ["efficiency"],
            "compare": {"rtol": 1e-4, "atol": 1e-3},
        }
    ],
    efficiency={"max_time_ratio": 5},
)
MEMORY = Question(
    "energy",
    "import torch\ndef energy(x):\n    return (x * x).sum()\n",
    "import torch\ndef energy(x):\n    big = x.repeat(16, 1)\n    return (big * big).sum() / 16\n",
    [
        {
            "name": "timed",
            "seed": 10,
            "args": [{"random": [512, 256]}],
            "checks": ["efficiency"],
            "compare": {"rtol": 1e-4, "atol": 1e-2},
        }
    ],
    efficiency={"max_memory_ratio": 3},
)
SOFTMAX = Question(
    "softmax_rows",
    "import torch\ndef softmax_rows(x):\n    e = torch.exp(x - x.max(dim=1, keepdim=True).values)\n"
    "    return e / e.sum(dim=1, keepdim=True)\n",
    "import torch\ndef softmax_rows(x):\n    e = torch.exp(x)\n"
    "    return e / e.sum(dim=0, keepdim=True)\n",
    [{"name": "rows", "seed": 9, "args": [{"random": [3, 5]}]}],
    forbidden=[
        "torch.softmax",
        "torch.nn.functional.softmax",
        "torch.Tensor.softmax",
        "torch.special.softmax",
        "torch.log_softmax",
        "torch.nn.functional.log_softmax",
        "torch.Tensor.log_softmax",
    ],
)


@dataclass(frozen=True)
class Attempt:
    name: str
    question: Question
    source: str


def _sm(body: str) -> str:
    return f"import torch\nimport torch.nn.functional as F\ndef softmax_rows(x):\n    {body}\n"


ATTEMPTS = [
    # Efficiency: the kernel times a child that makes only the timed calls, on fresh inputs.
    Attempt(
        "perf_counter replaced through sys.modules",
        SUM_OF_SQUARES,
        "import sys\nsys.modules['time'].perf_counter = lambda: 0.0\n" + SUM_OF_SQUARES.wrong,
    ),
    Attempt(
        "a dict cache of results by input",
        SUM_OF_SQUARES,
        "import torch\n_cache = {}\ndef sumsq(x):\n    key = tuple(x.flatten().tolist())\n"
        "    if key not in _cache:\n"
        "        _cache[key] = torch.tensor([sum(v * v for v in r) for r in x.tolist()])\n"
        "    return _cache[key]\n",
    ),
    Attempt(
        "fast and right on the first call only",
        SUM_OF_SQUARES,
        "import torch\n_seen = []\ndef sumsq(x):\n    _seen.append(1)\n"
        "    if len(_seen) == 1:\n        return (x * x).sum(dim=1)\n"
        "    return torch.zeros(x.shape[0])\n",
    ),
    Attempt(
        "peak memory reader replaced",
        SUM_OF_SQUARES,
        "import importlib\nimportlib.import_module('runner.harness.pristine').cuda_peak = int\n"
        + SUM_OF_SQUARES.wrong,
    ),
    # Purity: the inputs, their flags, their .grad and the RNG are read after the compared call.
    Attempt(
        "run_call_case wrapped through sys.modules",
        PURE,
        "import sys\nm = sys.modules['runner.harness.child_call']\n" + PURE.wrong,
    ),
    Attempt(
        "in place, restored by a finalizer",
        PURE,
        "import torch\nclass Undo:\n    def __init__(self, t):\n"
        "        self.t, self.v = t, t.clone()\n"
        "    def __del__(self):\n        self.t.data.copy_(self.v)\n"
        "def f(x, w):\n    Undo(x)\n    x.data.mul_(3)\n    return (x * w).sum(dim=1)\n",
    ),
    Attempt(
        "in place, restored by a thread",
        PURE,
        "import threading\n" + PURE.wrong,
    ),
    Attempt(
        "in place, restored by weakref.finalize",
        PURE,
        "import weakref\n" + PURE.wrong,
    ),
    Attempt(
        "x.data rebound",
        PURE,
        "import torch\ndef f(x, w):\n    x.data = x.data * 2\n    return (x * w).sum(dim=1) / 2\n",
    ),
    Attempt(
        "requires_grad switched off on the caller's tensor",
        PURE,
        "import torch\ndef f(x, w):\n    out = (x * w).sum(dim=1)\n    w.requires_grad_(False)\n"
        "    return out\n",
    ),
    Attempt(
        "backward inside, then .grad reset",
        PURE,
        "import torch\ndef f(x, w):\n    out = (x * w).sum(dim=1)\n"
        "    out.sum().backward(retain_graph=True)\n    x.grad = None\n    w.grad = None\n"
        "    return out\n",
    ),
    Attempt(
        "global RNG reseeded",
        PURE,
        "import torch\ndef f(x, w):\n    torch.manual_seed(1234)\n    return (x * w).sum(dim=1)\n",
    ),
    # Flags: read through torch's C descriptors, never through the answer's properties.
    Attempt(
        "tensor subclass that says it needs no grad",
        NO_GRAPH,
        "import torch\nclass Quiet(torch.Tensor):\n    @property\n"
        "    def requires_grad(self):\n        return False\n"
        "def predict(x, w):\n    return (x @ w).as_subclass(Quiet)\n",
    ),
    Attempt(
        "torch.Tensor.requires_grad patched",
        NO_GRAPH,
        "import torch\ntorch.Tensor.requires_grad = property(lambda self: False)\n"
        "def predict(x, w):\n    return x @ w\n",
    ),
    Attempt(
        "the output's class patched through type()",
        NO_GRAPH,
        "import torch\ndef predict(x, w):\n    out = x @ w\n"
        "    type(out).requires_grad = property(lambda self: False)\n    return out\n",
    ),
    Attempt("graph built then detached", NO_GRAPH, NO_GRAPH.wrong),
    # retain_graph: judged on the call whose output is compared; frames are out of reach.
    Attempt(
        "keeps the graph only when a harness frame is on the stack",
        KEEP_GRAPH,
        "import sys, torch\ndef saliency(x, w):\n    loss = (x @ w).pow(2).mean()\n"
        "    keep = 'retain' in str([sys._getframe(i).f_code.co_name for i in range(1, 4)])\n"
        "    (g,) = torch.autograd.grad(loss, x, retain_graph=keep)\n    return loss, g\n",
    ),
    Attempt(
        "inspect.stack to find the check",
        KEEP_GRAPH,
        "import inspect\n" + KEEP_GRAPH.wrong,
    ),
    Attempt(
        "keeps the graph from the second call on",
        KEEP_GRAPH,
        "import torch\n_calls = []\ndef saliency(x, w):\n    _calls.append(1)\n"
        "    loss = (x @ w).pow(2).mean()\n"
        "    (g,) = torch.autograd.grad(loss, x, retain_graph=len(_calls) > 1)\n"
        "    return loss, g\n",
    ),
    Attempt(
        "a generator's frame walked to its caller",
        KEEP_GRAPH,
        "def _peek():\n    yield\n"
        + KEEP_GRAPH.wrong.replace(
            "    loss =", "    g0 = _peek()\n    print(g0.gi_frame)\n    loss ="
        ),
    ),
    Attempt(
        "a signal handler's frame",
        KEEP_GRAPH,
        "import signal\n" + KEEP_GRAPH.wrong,
    ),
    # Training: loss_decreases is recomputed from the parameters in the supervisor.
    Attempt("a train_step that does nothing", TRAIN, TRAIN.wrong),
    Attempt(
        "a train_step that returns a falling sequence",
        TRAIN,
        "_n = [1.0]\ndef train_step(model, optimizer, x, y):\n    _n[0] *= 0.5\n    return _n[0]\n",
    ),
    Attempt(
        "the harness's loss measure replaced",
        TRAIN,
        "import sys\nsys.modules['runner.harness.child_train'].measure_loss = lambda *a: 0.0\n"
        + TRAIN.wrong,
    ),
    Attempt(
        "the returned loss keeps its graph",
        TRAIN,
        "import torch.nn.functional as F\ndef train_step(model, optimizer, x, y):\n"
        "    loss = F.mse_loss(model(x), y)\n    return loss\n",
    ),
    # gradcheck: the verdict rests on float64 gradients for a random upstream gradient.
    Attempt(
        "torch.autograd.gradcheck replaced",
        CUSTOM,
        "import torch\ntorch.autograd.gradcheck = lambda *a, **k: True\n" + CUSTOM.wrong,
    ),
    Attempt(
        "the harness's gradcheck replaced",
        CUSTOM,
        "import sys\nsys.modules['runner.harness.pristine'].gradcheck = lambda *a, **k: True\n"
        + CUSTOM.wrong,
    ),
    Attempt(
        "no autograd.Function at all",
        CUSTOM,
        "import torch\ndef Sig(x):\n    return 1 / (1 + torch.exp(-x))\n",
    ),
    # Nothing an answer sends makes its result `internal` (ungraded, regradable).
    Attempt(
        "an exception whose str() raises",
        PURE,
        "class Odd(Exception):\n    def __str__(self):\n        raise ValueError('no')\n"
        "def f(x, w):\n    raise Odd()\n",
    ),
    Attempt(
        "gradient recording left off",
        PURE,
        "import torch\ndef f(x, w):\n    torch.set_grad_enabled(False)\n"
        "    return (x * w).sum(dim=1)\n",
    ),
    Attempt(
        "no_grad left on in a suspended generator",
        PURE,
        "import torch\n_held = []\ndef _off():\n    with torch.no_grad():\n        yield\n"
        "def f(x, w):\n    g = _off()\n    next(g)\n    _held.append(g)\n"
        "    return (x * w).sum(dim=1)\n",
    ),
    Attempt(
        "a value nested too deeply to send",
        PURE,
        "def f(x, w):\n    v = []\n    for _ in range(100):\n        v = [v]\n    return v\n",
    ),
    # Forbidden functions, however they are named.
    Attempt("torch._softmax", SOFTMAX, _sm("return torch._softmax(x, 1, False)")),
    Attempt("torch.ops.aten", SOFTMAX, _sm("return torch.ops.aten._softmax.default(x, 1, False)")),
    Attempt(
        "under DisableTorchFunction",
        SOFTMAX,
        _sm("with torch._C.DisableTorchFunction():\n        return F.softmax(x, 1)"),
    ),
    Attempt("torch.__dict__ lookup", SOFTMAX, _sm("return torch.__dict__['soft' + 'max'](x, 1)")),
    Attempt(
        "getattr with a built name", SOFTMAX, _sm("return getattr(torch, 'soft' + 'max')(x, 1)")
    ),
    Attempt("an alias variable", SOFTMAX, _sm("sm = torch.softmax\n    return sm(x, 1)")),
    Attempt("log_softmax then exp", SOFTMAX, _sm("return x.log_softmax(1).exp()")),
    Attempt("the nn.Softmax module", SOFTMAX, _sm("return torch.nn.Softmax(dim=1)(x)")),
    # Found by the outside red team: names that reach refused modules under other names,
    # code hidden in strings, aliases behind re-exports, crashes of the grader.
    Attempt(
        "builtins reached as enum.bltns",
        SOFTMAX,
        _sm("return x").replace(
            "import torch\n", "import torch\nfrom enum import bltns\nbltns.exec('1')\n", 1
        ),
    ),
    Attempt("numpy reached as F.np", SOFTMAX, _sm("return F.np.exp(x)")),
    Attempt(
        "torch.serialization.load unpickling code",
        SOFTMAX,
        _sm("torch.serialization.load(None)\n    return x"),
    ),
    Attempt(
        "multiprocessing reached as torch.cuda.tunable.mp",
        SOFTMAX,
        _sm(
            "pool = torch.cuda.tunable.mp.pool.ThreadPool(1)\n"
            "    return pool.apply(torch.softmax, (x, 1))"
        ),
    ),
    Attempt(
        "a string annotation evaluated by functools.singledispatch",
        SOFTMAX,
        "import functools\nimport torch\n@functools.singledispatch\ndef d(a):\n    return a\n"
        "def p(a: \"[__import__('sys'), int][1]\"):\n    return a\nd.register(p)\n"
        + SOFTMAX.wrong.split("\n", 1)[1],
    ),
    Attempt(
        "a format template reading a traceback's frames",
        SOFTMAX,
        _sm(
            "try:\n        1 / 0\n    except ZeroDivisionError as e:\n"
            "        print('{0.__traceback__.tb_frame.f_back.f_locals}'.format(e))\n"
            "    return x"
        ),
    ),
    Attempt(
        "a forbidden sigmoid behind a re-export, in backward",
        CUSTOM,
        CUSTOM.reference.replace(
            "return grad * out * (1 - out)",
            "s = torch.nn.modules.activation.torch.special.expit(out)\n"
            "        return grad * out * (1 - out) + 0 * s",
        ),
    ),
    Attempt(
        "sigmoid through silu",
        CUSTOM,
        CUSTOM.reference.replace(
            "out = 1 / (1 + torch.exp(-x))", "out = torch.nn.functional.silu(x) / x"
        ),
    ),
    Attempt(
        "a graph built by vmap, then detached",
        NO_GRAPH,
        "import torch\ndef predict(x, w):\n"
        "    return torch.func.vmap(lambda r: r @ w)(x).detach()\n",
    ),
    Attempt(
        "a graph built by an autograd.Function, then detached",
        NO_GRAPH,
        "import torch\nclass Mm(torch.autograd.Function):\n    @staticmethod\n"
        "    def forward(ctx, x, w):\n        return x @ w\n    @staticmethod\n"
        "    def backward(ctx, g):\n        return None, None\n"
        "def predict(x, w):\n    return Mm.apply(x, w).detach()\n",
    ),
    Attempt(
        "a zero-size tensor whose shape overflows when rebuilt",
        PURE,
        "import torch\ndef f(x, w):\n    return torch.empty(0, 1, 1).expand(0, 2 ** 40, 2 ** 40)\n",
    ),
    Attempt("an integer too large to compare", PURE, "def f(x, w):\n    return 10 ** 400\n"),
    Attempt(
        "NUL and a lone surrogate in an error message",
        PURE,
        "def f(x, w):\n    raise ValueError('bad\\x00value \\ud800')\n",
    ),
    Attempt(
        "memory taken outside torch's operators (frombuffer)",
        MEMORY,
        "import torch\ndef energy(x):\n"
        "    waste = torch.frombuffer(bytearray(256 << 20), dtype=torch.uint8)\n"
        "    waste.fill_(1)\n    return (x * x).sum()\n",
    ),
    Attempt(
        "functools.partial",
        SOFTMAX,
        "import functools\n" + _sm("return functools.partial(F.softmax, dim=1)(x)"),
    ),
]


def _job(question: Question, source: str, reference: str | None = None) -> GradingJob:
    return GradingJob(
        job_id=str(uuid.uuid4()),
        source=source,
        entry_point=question.entry_point,
        reference_source=reference or question.reference,
        cases=question.cases,
        limits=LIMITS,
        forbidden=question.forbidden,
        efficiency=question.efficiency,
    )


def _honest_score(question: Question) -> float:
    result = grade(_job(question, question.wrong))
    assert result.score < 1.0, result
    return result.score


def _texts(result: GradingResult) -> str:
    return " | ".join([result.status, result.message, *(c.message for c in result.cases)])


@pytest.mark.parametrize("attempt", ATTEMPTS, ids=[a.name for a in ATTEMPTS])
def test_a_tampering_attempt_gains_nothing(supervisor: Supervisor, attempt: Attempt) -> None:
    question = attempt.question
    result = grade(_job(question, attempt.source))
    assert result.status != Status.INTERNAL, _texts(result)
    if result.status != Status.FORBIDDEN:
        assert result.score <= _honest_score(question), _texts(result)
    _assert_the_worker_still_grades(question)


def _assert_the_worker_still_grades(question: Question) -> None:
    assert grade(_job(question, question.wrong)).score < 1.0
    correct = grade(_job(question, question.reference))
    assert (correct.status, correct.score) == (Status.OK, 1.0), _texts(correct)
    uncached = question.reference + f"\n# fresh reference {uuid.uuid4()}\n"
    fresh = grade(_job(question, question.reference, reference=uncached))
    assert (fresh.status, fresh.score) == (Status.OK, 1.0), _texts(fresh)


def test_there_are_at_least_thirty_attempts() -> None:
    assert len(ATTEMPTS) >= 30


@pytest.mark.parametrize(
    "question", [PURE, NO_GRAPH, KEEP_GRAPH, TRAIN, CUSTOM, SUM_OF_SQUARES, MEMORY, SOFTMAX]
)
def test_each_questions_reference_scores_one_and_its_wrong_answer_less(
    supervisor: Supervisor, question: Question
) -> None:
    _assert_the_worker_still_grades(question)
