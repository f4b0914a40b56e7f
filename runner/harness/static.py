"""Static look at an answer's source, in the supervisor: forbidden names and refused constructs.

Student code shares its interpreter with the harness, so a graded answer that
could reach the interpreter's internals (frames, `sys.modules`, `gc`, torch's
private dispatch machinery) could rewrite the harness and forge its data.
`find_refusals` is the part no answer can switch off: it refuses, for every
graded answer, imports outside a short allow-list, introspection builtins,
dunder and private attributes, frame and code attributes, torch's escape
hatches, computed attribute names, and modules handed around as values (a
module in a list, returned or passed, hides what is read from it).
`find_forbidden` finds a question's
forbidden functions however they are reached (import aliases, assignments,
`getattr` with constant strings). Both see through `import torch as t`,
`la = torch.linalg` and `from torch import nn as n`.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TypeGuard

# What a graded answer may import (and everything below these, unless refused below).
ALLOWED_IMPORTS = frozenset(
    """
    torch math cmath functools itertools operator collections typing random
    statistics numbers fractions decimal __future__ abc copy heapq bisect time re
""".split()
)
# Parts of allowed modules that reach the interpreter, raw memory, files or other processes.
REFUSED_PATHS = tuple(
    """
    torch.ops torch.library torch.overrides torch.profiler torch.autograd.profiler
    torch.jit torch.compile torch.fx torch.export torch.package torch.hub torch.get_device_module
    torch.autograd.graph.saved_tensors_hooks torch.autograd.graph.save_on_cpu
    torch.autograd.graph.disable_saved_tensors_hooks
    torch.multiprocessing torch.distributed torch.utils torch.from_file torch.load
    torch.save torch.classes torch.storage torch.UntypedStorage torch.TypedStorage
    torch.cuda.memory torch.serialization torch.cuda.tunable torch.frombuffer
    operator.attrgetter operator.methodcaller typing.get_type_hints typing.ForwardRef
    functools.singledispatch functools.singledispatchmethod functools.update_wrapper
    functools.wraps typing.get_origin typing.Type copy.dispatch_table torch.compiler
    torch.ao torch.quantization torch.onnx torch.nn.utils.parametrize
    torch.nn.utils.parametrizations torch.nn.utils.prune torch.nn.utils.stateless
    torch.sparse_coo_tensor torch.sparse_csr_tensor torch.sparse_csc_tensor
    torch.sparse_bsr_tensor torch.sparse_bsc_tensor torch.sparse_compressed_tensor
""".split()
)
# Attribute names refused on any object: interpreter, frame and code internals, raw memory.
REFUSED_ATTRIBUTES = frozenset(
    """
    f_back f_globals f_locals f_builtins f_code f_trace f_lasti tb_frame tb_next
    gi_frame gi_code gi_yieldfrom cr_frame cr_code cr_await ag_frame ag_code co_consts
    co_code co_names ctypes share_memory_ ops library overrides profiler jit fx hub
    multiprocessing distributed from_file classes dispatch_table untyped_storage storage
    set_ data_ptr numpy resize resize_ resize_as_ sparse_resize_ sparse_resize_and_clear_
    apply_ map_ map2_ obj np serialization get_device_module load loads tofile fromfile
    ctypeslib get_type_hints ForwardRef attrgetter methodcaller update_wrapper wraps
    singledispatch get_origin saved_tensors_hooks save_on_cpu disable_saved_tensors_hooks
""".split()
)
# Methods refused on objects the scan cannot name (`model.compile` runs torch.compile), not on
# modules it can (`re.compile`).
REFUSED_METHODS = frozenset({"compile"})
# Torch's top-level names that are its C extension's own (`torch.Size` is `torch._C.Size`):
# only these; the rest are TorchScript, serialisation and dispatch machinery
# (`torch.PyTorchFileWriter` writes files, `torch.DisableTorchFunction` switches off the
# guard's watch). Storage classes are refused wherever they are reached: a shrunk storage
# under a tensor reads and writes memory outside it.
ALLOWED_TORCH_C_NAMES = frozenset(
    """
    Generator Size device dtype finfo iinfo layout memory_format qscheme Stream Event
    default_generator get_default_dtype get_num_threads get_num_interop_threads
    is_grad_enabled is_inference_mode_enabled is_anomaly_enabled has_lapack has_mkl
    has_openmp has_spectral OutOfMemoryError
""".split()
)
# The parts of torch an answer may reach, below its top-level names: a closed list, since
# torch's other modules build and run code from names (compilers, graph rewriters).
ALLOWED_TORCH_MODULES = tuple(
    """
    torch.nn torch.linalg torch.special torch.fft torch.autograd torch.optim
    torch.distributions torch.random torch.func torch.testing torch.cuda torch.types
    torch.functional torch.backends torch.amp torch.signal torch.return_types torch.version
""".split()
)
# `type` hands out an answer's classes and torch's, which could then be patched (isinstance
# answers the questions answers need).
REFUSED_BUILTINS = frozenset(
    """
    eval exec compile globals locals vars __import__ breakpoint open type id hash
""".split()
)
ATTRIBUTE_BUILTINS = frozenset({"getattr", "setattr", "delattr", "hasattr"})
ALLOWED_DUNDERS = frozenset({"__init__", "__call__", "__name__"})
# The special methods an answer may define: the protocols of ordinary classes (containers,
# numbers, comparisons, context managers). Any other (`__del__`, `__torch_function__`,
# `__getattr__`, or a method named `__globals__` that a copying helper would call) runs at
# times the harness does not choose or stands in for an interpreter attribute.
ALLOWED_SPECIAL_METHODS = frozenset(
    """
    __init__ __call__ __repr__ __str__ __format__ __len__ __iter__ __next__ __reversed__
    __getitem__ __setitem__ __delitem__ __contains__ __missing__ __eq__ __ne__ __lt__ __le__
    __gt__ __ge__ __hash__ __bool__ __int__ __float__ __complex__ __index__ __round__
    __trunc__ __floor__ __ceil__ __neg__ __pos__ __abs__ __invert__ __add__ __sub__ __mul__
    __matmul__ __truediv__ __floordiv__ __mod__ __divmod__ __pow__ __lshift__ __rshift__
    __and__ __xor__ __or__ __radd__ __rsub__ __rmul__ __rmatmul__ __rtruediv__ __rfloordiv__
    __rmod__ __rdivmod__ __rpow__ __rlshift__ __rrshift__ __rand__ __rxor__ __ror__ __iadd__
    __isub__ __imul__ __imatmul__ __itruediv__ __ifloordiv__ __imod__ __ipow__ __ilshift__
    __irshift__ __iand__ __ixor__ __ior__ __enter__ __exit__ __post_init__
""".split()
)
# Strings that name special attributes are refused too: copying helpers and class factories
# take attribute names as strings (`update_wrapper(..., assigned=("__globals__",))`).
ALLOWED_SPECIAL_STRINGS = ALLOWED_DUNDERS | {"__main__"}
# Dotted names longer than this are refused unread: resolving one imports each prefix.
MAX_NAME_PARTS = 16
SELF_NAMES = frozenset({"self", "cls", "ctx"})
# Modules whose every public name is a plain numeric function or constant.
STAR_IMPORTS = frozenset({"math", "cmath"})
# A named tuple's documented API, underscored only to keep clear of field names.
NAMED_TUPLE_NAMES = frozenset({"_replace", "_asdict", "_fields", "_field_defaults", "_make"})
# Modules that hand out frames, tracing hooks, raw memory or processes, refused as attributes
# too: allowed modules hold references to them (`torch.sys`, `F.torch.os`).
DANGEROUS_MODULES = frozenset(
    """
    sys os gc inspect ctypes importlib builtins threading _thread traceback linecache
    weakref subprocess multiprocessing asyncio concurrent mmap pickle marshal
    faulthandler tracemalloc atexit resource posix logging warnings bdb pdb trace
    cProfile profile runner django celery
""".split()
)
WHY = (
    "graded answers may import only torch, math and the standard modules "
    + ", ".join(sorted(ALLOWED_IMPORTS - {"__future__", "torch", "math"}))
    + ", not every part of those (some call or read by a name built at run time, or reach"
    " files, memory or the interpreter), and may not inspect or change the interpreter, torch's"
    " internals or the grader"
)


TOO_COMPLEX = "the answer is nested too deeply to be checked"


class SourceTooComplex(ValueError):
    """The source is nested too deeply to be checked (and so is not graded)."""


@dataclass(frozen=True, order=True)
class Refusal:
    """One construct a graded answer may not use, with the line where it stands."""

    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.what} (line {self.line})"


@dataclass
class Usage:
    """What a source refers to, resolved through its aliases."""

    qualified: set[str] = field(default_factory=set)  # torch.linalg.inv, torch.softmax
    dynamic: set[str] = field(default_factory=set)  # modules read with computed attribute names
    attributes: set[str] = field(default_factory=set)  # `.name` read on objects of unknown type
    # Names used as values (passed, returned, stored, put in a container) rather than read
    # through, called or aliased: a module handed around this way hides what is read from it.
    escaped: set[str] = field(default_factory=set)
    # Builtins named with nothing else bound to the name (`complex`, `sum`), and `complex`
    # for a complex literal (`1j`): a question may forbid `builtins.complex`.
    builtins: set[str] = field(default_factory=set)
    # Private attributes read on `self`, `cls` or `ctx`, with their lines: allowed for the
    # answer's own, refused for torch's (reach.py), since `self` may be a tensor.
    private_on_self: dict[str, int] = field(default_factory=dict)
    refusals: set[Refusal] = field(default_factory=set)


def scan(source: str) -> Usage | None:
    """The usage of `source`, or None when it does not parse (the child reports that).

    Raises SourceTooComplex for sources nested too deeply to walk.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    except (RecursionError, MemoryError) as error:
        raise SourceTooComplex(TOO_COMPLEX) from error
    try:
        # The first pass learns every alias, so that a name used above the line that binds it
        # (a function body reading `t.save` before `t = torch`) is still seen for what it is.
        first = _Scanner()
        first.scan(tree)
        scanner = _Scanner(bound_somewhere=first.bindings)
        scanner.modules = set(first.modules)
        scanner.scan(tree)
    except RecursionError as error:
        raise SourceTooComplex(TOO_COMPLEX) from error
    return scanner.usage


def find_refusals(source: str) -> list[Refusal]:
    """What in `source` a graded answer may not use, sorted by line; raises SourceTooComplex."""
    usage = scan(source)
    return sorted(usage.refusals) if usage else []


# Torch offers many operations under one name in each of these namespaces (torch.dropout and
# F.dropout, torch.softmax and Tensor.softmax): forbidding one forbids its namesakes.
NAMESAKE_NAMESPACES = (
    "torch",
    "torch.nn.functional",
    "torch.special",
    "torch.linalg",
    "torch.Tensor",
)


# The backends' whole recurrent layers and cells (oneDNN, MIOpen, quantized): each computes
# its gates' sigmoid and tanh inside.
FUSED_RECURRENT_KERNELS = (
    "torch.mkldnn_rnn_layer",
    "torch.miopen_rnn",
    "torch.quantized_lstm_cell",
    "torch.quantized_gru_cell",
    "torch.quantized_rnn_tanh_cell",
)
# Losses computed inside one kernel from the log-sigmoid of their input: exp(-loss) with a
# target of ones is the sigmoid (an outside attack graded 1.0 on the custom sigmoid so).
LOG_SIGMOID_LOSSES = (
    "torch.nn.functional.binary_cross_entropy_with_logits",
    "torch.binary_cross_entropy_with_logits",
    "torch.nn.BCEWithLogitsLoss",
    "torch.nn.functional.multilabel_soft_margin_loss",
    "torch.nn.MultiLabelSoftMarginLoss",
    "torch.nn.functional.soft_margin_loss",
    "torch.soft_margin_loss",
    "torch.nn.SoftMarginLoss",
)
# A tensor's autograd graph, walked and its nodes called by hand, computes what backward
# does without calling it: forbidding autograd's gradients forbids reading the graph too.
AUTOGRAD_GRAPH = ("torch.Tensor.grad_fn", "torch.autograd.graph")
# Torch's own derivatives compute some operations outright: softmax is the gradient of
# logsumexp, sigmoid that of softplus. Forbidding those forbids differentiating in the answer.
DIFFERENTIATION = (
    "torch.autograd.grad",
    "torch.autograd.backward",
    "torch.Tensor.backward",
    "torch.autograd.functional",
    "torch.autograd.forward_ad",
    "torch.func",
    *AUTOGRAD_GRAPH,
)
# Torch operations that compute an operation inside one fused kernel, out of sight of the
# guard's operator watch (scaled dot-product attention's softmax, an LSTM cell's tanh and
# sigmoid): forbidding the operation forbids them too.
CONTAINING = {
    "softmax": (
        "torch.nn.functional.scaled_dot_product_attention",
        "torch.nn.functional.multi_head_attention_forward",
        "torch.nn.MultiheadAttention",
        "torch.nn.Transformer",
        "torch.nn.TransformerEncoderLayer",
        "torch.nn.TransformerDecoderLayer",
        *DIFFERENTIATION,
    ),
    "tanh": (
        *FUSED_RECURRENT_KERNELS,
        "torch.nn.LSTM",
        "torch.nn.LSTMCell",
        "torch.nn.GRU",
        "torch.nn.GRUCell",
        "torch.nn.RNN",
        "torch.nn.RNNCell",
        "torch.lstm",
        "torch.lstm_cell",
        "torch.gru",
        "torch.gru_cell",
        "torch.rnn_tanh",
        "torch.rnn_tanh_cell",
        "torch.nn.functional.mish",
        "torch.nn.Mish",
    ),
    "sigmoid": (
        *FUSED_RECURRENT_KERNELS,
        "torch.nn.LSTM",
        "torch.nn.LSTMCell",
        "torch.nn.GRU",
        "torch.nn.GRUCell",
        "torch.lstm",
        "torch.lstm_cell",
        "torch.gru",
        "torch.gru_cell",
        "torch.nn.functional.silu",
        "torch.nn.SiLU",
        "torch.nn.functional.glu",
        "torch.nn.GLU",
        *LOG_SIGMOID_LOSSES,
        *DIFFERENTIATION,
    ),
    "logsigmoid": LOG_SIGMOID_LOSSES,
    "grad": AUTOGRAD_GRAPH,
    "backward": AUTOGRAD_GRAPH,
}


def with_namesakes(forbidden: list[str], *, derivatives: bool = True) -> dict[str, str]:
    """Each forbidden name, and the same operation's names in the other torch namespaces
    (in-place variants included) and the operations that contain it (`CONTAINING`), mapped
    to the forbidden name they stand for: `torch.dropout` and `torch.Tensor.dropout_` for
    `torch.nn.functional.dropout`, `torch.nn.LSTM` for `torch.tanh`. Without `derivatives`,
    not the ways of differentiating that an operation's derivative brings in."""
    names = {name: name for name in forbidden}
    for name in forbidden:
        parent, _, last = name.rpartition(".")
        if parent in NAMESAKE_NAMESPACES and last and not last.startswith("_"):
            base = last.rstrip("_")
            for namespace in NAMESAKE_NAMESPACES:
                names.setdefault(f"{namespace}.{base}", name)
            names.setdefault(f"torch.{base}_", name)
            names.setdefault(f"torch.Tensor.{base}_", name)
        for containing in CONTAINING.get(last.strip("_"), ()):
            if derivatives or containing not in DIFFERENTIATION or name in DIFFERENTIATION:
                names.setdefault(containing, name)
    return names


def find_forbidden(source: str, forbidden: list[str]) -> list[str]:
    """The forbidden names the source uses, sorted; [] for unparsable source."""
    if not forbidden:
        return []
    usage = scan(source)
    return forbidden_in(usage, forbidden) if usage else []


def forbidden_in(usage: Usage, forbidden: list[str]) -> list[str]:
    """The names of `forbidden` that a scanned source uses, directly or through a namesake
    (`torch.dropout (it is torch.nn.functional.dropout under another name)`), sorted."""
    found = set()
    for alias, name in with_namesakes(forbidden).items():
        if _uses(usage, name):
            found.add(name)
        elif _uses(usage, alias):
            found.add(stands_for(alias, name))
    return sorted(found)


def stands_for(alias: str, name: str, *, shown: str | None = None) -> str:
    """How a refusal names `shown` (by default `alias`, a name `with_namesakes` maps to the
    forbidden `name`; `shown` reaches the same object as `alias`), saying why it counts as
    `name`: a student reading "the answer uses X" must see how X is the forbidden operation."""
    last = name.rpartition(".")[2]
    if alias == name:
        why = f"it is {name} under another name"
    elif alias in DIFFERENTIATION and name not in DIFFERENTIATION:
        why = f"with it torch's derivatives can compute {name}"
    elif alias in AUTOGRAD_GRAPH:
        why = f"it lets the autograd graph be walked by hand, doing what {name} does"
    elif alias in CONTAINING.get(last.strip("_"), ()):
        why = f"it computes {name} inside"
    elif alias.endswith("_") and not name.endswith("_"):
        why = f"it is the in-place form of {name}"
    else:
        why = f"it is {name} under another name"
    return f"{shown or alias} ({why})"


def _uses(usage: Usage, name: str) -> bool:
    if name.startswith("builtins."):
        return name.removeprefix("builtins.") in usage.builtins
    if any(_within(used, name) for used in usage.qualified):
        return True
    if any(name.startswith(base + ".") for base in usage.dynamic):
        return True
    return name.startswith("torch.Tensor.") and name.rsplit(".", 1)[1] in usage.attributes


def _within(used: str, name: str) -> bool:
    return used == name or used.startswith(name + ".")


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


_SPECIAL_NAME = re.compile(r"__\w+__")


def _is_special_string(text: str) -> bool:
    return (
        bool(_SPECIAL_NAME.fullmatch(text.strip())) and text.strip() not in ALLOWED_SPECIAL_STRINGS
    )


def _constant_str(node: ast.AST) -> str | None:
    """The value of a string built only from constants ("in" + "v", f"{'inv'}")."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _constant_str(node.left), _constant_str(node.right)
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):  # "_" * 2
        text, count = _constant_str(node.left), node.right
        if text is not None and isinstance(count, ast.Constant) and type(count.value) is int:
            return text * count.value if 0 <= count.value <= 64 else None
    if isinstance(node, ast.JoinedStr):
        parts = [
            _constant_str(v.value if isinstance(v, ast.FormattedValue) else v) for v in node.values
        ]
        return "".join(p for p in parts if p is not None) if None not in parts else None
    return None


FORMAT_METHODS = ("format", "format_map")
# A replacement field whose name goes on to an attribute or an item: {0.attr}, {x[key]}.
_FORMAT_FIELD = re.compile(r"\{[^{}!:]*[.\[]")


def _annotations(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.arg | ast.AnnAssign) and node.annotation is not None:
        return [node.annotation]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns is not None:
        return [node.returns]
    return []


def _read_through(tree: ast.AST) -> set[int]:
    """Ids of the expressions whose value the source only reads attributes of, calls, binds to a
    plain name (an alias the scan follows) or drops: every other use hands the value around."""
    held: set[int] = set()
    class_statements: set[int] = set()
    for node in _walk(tree):
        if isinstance(node, ast.Attribute):
            held.add(id(node.value))
        elif isinstance(node, ast.Call):
            held.add(id(node.func))
            if _is_attribute_builtin(node.func) and node.args:
                held.add(id(node.args[0]))  # getattr(torch, "tanh") reads through torch
        elif isinstance(node, ast.Expr):
            held.add(id(node.value))
        elif isinstance(node, ast.ClassDef):
            # A class attribute is read as `Class.name`, which the scan cannot follow.
            class_statements.update(id(statement) for statement in node.body)
        elif (
            isinstance(node, ast.Assign)
            and id(node) not in class_statements
            and all(isinstance(target, ast.Name) for target in node.targets)
        ):
            held.add(id(node.value))
    return held


def _is_attribute_builtin(node: ast.AST) -> TypeGuard[ast.Name]:
    return isinstance(node, ast.Name) and node.id in ATTRIBUTE_BUILTINS


def _root_name(node: ast.AST) -> tuple[str | None, list[str]]:
    """The plain name an attribute chain starts from, and the attributes read after it."""
    chain: list[str] = []
    while isinstance(node, ast.Attribute):
        chain.append(node.attr)
        node = node.value
    return (node.id if isinstance(node, ast.Name) else None), list(reversed(chain))


def _walk(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node, parents before children, in source order, without recursion."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


class _Scanner:
    def __init__(self, bound_somewhere: dict[str, set[str]] | None = None) -> None:
        self.usage = Usage()
        self.aliases: dict[str, str] = {}
        self.bindings: dict[str, set[str]] = {}  # every alias each name is given, anywhere
        self.bound_somewhere = bound_somewhere or {}
        self.modules: set[str] = set()  # what `import` statements bind: modules for certain
        self.line = 0
        self.skip: set[int] = set()  # ids of nodes already judged as part of their parent
        self.read_through: set[int] = set()

    def scan(self, tree: ast.AST) -> None:
        self.read_through |= _read_through(tree)
        for node in _walk(tree):
            if id(node) in self.skip:
                continue
            self.line = getattr(node, "lineno", self.line)
            handler = getattr(self, f"visit_{type(node).__name__}", None)
            if handler is not None:
                handler(node)
            if isinstance(node, ast.Name | ast.Attribute) and id(node) not in self.read_through:
                self.check_escape(node)
            for annotation in _annotations(node):
                self.scan_strings(annotation)

    def scan_strings(self, annotation: ast.AST) -> None:
        """String annotations are code too: typing and functools evaluate them."""
        for node in _walk(annotation):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                try:
                    tree = ast.parse(node.value, mode="eval")
                except (SyntaxError, ValueError):
                    self.refuse("a string annotation that is not an expression")
                    continue
                self.scan(tree)

    def bind(self, name: str, qualified: str) -> None:
        self.aliases[name] = qualified
        self.bindings.setdefault(name, set()).add(qualified)

    def meanings(self, node: ast.AST) -> list[str]:
        """What an expression may stand for: its alias here, else what its name is bound to
        elsewhere in the source (a function body runs after the lines below it)."""
        qualified = self.resolve(node)
        if qualified:
            return [qualified]
        root, chain = _root_name(node)
        if root is None:
            return []
        return [".".join([bound, *chain]) for bound in sorted(self.bound_somewhere.get(root, ()))]

    def check_escape(self, node: ast.Name | ast.Attribute) -> None:
        if not isinstance(node.ctx, ast.Load):
            return
        for qualified in self.meanings(node):
            if qualified.count(".") >= MAX_NAME_PARTS:
                continue  # refused by `use` unread
            self.usage.escaped.add(qualified)
            if qualified in self.modules:
                self.refuse(f"the module {qualified} used as a value")

    def refuse(self, what: str) -> None:
        self.usage.refusals.add(Refusal(self.line, what))

    def use(self, qualified: str) -> None:
        parts = qualified.split(".")
        if len(parts) > MAX_NAME_PARTS:
            self.refuse(f"a dotted name of more than {MAX_NAME_PARTS} parts")
            return
        self.usage.qualified.add(qualified)
        if parts[0] not in ALLOWED_IMPORTS:
            self.refuse(f"the module {parts[0]}")
        elif any(_within(qualified, path) for path in REFUSED_PATHS):
            self.refuse(qualified)
        elif any(part.startswith("_") and not _is_dunder(part) for part in parts[1:]):
            self.refuse(f"the private name {qualified}")
        else:
            for part in parts[1:]:
                if part in DANGEROUS_MODULES:
                    self.refuse(f"the module {part} (reached as {qualified})")

    def resolve(self, node: ast.AST) -> str | None:
        """The dotted name an expression stands for, through aliases; None if unknown."""
        chain: list[str] = []
        while isinstance(node, ast.Attribute):
            chain.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name):
            base = self.aliases.get(node.id)
        elif isinstance(node, ast.Call):
            base = self._constant_getattr(node)
        else:
            base = None
        return ".".join([base, *reversed(chain)]) if base else None

    def _constant_getattr(self, node: ast.Call) -> str | None:
        function = node.func
        if not (isinstance(function, ast.Name) and function.id == "getattr"):
            return None
        if len(node.args) < 2:
            return None
        base, attribute = self.resolve(node.args[0]), _constant_str(node.args[1])
        return f"{base}.{attribute}" if base and attribute else None

    def check_attribute(self, name: str, base: ast.AST) -> None:
        if _is_dunder(name):
            if name not in ALLOWED_DUNDERS:
                self.refuse(f"the special attribute {name}")
        elif name in NAMED_TUPLE_NAMES:
            pass
        elif name.startswith("_"):
            if isinstance(base, ast.Name) and base.id in SELF_NAMES:
                self.usage.private_on_self.setdefault(name, self.line)
            else:
                self.refuse(f"the private attribute {name}")
        elif name in REFUSED_ATTRIBUTES or name in DANGEROUS_MODULES:
            self.refuse(f"the attribute {name}")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.use(alias.name)
            if alias.asname:
                self.modules.add(alias.name)
                self.bind(alias.asname, alias.name)
            else:
                top = alias.name.split(".")[0]
                self.modules.add(top)
                self.bind(top, top)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level or not node.module:
            self.refuse("a relative import")
            return
        for alias in node.names:
            if alias.name == "*":
                self.use(node.module)
                self.usage.dynamic.add(node.module)
                if node.module not in STAR_IMPORTS:
                    # The names it binds are never seen: `from typing import *` bound
                    # get_type_hints, `from torch import *` torch.load and the storages.
                    self.refuse(f"from {node.module} import * (import the names you use)")
                continue
            qualified = f"{node.module}.{alias.name}"
            self.use(qualified)
            self.bind(alias.asname or alias.name, qualified)

    def visit_Assign(self, node: ast.Assign) -> None:
        qualified = self.resolve(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name):
                if qualified:
                    self.bind(target.id, qualified)
                else:
                    self.aliases.pop(target.id, None)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.check_attribute(node.attr, node.value)
        if node.attr in REFUSED_METHODS and not self.meanings(node):
            self.refuse(f"the method {node.attr} of an object the check cannot name")
        if node.attr in FORMAT_METHODS:  # not called at once on its template (visit_Call)
            self.refuse(f"str.{node.attr} other than called on a constant template")
        if self.resolve(node) is None:
            self.usage.attributes.add(node.attr)
        for qualified in self.meanings(node):
            self.use(qualified)
            if not isinstance(node.ctx, ast.Load):
                self.refuse(f"changing {qualified}")

    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        if name in REFUSED_BUILTINS or name in ATTRIBUTE_BUILTINS:
            self.refuse(f"the builtin {name}")
        elif _is_dunder(name) and name not in ALLOWED_DUNDERS:
            self.refuse(f"the special name {name}")
        meanings = self.meanings(node)
        if not meanings and hasattr(builtins, name):
            self.usage.builtins.add(name)
        for qualified in meanings:
            self.use(qualified)

    def visit_Call(self, node: ast.Call) -> None:
        function = node.func
        if isinstance(function, ast.Attribute) and function.attr in FORMAT_METHODS:
            self.skip.add(id(function))  # judged here, with its template
            self.check_attribute(function.attr, function.value)
            self._format(function.value)
        if _is_attribute_builtin(function):
            self.skip.add(id(function))  # judged here, with its arguments
            self._attribute_builtin(node, function.id)

    def _format(self, template: ast.AST) -> None:
        """str.format reads attributes and items its template names: only constant templates
        whose fields name no attribute or item may be used."""
        text = _constant_str(template)
        if text is None:
            self.refuse("str.format with a template that is not a constant string")
        elif _FORMAT_FIELD.search(text):
            self.refuse("a format template that reads an attribute or item ({x.y}, {x[k]})")

    def _attribute_builtin(self, node: ast.Call, builtin: str) -> None:
        name = _constant_str(node.args[1]) if len(node.args) >= 2 else None
        if name is None:
            self.refuse(f"{builtin}() with a computed attribute name")
            base = self.resolve(node.args[0]) if node.args else None
            if base:
                self.usage.dynamic.add(base)
            return
        self.check_attribute(name, node.args[0])
        base = self.resolve(node.args[0])
        if base:
            self.use(f"{base}.{name}")
            if builtin in ("setattr", "delattr"):
                self.refuse(f"changing {base}.{name}")
        else:
            self.usage.attributes.add(name)
            if name in REFUSED_METHODS:
                self.refuse(f"the method {name} of an object the check cannot name")

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if _is_dunder(node.name) and node.name not in ALLOWED_SPECIAL_METHODS:
            self.refuse(f"a {node.name} method")

    def visit_Constant(self, node: ast.Constant | ast.BinOp | ast.JoinedStr) -> None:
        if isinstance(node, ast.Constant) and isinstance(node.value, complex):
            self.usage.builtins.add("complex")
        text = _constant_str(node)
        if text is not None and _is_special_string(text):
            self.refuse(f"the special name {text.strip()!r} in a string")

    visit_BinOp = visit_JoinedStr = visit_Constant

    def visit_keyword(self, node: ast.keyword) -> None:
        if node.arg is not None and _is_special_string(node.arg):
            self.refuse(f"the special name {node.arg!r} as a keyword argument")
        elif node.arg == "fused":
            self.refuse("fused=... (torch.optim's fused kernels do not check tensor sizes)")

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.check_binding(node.name)
        if any(keyword.arg == "metaclass" for keyword in node.keywords):
            self.refuse("a metaclass")
        elif any(keyword.arg is None for keyword in node.keywords):
            self.refuse("class keywords given with ** (they could name a metaclass)")

    def check_binding(self, name: str | None) -> None:
        """A special name bound other than by `def` (a capture pattern, `except ... as`, an
        import's alias, a class, a parameter) could stand in for a special method."""
        if name is not None and _is_dunder(name) and name not in ALLOWED_DUNDERS:
            self.refuse(f"binding the special name {name}")

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        self.check_binding(node.name)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        self.check_binding(node.name)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        self.check_binding(node.name)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        self.check_binding(node.rest)

    def visit_alias(self, node: ast.alias) -> None:
        self.check_binding(node.asname or node.name.split(".")[0])

    def visit_arg(self, node: ast.arg) -> None:
        self.check_binding(node.arg)

    def visit_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        for name in node.names:
            self.check_binding(name)

    visit_Nonlocal = visit_Global

    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        # `case C(name=x)` reads the subject's attribute `name`, whatever C is (`object`
        # matches everything): it is judged as that attribute's read.
        base = self.resolve(node.cls)
        for name in node.kwd_attrs:
            self.check_attribute(name, node.cls)
            if name in REFUSED_METHODS:
                self.refuse(f"the method {name} of an object the check cannot name")
            self.usage.attributes.add(name)
            if base:
                self.use(f"{base}.{name}")
