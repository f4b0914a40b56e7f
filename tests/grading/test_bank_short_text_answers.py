"""The fixture bank's short-text questions accept the ways students really write the answer."""

from typing import Any

import pytest
import yaml

from grading.scoring import score_answer
from tests.quizbank.conftest import FIXTURE_BANK


def question(path: str) -> dict[str, Any]:
    content: dict[str, Any] = yaml.safe_load((FIXTURE_BANK / path).read_text(encoding="utf-8"))
    return content


def score(path: str, text: str) -> float:
    return score_answer(question(path), {"text": text}).score


GRAD_FN = "computation-graphs/grad-fn-attribute.yaml"
RETAIN_GRAD = "autograd/retain-grad-method.yaml"
INFERENCE_MODE = "inference-and-memory/inference-mode-name.yaml"
CONTIGUOUS = "tensor-operations/contiguous-method.yaml"
MATRIX = "tensors/two-axis-tensor-name.yaml"


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (GRAD_FN, "Grad_fn"),
        (GRAD_FN, "`grad_fn`"),
        (GRAD_FN, "y.grad_fn"),
        (GRAD_FN, "the grad_fn attribute"),
        (RETAIN_GRAD, ".retain_grad()"),
        (RETAIN_GRAD, "`h.retain_grad()`"),
        (INFERENCE_MODE, "torch.inference_mode"),
        (INFERENCE_MODE, "with torch.inference_mode():"),
        (CONTIGUOUS, "y.contiguous()"),
        (CONTIGUOUS, "y.contiguous().view(-1)"),
        (CONTIGUOUS, ".contiguous().view(-1)"),
        (MATRIX, "a Matrix"),
        (MATRIX, "2-dimensional matrix"),
        (MATRIX, "two dimensional matrix"),
        (MATRIX, "2D-matrix"),
    ],
)
def test_a_correct_answer_written_as_code_earns_full_marks(path: str, text: str) -> None:
    assert score(path, text) == 1.0


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (GRAD_FN, "grad"),
        (GRAD_FN, "x.requires_grad"),
        (RETAIN_GRAD, "h.requires_grad_(True)"),
        (RETAIN_GRAD, "h.detach()"),
        (RETAIN_GRAD, "retain_graph"),
        (RETAIN_GRAD, "loss.backward(retain_graph=True)"),
        (CONTIGUOUS, "y.clone().view(-1)"),
        (INFERENCE_MODE, "no_grad"),
        (INFERENCE_MODE, "with torch.no_grad():"),
        (CONTIGUOUS, "y.clone()"),
        (CONTIGUOUS, ".clone().view(-1)"),
        (MATRIX, "vector"),
        (MATRIX, "the vector"),
        (MATRIX, "row vector"),
        (RETAIN_GRAD, "h.requires_grad = True"),
        (CONTIGUOUS, "y.reshape(-1)"),
    ],
)
def test_a_wrong_answer_still_scores_zero_with_its_own_feedback(path: str, text: str) -> None:
    verdict = score_answer(question(path), {"text": text})
    assert verdict.score == 0.0
    assert verdict.feedback["answer"]
