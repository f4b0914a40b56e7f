"""The static look for forbidden names sees through aliases and simple tricks."""

from __future__ import annotations

import pytest

from runner.harness.static import (
    Refusal,
    SourceTooComplex,
    find_forbidden,
    find_refusals,
    with_namesakes,
)

INV = ["torch.linalg.inv"]


def assert_refused(source: str, refused: str) -> None:
    """Some refusal of `source` starts with `refused`."""
    found = [str(refusal) for refusal in find_refusals(source)]
    assert any(text.startswith(refused) for text in found), found


@pytest.mark.parametrize(
    "source",
    [
        "import torch\ny = torch.linalg.inv(x)",
        "import torch as t\ny = t.linalg.inv(x)",
        "from torch.linalg import inv\n",
        "from torch.linalg import inv as invert\n",
        "from torch import linalg\ny = linalg.inv(x)",
        "import torch\nla = torch.linalg\ny = la.inv(x)",
        "import torch\nf = getattr(torch.linalg, 'inv')",
        "import torch\nf = getattr(torch.linalg, 'in' + 'v')",
        "import torch\nname = 'inv'\nf = getattr(torch.linalg, name)",
        "from torch.linalg import *\n",
        "import torch.linalg\ntorch.linalg.inv(x)",
    ],
)
def test_it_finds_a_forbidden_function_however_it_is_reached(source: str) -> None:
    assert find_forbidden(source, INV) == INV


@pytest.mark.parametrize(
    "source",
    [
        "import torch\ny = torch.linalg.solve(a, b)",
        "import torch\ninv = 3\ny = inv + 1",
        "def inv(x):\n    return x",
        "import numpy as np\ny = np.linalg.inv(x)",
        "this is not python",
    ],
)
def test_it_does_not_flag_allowed_code(source: str) -> None:
    assert find_forbidden(source, INV) == []


def test_a_forbidden_module_covers_everything_inside_it() -> None:
    source = "from torch.func import grad\ng = grad(f)"
    assert find_forbidden(source, ["torch.func"]) == ["torch.func"]
    assert find_forbidden("import torch.func", ["torch.func"]) == ["torch.func"]


def test_a_forbidden_tensor_method_matches_any_call_of_that_method() -> None:
    source = "def f(x):\n    return x.sigmoid()"
    assert find_forbidden(source, ["torch.Tensor.sigmoid"]) == ["torch.Tensor.sigmoid"]


def test_several_names_are_reported_sorted() -> None:
    source = "import torch.nn.functional as F\nimport torch\nF.softmax(x, 1)\ntorch.softmax(x, 1)"
    found = find_forbidden(source, ["torch.softmax", "torch.nn.functional.softmax"])
    assert found == ["torch.nn.functional.softmax", "torch.softmax"]


@pytest.mark.parametrize(
    "source",
    [
        "import torch\nimport torch.nn.functional as F\nfrom typing import Any\nimport math\n"
        "def f(x: torch.Tensor) -> Any:\n    a, b = x.chunk(2)\n    y = torch.select(x, 0, 1)\n"
        "    return F.softmax(x, dim=1) * math.pi + x.sum().item()\n",
        "import torch\nclass M(torch.nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self._w = 1\n    def forward(self, x):\n"
        "        return x * self._w\n",
        "import torch\nclass S(torch.autograd.Function):\n    @staticmethod\n"
        "    def forward(ctx, x):\n        ctx.save_for_backward(x)\n        return x\n"
        "    @staticmethod\n    def backward(ctx, g):\n        (x,) = ctx.saved_tensors\n"
        "        return g\nif __name__ == '__main__':\n    print(getattr(torch, 'tanh'))\n",
        "from collections import OrderedDict\nimport functools, itertools, random\n"
        "def f(x):\n    x.grad = None\n    x.requires_grad = True\n    return x\n",
    ],
    ids=["module use", "own private attributes", "autograd function", "plain python"],
)
def test_ordinary_answers_are_not_refused(source: str) -> None:
    assert find_refusals(source) == []


@pytest.mark.parametrize(
    ("source", "refused"),
    [
        ("import sys", "the module sys"),
        ("import gc", "the module gc"),
        ("import inspect", "the module inspect"),
        ("import ctypes", "the module ctypes"),
        ("import importlib", "the module importlib"),
        ("import numpy", "the module numpy"),
        ("import logging", "the module logging"),
        ("from . import x", "a relative import"),
        ("import torch\ntorch.sys.modules", "the attribute sys"),
        ("import torch.nn.functional as F\nF.torch.os", "the attribute os"),
        ("import torch\ntorch._C", "the private attribute _C"),
        ("from torch import _C", "the private name torch._C"),
        ("import torch\ntorch._softmax(x, 1, False)", "the private attribute _softmax"),
        ("import torch\ntorch.ops.aten.softmax", "torch.ops"),
        ("import torch\nt = torch\nt.library", "torch.library"),
        ("import torch\ntorch.utils.checkpoint", "torch.utils"),
        ("import torch.multiprocessing", "torch.multiprocessing"),
        ("import torch\ntorch.load('x')", "torch.load"),
        ("import operator\noperator.attrgetter('x')", "operator.attrgetter"),
        ("x.__class__", "the special attribute __class__"),
        ("x.__dict__", "the special attribute __dict__"),
        ("__builtins__", "the special name __builtins__"),
        ("x._version", "the private attribute _version"),
        ("getattr(x, name)", "getattr() with a computed attribute name"),
        ("getattr(x, '__cl' + 'ass__')", "the special attribute __class__"),
        ("g = getattr", "the builtin getattr"),
        ("eval('1')", "the builtin eval"),
        ("exec('1')", "the builtin exec"),
        ("vars(x)", "the builtin vars"),
        ("globals()", "the builtin globals"),
        ("open('/proc/self/mem', 'wb')", "the builtin open"),
        ("type(x).shape = 1", "the builtin type"),
        ("def g():\n    yield\ng().gi_frame.f_back", "the attribute gi_frame"),
        ("try:\n    1 / 0\nexcept Exception as e:\n    e.__traceback__", "the special attribute"),
        ("class A:\n    def __del__(self):\n        pass", "a __del__ method"),
        ("import torch\nclass T(torch.Tensor):\n    def __torch_function__(self): pass", "a __tor"),
        ("class A(metaclass=M):\n    pass", "a metaclass"),
        ("import torch\ntorch.Tensor.requires_grad = True", "changing torch.Tensor.requires_grad"),
        ("import torch\nsetattr(torch, 'tanh', abs)", "changing torch.tanh"),
        ("match x:\n    case int(__class__=c):\n        pass", "the special attribute __class__"),
    ],
)
def test_introspection_and_escape_hatches_are_refused(source: str, refused: str) -> None:
    assert_refused(source, refused)


def test_a_refusal_names_its_line() -> None:
    assert find_refusals("import torch\n\nimport gc\n") == [Refusal(3, "the module gc")]


def test_a_long_expression_is_scanned_without_recursion() -> None:
    source = "y = " + " + ".join(["x"] * 600) + "\nz = " + " + ".join(["'a'"] * 600)
    assert find_refusals(source) == []
    assert find_forbidden(source + "\nimport torch\ntorch.linalg.inv(y)", INV) == INV


def test_a_source_too_deeply_nested_to_check_is_reported() -> None:
    source = "y = " + " + ".join(["x"] * 5000)
    with pytest.raises(SourceTooComplex):
        find_refusals(source)


def test_a_forbidden_operation_covers_its_namesakes_in_other_torch_namespaces() -> None:
    dropout = ["torch.nn.functional.dropout"]
    assert find_forbidden("import torch\ntorch.dropout(x, 0.5, True)", dropout) == [
        "torch.dropout (it is torch.nn.functional.dropout under another name)"
    ]
    assert find_forbidden("y = x.dropout_(0.5)", dropout) == [
        "torch.Tensor.dropout_ (it is the in-place form of torch.nn.functional.dropout)"
    ]
    assert with_namesakes(["torch.autograd.grad"]) == {
        "torch.autograd.grad": "torch.autograd.grad",
        "torch.Tensor.grad_fn": "torch.autograd.grad",
        "torch.autograd.graph": "torch.autograd.grad",
    }


def test_a_refusal_says_how_the_name_used_is_the_forbidden_operation() -> None:
    """A bare "(as torch.softmax)" left a student guessing why F.softmax or a loss counts."""
    softmax = "import torch.nn.functional as F\ny = F.softmax(x, 0)\n"
    assert find_forbidden(softmax, ["torch.softmax"]) == [
        "torch.nn.functional.softmax (it is torch.softmax under another name)"
    ]
    loss = "import torch.nn.functional as F\ny = F.binary_cross_entropy_with_logits(x, x)\n"
    assert find_forbidden(loss, ["torch.sigmoid"]) == [
        "torch.nn.functional.binary_cross_entropy_with_logits (it computes torch.sigmoid inside)"
    ]
    assert find_forbidden("y = x.sigmoid_()\n", ["torch.sigmoid"]) == [
        "torch.Tensor.sigmoid_ (it is the in-place form of torch.sigmoid)"
    ]


def test_a_forbidden_builtin_covers_its_name_and_complex_literals() -> None:
    assert find_forbidden("y = complex(1, 2)\n", ["builtins.complex"]) == ["builtins.complex"]
    literal = "def f(w):\n    return (w + 1e-30j).imag\n"
    assert find_forbidden(literal, ["builtins.complex"]) == ["builtins.complex"]
    assert find_forbidden("y = abs(-1.5)\n", ["builtins.complex"]) == []
    assert find_forbidden("y = sum([1, 2])\n", ["builtins.sum"]) == ["builtins.sum"]


def test_forbidding_the_sigmoid_forbids_the_losses_computed_from_a_log_sigmoid() -> None:
    source = (
        "import torch.nn.functional as F\n"
        "def f(x):\n"
        "    return (-F.binary_cross_entropy_with_logits(x, x, reduction='none')).exp()\n"
    )
    assert find_forbidden(source, ["torch.nn.functional.logsigmoid"]) == [
        "torch.nn.functional.binary_cross_entropy_with_logits "
        "(it computes torch.nn.functional.logsigmoid inside)"
    ]


@pytest.mark.parametrize("forbidden", ["torch.autograd.grad", "torch.Tensor.backward"])
def test_forbidding_autograd_forbids_calling_its_graph_by_hand(forbidden: str) -> None:
    """An outside attack walked `loss.grad_fn.next_functions` and called each node: every
    gradient of backward, without backward."""
    walk = "def f(loss):\n    node = loss.grad_fn\n    return node(loss)\n"
    why = f"(it lets the autograd graph be walked by hand, doing what {forbidden} does)"
    assert find_forbidden(walk, [forbidden]) == [f"torch.Tensor.grad_fn {why}"]
    hooks = "import torch.autograd.graph\n"
    assert find_forbidden(hooks, [forbidden]) == [f"torch.autograd.graph {why}"]
    assert find_forbidden(walk, ["torch.tanh"]) == []


@pytest.mark.parametrize(
    "pattern", ["torch.Tensor(grad_fn=node)", "object(grad_fn=node)", "T(grad_fn=node)"]
)
def test_a_class_pattern_reads_its_attributes_as_an_attribute_read_does(pattern: str) -> None:
    """An outside attack took `grad_fn` through `case torch.Tensor(grad_fn=node)`."""
    source = (
        "import torch\nT = torch.Tensor\n"
        f"def f(loss):\n    match loss:\n        case {pattern}:\n            return node(loss)\n"
    )
    assert find_forbidden(source, ["torch.autograd.grad"]) == [
        "torch.Tensor.grad_fn (it lets the autograd graph be walked by hand, doing what "
        "torch.autograd.grad does)"
    ]


@pytest.mark.parametrize(
    ("forbidden", "source"),
    [
        # softmax is the gradient of logsumexp, sigmoid that of softplus
        ("torch.softmax", "torch.autograd.grad(torch.logsumexp(x, 1).sum(), x)"),
        ("torch.nn.functional.sigmoid", "torch.nn.functional.softplus(x).sum().backward()"),
        ("torch.sigmoid", "torch.nn.functional.softplus(x).grad_fn(x)"),
    ],
)
def test_forbidding_an_operation_a_derivative_computes_forbids_differentiating(
    forbidden: str, source: str
) -> None:
    found = find_forbidden(f"import torch\ndef f(x):\n    return {source}\n", [forbidden])
    assert len(found) == 1
    assert f"(with it torch's derivatives can compute {forbidden})" in found[0]
    assert find_forbidden(f"import torch\ndef f(x):\n    return {source}\n", ["torch.tanh"]) == []


@pytest.mark.parametrize(
    ("source", "refused"),
    [
        ("def f(x: \"__import__('sys')\"): pass", "the builtin __import__"),
        ("def f(x) -> 'vars(x)': pass", "the builtin vars"),
        ("y: 'x.__class__' = 1", "the special attribute __class__"),
        ("import typing\ndef f(x: typing.List['eval']): pass", "the builtin eval"),
        ("'{0.__class__}'.format(x)", "a format template that reads an attribute"),
        ("'{0[cases]}'.format(x)", "a format template that reads an attribute"),
        ("t = '{0.f}'\nt.format(x)", "str.format with a template that is not a constant string"),
        ("str.format('{0}', x)", "str.format with a template that is not a constant string"),
        ("import functools\nfunctools.singledispatch", "functools.singledispatch"),
    ],
)
def test_code_hidden_in_strings_is_refused_too(source: str, refused: str) -> None:
    assert_refused(source, refused)


def test_plain_format_templates_and_annotations_are_fine() -> None:
    source = "import torch\ndef f(x: 'torch.Tensor') -> 'torch.Tensor':\n    return x\n"
    assert find_refusals(source + "msg = 'loss {0:.3f} at {1}'.format(1.0, 2)\n") == []


@pytest.mark.parametrize(
    "source",
    [
        "import torch\n[torch][0].save(x, 'p')",
        "import torch\n{0: torch}[0].load('p')",
        "import torch\ndef g():\n    return torch\ng().save(x, 'p')",
        "import torch\n(t := torch).matmul = f",
        "def f(m=torch):\n    m.save(x, 'p')\nimport torch",
        "import torch\nclass A:\n    m = torch\nA.m.load('p')",
        "import torch\nclass A:\n    def __init__(self):\n        self.m = torch\n",
        "import torch\n(torch if c else None).save(x, 'p')",
        "import torch\n(torch or None).save(x, 'p')",
        "import torch\nfor m in (torch,):\n    m.matmul = f",
        "import torch\nh = lambda: torch\n",
        "import torch.nn.functional as F\nrun(F)",
    ],
    ids=[
        "list",
        "dict",
        "returned",
        "walrus",
        "default",
        "class attribute",
        "instance attribute",
        "conditional",
        "boolean",
        "loop",
        "lambda",
        "argument",
    ],
)
def test_a_module_handed_around_as_a_value_is_refused(source: str) -> None:
    # Once a module is a value the scan cannot name, nothing read from it could be checked.
    found = [str(refusal) for refusal in find_refusals(source)]
    assert any(" used as a value" in text for text in found), found


def test_a_name_used_above_the_line_that_binds_it_is_seen_for_what_it_is() -> None:
    source = "import torch\ndef f(x):\n    t.save(x, 'p')\n    return s.inv(x)\nt = torch\n"
    assert [str(r) for r in find_refusals(source)] == ["torch.save (line 3)"]
    assert find_forbidden(source + "s = torch.linalg\n", INV) == INV


def test_modules_read_through_aliases_and_their_functions_as_values_are_fine() -> None:
    source = (
        "import torch\nimport torch.nn as nn\nimport math\nF = torch.nn.functional\n"
        "class M(nn.Module):\n    act = nn.ReLU\n    norm = F.normalize\n"
        "    def forward(self, x):\n        assert isinstance(x, torch.Tensor)\n"
        "        return F.linear(x, self.w).to(dtype=torch.float32) * math.pi\n"
        "activations = [torch.relu, torch.tanh, math.exp]\ntorch\n"
    )
    assert find_refusals(source) == []


@pytest.mark.parametrize(
    ("source", "refused"),
    [
        # A copying helper reads and writes attributes named by strings.
        (
            "import functools\nfunctools.update_wrapper(h, f, assigned=('__globals__',))",
            "functools.update_wrapper",
        ),
        ("import functools\nw = functools.wraps(f, ('__dict__',))", "functools.wraps"),
        ("class H:\n    def __globals__(self, value):\n        pass", "a __globals__ method"),
        ("b = found['__builtins__']", "the special name '__builtins__' in a string"),
        ("b = found['__buil' + 'tins__']", "the special name '__builtins__' in a string"),
        # Class factories given a namespace define any method, as the refused `type` would.
        (
            "import abc\nG = abc.ABCMeta('G', (), {'__del__': bye})",
            "the special name '__del__' in a string",
        ),
        (
            "import abc\nG = abc.ABCMeta('G', (), dict(__del__=bye))",
            "the special name '__del__' as a keyword argument",
        ),
        (
            "import dataclasses\nS = dataclasses.make_dataclass('S', [], namespace=n)",
            "the module dataclasses",
        ),
        ("import torch\ny = torch" + ".nn" * 20, "a dotted name of more than 16 parts"),
    ],
)
def test_attribute_names_in_strings_and_class_factories_are_refused(
    source: str, refused: str
) -> None:
    assert_refused(source, refused)


def test_ordinary_special_methods_and_main_guards_are_fine() -> None:
    source = (
        "import torch\nclass Batch:\n    def __len__(self):\n        return 2\n"
        "    def __getitem__(self, i):\n        return i\n    def __repr__(self):\n"
        "        return 'Batch'\n    def __eq__(self, other):\n        return True\n"
        "    def __enter__(self):\n        return self\n    def __exit__(self, *args):\n"
        "        return None\nif __name__ == '__main__':\n    print('__ready')\n"
    )
    assert find_refusals(source) == []


@pytest.mark.parametrize(
    ("source", "refused"),
    [
        # Special names bound by something other than `name = ...` or `def`.
        ("class P:\n    match m:\n        case __match_args__:\n            pass", "binding the"),
        ("class A:\n    match f:\n        case [*__del__]:\n            pass", "binding the"),
        ("class A:\n    match f:\n        case {**__del__}:\n            pass", "binding the"),
        ("class A:\n    try:\n        pass\n    except E as __del__:\n        pass", "binding the"),
        ("class C:\n    from operator import truth as __getattr__", "binding the"),
        ("class B:\n    class __del__:\n        pass", "binding the"),
        ("def f(__globals__):\n    pass", "binding the"),
        ("def f():\n    global __builtins__", "binding the"),
        # The refused builtin `type`, handed out by typing, and metaclasses by **.
        ("import typing\nmaker = typing.get_origin(typing.List[int])", "typing.get_origin"),
        ("import typing\ndef f(c: typing.Type[int]):\n    pass", "typing.Type"),
        ("class X(**{'meta' + 'class': M}):\n    pass", "class keywords given with **"),
        # Enum's functional form makes classes with any attribute, special ones included.
        ("import enum\nE = enum.Enum('E', names)", "the module enum"),
        # A format method kept to call later reads what a runtime template names.
        ("render = template.format\nrender(f)", "str.format other than called"),
        ("t = '{0}'\nt.format_map(m)", "str.format with a template that is not a constant"),
    ],
)
def test_special_names_bound_any_way_and_class_makers_are_refused(
    source: str, refused: str
) -> None:
    assert_refused(source, refused)


def test_ordinary_bindings_and_format_calls_are_fine() -> None:
    source = (
        "import torch\nfrom typing import Optional\n"
        "def f(x: Optional[torch.Tensor], scale: float = 1.0) -> str:\n"
        "    try:\n        y = x * scale\n    except RuntimeError as error:\n"
        "        return 'failed: {}'.format(error)\n"
        "    match y.dim():\n        case 0 | 1 as rank:\n            return f'{rank}'\n"
        "        case _:\n            return '{0} by {1}'.format(*y.shape[:2])\n"
    )
    assert find_refusals(source) == []


@pytest.mark.parametrize(
    ("source", "refused"),
    [
        # dataclasses paste field names into code they run; a field's name can be changed.
        ("import dataclasses\ndataclasses.fields(B)[0].name = payload", "the module dataclasses"),
        # copy's reduction table would set any attribute on any object.
        ("import copy\ncopy.dispatch_table[Key] = reductor", "copy.dispatch_table"),
        ("table = module.dispatch_table", "the attribute dispatch_table"),
        # Compilers hand out graph modules that write code from runtime names.
        ("import torch\nh = torch.compiler.compile(g, backend=b)", "torch.compiler"),
        ("import torch\nmodel = torch.nn.Linear(2, 2)\nmodel.compile()", "the method compile"),
        ("import torch.nn.utils.parametrize as P", "torch.nn.utils.parametrize"),
    ],
)
def test_code_writing_helpers_and_mutable_registries_are_refused(source: str, refused: str) -> None:
    assert_refused(source, refused)


def test_a_module_named_compile_method_is_fine() -> None:
    assert (
        find_refusals("import re\npattern = re.compile('a+')\nrx = pattern.sub('b', 'aa')\n") == []
    )


@pytest.mark.parametrize(
    ("source", "refused"),
    [
        # A storage shrunk under its tensor lets the tensor read and write past its memory.
        ("big = x.untyped_storage()\nbig.resize_(10)", "the attribute untyped_storage"),
        ("s = x.storage()", "the attribute storage"),
        ("y = x.set_(source)", "the attribute set_"),
        ("address = x.data_ptr()", "the attribute data_ptr"),
        ("address = id(x)", "the builtin id"),
    ],
)
def test_raw_memory_routes_are_refused(source: str, refused: str) -> None:
    assert_refused(source, refused)


@pytest.mark.parametrize(
    ("source", "refused"),
    [
        # numpy's resize frees a block its views still point at.
        ("owner = x.numpy().copy()\nowner.resize(1 << 17, refcheck=False)", "the attribute numpy"),
        ("owner.resize(1 << 17, refcheck=False)", "the attribute resize"),
        # Sparse tensors are built without checking their indices.
        ("import torch\ns = torch.sparse_coo_tensor(i, v, (4,))", "torch.sparse_coo_tensor"),
        ("t.sparse_resize_((4,), 1, 0)", "the attribute sparse_resize_"),
        # A callback that resizes the tensor leaves apply_/map_ on its freed buffer.
        ("t.apply_(callback)", "the attribute apply_"),
        ("t.map_(other, callback)", "the attribute map_"),
        ("t.resize_(1 << 16)", "the attribute resize_"),
        ("t.resize_as_(other)", "the attribute resize_as_"),
        # Addresses: hash() of most objects is their address.
        ("where = hash(x)", "the builtin hash"),
        ("name = '_' * 2 + 'import' + '_' * 2", "the special name '__import__' in a string"),
    ],
)
def test_unchecked_memory_and_address_routes_are_refused(source: str, refused: str) -> None:
    assert_refused(source, refused)


def test_fused_optimiser_kernels_are_refused_and_switched_off_in_the_child() -> None:
    # They read and write past a momentum buffer or gradient smaller than its parameter.
    import torch

    from runner.harness import pristine  # noqa: F401  (the child's captures switch them off)

    source = "import torch\nopt = torch.optim.SGD(params, lr=0.1, momentum=0.9, fused=True)"
    assert [str(r) for r in find_refusals(source)][0].startswith("fused=...")
    p = torch.nn.Parameter(torch.zeros(8, dtype=torch.float64))
    p.grad = torch.ones(8, dtype=torch.float64)
    optimiser = torch.optim.SGD([p], lr=0.1)
    optimiser.param_groups[0]["fused"] = True  # a route the static check cannot see
    with pytest.raises(RuntimeError, match="fused optimiser kernel"):
        optimiser.step()


@pytest.mark.parametrize("kernel", ["mkldnn_rnn_layer", "quantized_lstm_cell", "miopen_rnn"])
def test_the_backends_fused_recurrent_kernels_stand_for_sigmoid_and_tanh(kernel: str) -> None:
    source = f"import torch\ny = torch.{kernel}\n"
    assert find_forbidden(source, ["torch.sigmoid"]) == [
        f"torch.{kernel} (it computes torch.sigmoid inside)"
    ]
    assert find_forbidden(source, ["torch.tanh"]) == [
        f"torch.{kernel} (it computes torch.tanh inside)"
    ]
