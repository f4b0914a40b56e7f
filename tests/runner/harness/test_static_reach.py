"""No object from a module a graded answer may not import is reachable by a path the checks
let through (the static look and, in the supervisor, what each name really reaches): torch's
modules import names from ctypes, importlib, inspect, logging (`torch.xpu.c_void_p` is ctypes'
raw-memory pointer type), and an answer reaching one by its path would reach past every
other check. This walks what an answer can import, as deep as the scanner's rules let an
attribute chain go, on the installed torch."""

import importlib
import pkgutil
import types
import warnings
from collections import deque
from collections.abc import Iterator

import pytest
import torch

from runner.harness.reach import reached_forbidden, reached_refusals
from runner.harness.static import (
    ALLOWED_IMPORTS,
    DANGEROUS_MODULES,
    REFUSED_ATTRIBUTES,
    REFUSED_PATHS,
    scan,
)

# Modules outside the allow-list whose objects an answer may hold: C halves of allowed modules,
# plain types and typing helpers, a lock, a warning; none reads memory, files or frames.
HARMLESS = frozenset(
    """
    _operator _heapq _bisect _functools _abc _thread _warnings builtins types typing_extensions
    contextlib reprlib enum
""".split()
)
DEPTH = 3


def _within(name: str, path: str) -> bool:
    return name == path or name.startswith(path + ".")


def _open_path(name: str) -> bool:
    """Whether the scanner lets the dotted path through on its own."""
    parts = name.split(".")
    if parts[0] not in ALLOWED_IMPORTS or any(_within(name, path) for path in REFUSED_PATHS):
        return False
    return not any(
        part.startswith("_") or part in DANGEROUS_MODULES or part in REFUSED_ATTRIBUTES
        for part in parts[1:]
    )


def _importable_torch_modules(package: types.ModuleType = torch) -> None:
    """Import every torch module an answer could import (only those: importing the others
    would run their side effects in this process for nothing)."""
    path = getattr(package, "__path__", None)  # a module may replace itself on import
    for found in pkgutil.iter_modules(path or [], package.__name__ + "."):
        if not _open_path(found.name) or "test" in found.name:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                module = importlib.import_module(found.name)
        except Exception:  # noqa: BLE001, S112 - a module that does not import is not reachable
            continue
        if found.ispkg:
            _importable_torch_modules(module)


def _roots() -> Iterator[tuple[str, object]]:
    for name in sorted(ALLOWED_IMPORTS - {"__future__"}):
        yield name, importlib.import_module(name)
    for name, module in sorted(__import__("sys").modules.items()):
        if name.startswith("torch.") and _open_path(name):
            yield name, module


def _foreign(value: object) -> str | None:
    """The module of a callable or module from outside the allow-list, unless harmless."""
    module = value.__name__ if isinstance(value, types.ModuleType) else None
    if module is None:
        owner = getattr(value, "__module__", None)
        module = owner if isinstance(owner, str) and callable(value) else None
    if module is None:
        return None
    top = module.split(".")[0]
    if top in HARMLESS or (top in ALLOWED_IMPORTS and top not in DANGEROUS_MODULES):
        return None
    return module


def reachable_foreign() -> dict[str, str]:
    """Every open path (up to DEPTH attributes below an importable module) to a foreign
    object, with the object's module."""
    _importable_torch_modules()
    found: dict[str, str] = {}
    walked: set[int] = set()
    queue = deque((name, value, 0) for name, value in _roots())
    while queue:
        path, value, depth = queue.popleft()
        module = _foreign(value)
        if module is not None:
            found[path] = module
            continue
        if id(value) in walked or depth >= DEPTH:
            continue
        walked.add(id(value))
        try:
            members = list(vars(value).items())
        except TypeError:
            continue
        for name, member in members:
            child = f"{path}.{name}"
            if isinstance(name, str) and _open_path(child):
                queue.append((child, member, depth + 1))
    return found


def test_no_foreign_object_is_reachable_by_a_path_the_checks_let_through() -> None:
    let_through = {}
    for path, module in reachable_foreign().items():
        root = path.split(".")[0]
        usage = scan(f"import {root}\nx = {path}\n")
        if usage is not None and not usage.refusals and not reached_refusals(usage):
            let_through[path] = module
    assert let_through == {}


def _refused(source: str) -> bool:
    usage = scan(source)
    return usage is not None and bool(usage.refusals or reached_refusals(usage))


def test_the_walk_finds_what_it_looks_for() -> None:
    # torch.xpu imports ctypes' names: the walk must see them, and the checks refuse them.
    import torch.xpu  # noqa: F401

    assert _foreign(torch.xpu.c_void_p) == "ctypes"  # type: ignore[attr-defined]  # imported there, not exported
    assert "torch.xpu.c_void_p" in reachable_foreign()
    assert _refused("import torch\nx = torch.xpu.c_void_p.from_address(0)\n")
    assert _refused("from torch.xpu import c_void_p as v\n")
    assert _refused("from torch.cuda.amp.common import find_spec\n")
    assert _refused("import enum\nf = enum.bltns.open\n")


def test_a_module_imported_by_name_and_handed_around_is_refused() -> None:
    # `from torch import nn` could name a class or a module: the supervisor looks.
    for source in (
        "from torch import nn\ndef f(m):\n    m.Linear = None\nf(nn)\n",
        "import torch.nn.functional as F\nmodules = [F.torch]\n",
    ):
        usage = scan(source)
        assert usage is not None
        assert any("used as a value" in text for text in reached_refusals(usage)), source
    assert not _refused("from torch import nn, Tensor\nkinds = (nn.Linear, Tensor)\n")


def test_a_metaclass_is_refused_under_any_name() -> None:
    # Called with a name, bases and a namespace, a metaclass builds a class with any methods.
    assert _refused("import abc\nG = abc.ABCMeta\n")
    assert _refused("import torch\nG = torch.autograd.function.FunctionMeta\n")
    assert not _refused("import abc, torch\nbases = (abc.ABC, torch.autograd.Function)\n")


def test_torch_modules_outside_the_allowed_list_are_refused_under_any_name() -> None:
    assert _refused("import torch\nx = torch.nn.modules.module.torch.compiler\n")
    assert _refused("import torch\nx = torch.nn.functional.torch.onnx\n")
    assert _refused("import torch.sparse\n")  # tensors built without checking their indices
    assert _refused("import torch\nn = torch.nested\n")
    usage = scan(
        "import torch\nparts = (torch.autograd.gradcheck, torch.autograd.functional.jacobian,\n"
        "    torch.optim.lr_scheduler.StepLR, torch.distributions.Normal, torch.func.grad,\n"
        "    torch.testing.assert_close, torch.nn.utils.clip_grad_norm_, torch.vmap)\n"
    )
    assert usage is not None
    assert (usage.refusals, reached_refusals(usage)) == (set(), [])


def test_torchs_c_machinery_and_storage_classes_are_refused() -> None:
    # torch re-exports its C extension's names at the top level with `__module__ = "torch"`.
    assert _refused("import torch\nwriter = torch.PyTorchFileWriter\n")
    assert _refused("import torch\noff = torch.DisableTorchFunction\n")
    assert _refused("from torch import import_ir_module_from_buffer as load\n")
    assert _refused("import torch\nkind = torch.FloatStorage\n")
    assert not _refused(
        "import torch\nparts = (torch.Size, torch.Generator, torch.device, torch.finfo,\n"
        "    torch.float32, torch.get_default_dtype, torch.is_grad_enabled, torch.tanh)\n"
    )


def test_the_modules_answers_use_are_not_refused() -> None:
    source = (
        "import functools, heapq, bisect, operator, collections, math, itertools, typing\n"
        "import torch\nimport torch.nn.functional as F\n"
        "x = (functools.reduce, heapq.heappush, bisect.bisect_left, operator.add, typing.cast,\n"
        "     collections.OrderedDict, math.sqrt, itertools.chain, torch.tanh, F.linear,\n"
        "     torch.nn.Linear, torch.optim.SGD, torch.autograd.grad, torch.float32)\n"
    )
    assert not _refused(source)


def test_a_forbidden_operation_reached_by_its_module_path_says_how_it_counts() -> None:
    """SiLU reached through its defining module computes the sigmoid inside, as its
    public name does; the class itself under another path is the class."""
    source = "import torch\ny = torch.nn.modules.activation.SiLU()\n"
    usage = scan(source)
    assert usage is not None
    assert reached_forbidden(usage, ["torch.sigmoid"]) == [
        "torch.nn.modules.activation.SiLU (it computes torch.sigmoid inside)"
    ]
    assert reached_forbidden(usage, ["torch.nn.SiLU"]) == [
        "torch.nn.modules.activation.SiLU (it is torch.nn.SiLU under another name)"
    ]


def test_modules_handed_back_by_calls_and_exceptions_are_refused() -> None:
    """Values the scan cannot name: a function's result and an exception's `.obj`."""
    assert _refused("import torch\nm = torch.get_device_module('cpu')\n")
    assert _refused("from torch import get_device_module\n")
    source = "import torch\ntry:\n    torch.amp.none\nexcept AttributeError as e:\n    m = e.obj\n"
    assert _refused(source)
    assert _refused("import torch\ndef f(m):\n    return m.torch.amp.autocast_mode.np\n")


@pytest.mark.parametrize(
    "source",
    [
        "import torch\nwith torch.autograd.graph.saved_tensors_hooks(abs, abs):\n    pass\n",
        "from torch.autograd.graph import save_on_cpu\n",
        "from torch.autograd import graph\nh = graph.disable_saved_tensors_hooks\n",
    ],
)
def test_saved_tensor_hooks_are_refused(source: str) -> None:
    """A hook that packs autograd's saved tensors into Python lists hides the graph's memory
    from the meter (an outside attack kept every chunk's graph that way)."""
    assert _refused(source)


def test_torch_private_attributes_are_refused_on_self_and_the_answers_own_are_not() -> None:
    storage = "import torch\ndef typed(self):\n    return self._typed_storage()\n"
    assert _refused(storage)
    assert _refused("import torch\ndef shrink(self):\n    self._resize_(1)\n")
    own = (
        "import torch\nclass Scaler(torch.nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self._factor = 2.0\n"
        "    def forward(self, x):\n        return x * self._factor\n"
    )
    assert not _refused(own)


def test_star_imports_are_refused_but_for_the_numeric_modules() -> None:
    """`from typing import *` bound get_type_hints unseen, `from torch import *` torch.load."""
    assert _refused("from typing import *\n")
    assert _refused("from torch import *\n")
    assert _refused("from functools import *\n")
    assert not _refused("from math import *\nx = sqrt(2)\n")


def test_a_named_tuples_documented_methods_are_not_private() -> None:
    source = (
        "from typing import NamedTuple\nclass P(NamedTuple):\n    a: int\n"
        "def f(p):\n    return p._replace(a=1)._asdict(), p._fields\n"
    )
    assert not _refused(source)
