"""Case validation: every error names the field it is about."""

from __future__ import annotations

from typing import Any

import pytest

from runner.harness.spec import parse_cases
from runner.harness.spec_values import CaseError


def error_for(cases: Any) -> str:
    with pytest.raises(CaseError) as caught:
        parse_cases(cases)
    return str(caught.value)


def test_defaults_fill_name_weight_and_seed() -> None:
    (case,) = parse_cases([{"args": [1]}])
    assert (case.name, case.weight, case.seed, case.kind, case.hidden) == (
        "case 1",
        1.0,
        0,
        "call",
        False,
    )


def test_checks_may_be_names_or_mappings() -> None:
    (case,) = parse_cases([{"checks": ["purity", {"kind": "requires_grad", "expected": False}]}])
    assert case.has("purity")
    check = case.check("requires_grad")
    assert check is not None
    assert check.options == {"expected": False}


@pytest.mark.parametrize(
    ("cases", "message"),
    [
        ([], "cases: must be a non-empty list"),
        (
            [{"args": [{"random": [2], "dtype": "float8"}]}],
            "cases[0].args[0].dtype: unknown dtype 'float8'",
        ),
        ([{"args": [{"random": [-1]}]}], "cases[0].args[0].random: must be a shape"),
        (
            [{"args": [{"random": [2], "distribution": "cauchy"}]}],
            "cases[0].args[0].distribution: unknown",
        ),
        (
            [{"args": [{"random": [2], "distribution": "uniform", "low": 2, "high": 1}]}],
            "cases[0].args[0].high: high (1)",
        ),
        ([{"args": [{"tensor": "abc"}]}], "cases[0].args[0].tensor: must be a number"),
        (
            [{"args": [{"tensor": [1], "dtype": "int64", "requires_grad": True}]}],
            "only floating tensors",
        ),
        (
            [{"args": [{"random": [2, 3], "contiguous": "no"}]}],
            "cases[0].args[0].contiguous: must be true or false",
        ),
        (
            [{"args": [{"random": [5, 1], "contiguous": False}]}],
            "cases[0].args[0].contiguous: contiguous: false needs at least two axes",
        ),
        (
            [{"args": [{"tensor": [1.0, 2.0], "contiguous": False}]}],
            "cases[0].args[0].contiguous: contiguous: false needs at least two axes",
        ),
        ([{"checks": ["speed"]}], "cases[0].checks[0].kind: unknown check 'speed'"),
        (
            [{"checks": [{"kind": "purity", "upstream": "sum"}]}],
            "cases[0].checks[0].upstream: unknown option",
        ),
        (
            [{"checks": [{"kind": "gradients", "upstream": "max"}]}],
            "cases[0].checks[0].upstream: must be sum, ones or a {tensor",
        ),
        (
            [{"checks": [{"kind": "input_reads", "max_ratio": 0.5}]}],
            "cases[0].checks[0].max_ratio: must be a number of at least 1",
        ),
        (
            [{"checks": [{"kind": "graph_nodes", "max_ratio": "many"}]}],
            "cases[0].checks[0].max_ratio: must be a number of at least 1",
        ),
        (
            [{"checks": [{"kind": "graph_nodes", "upstream": "sum"}]}],
            "cases[0].checks[0].upstream: unknown option for graph_nodes",
        ),
        (
            [{"checks": [{"kind": "fresh_output", "max_ratio": 2}]}],
            "cases[0].checks[0].max_ratio: unknown option for fresh_output",
        ),
        ([{"weight": -1}], "cases[0].weight: must be a number from 0 to 1000"),
        ([{"weight": 1.5e308}], "cases[0].weight: must be a number from 0 to 1000"),
        ([{"seed": "x"}], "cases[0].seed: must be an integer"),
        ([{"compare": {"rtol": "big"}}], "cases[0].compare.rtol: must be a number >= 0"),
        ([{"compare": {"dtype": "loose"}}], "cases[0].compare.dtype: must be strict or promotable"),
        ([{"colour": 1}], "cases[0].colour: unknown field"),
        ([{"kind": "fuzz"}], "cases[0].kind: unknown kind 'fuzz'"),
    ],
)
def test_invalid_cases_name_the_field(cases: Any, message: str) -> None:
    assert message in error_for(cases)


TRAINING = {
    "kind": "training",
    "model": {"mlp": [4, 8, 1]},
    "data": {"x": {"random": [8, 4]}, "y": {"random": [8, 1]}},
}


def test_a_training_case_gets_default_optimizer_steps_and_stages() -> None:
    (case,) = parse_cases([TRAINING])
    assert case.training is not None
    assert (case.training.optimizer, case.training.steps) == ("sgd", 10)
    assert [stage.check for stage in case.training.stages] == ["runs", "loss_decreases"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"model": {"cnn": [1, 2]}}, "cases[0].model.cnn: unknown model"),
        ({"model": {"linear": [4, 8, 1]}}, "cases[0].model.linear: sizes must be"),
        ({"model": {"linear": [4, 1], "batch_norm": True}}, "cases[0].model.batch_norm: must"),
        ({"model": {"mlp": [4, 8, 1], "batch_norm": "yes"}}, "cases[0].model.batch_norm: must"),
        ({"model": {"mlp": [4, 8, 1], "dropout": 0.5}}, "cases[0].model: must be"),
        ({"data": {"x": {"random": [8, 4]}}}, "cases[0].data: must be a mapping with x and y"),
        ({"loss": "hinge"}, "cases[0].loss: unknown loss 'hinge'"),
        ({"optimizer": {"rmsprop": {}}}, "cases[0].optimizer.rmsprop: unknown optimizer"),
        ({"steps": 0}, "cases[0].steps: must be an integer"),
        ({"stages": [{"check": "converges"}]}, "cases[0].stages[0].check: must be one of"),
        ({"stages": [{"check": "runs", "tolerance": 2}]}, "cases[0].stages[0].tolerance"),
        ({"args": [1]}, "cases[0].args: unknown field; allowed: name, kind"),
    ],
)
def test_invalid_training_cases_name_the_field(change: dict[str, Any], message: str) -> None:
    assert message in error_for([{**TRAINING, **change}])
