"""Question contents (the bank format as dicts) shared by the grading, API and e2e tests."""

from typing import Any

SINGLE: dict[str, Any] = {
    "type": "single_choice",
    "title": "Rank of a batch",
    "prompt": "What is the rank of a (8, 128, 512) tensor?",
    "choices": [
        {"text": "3", "correct": True, "feedback": "Three axes."},
        {"text": "2", "feedback": "That drops the batch axis."},
        {"text": "4", "feedback": "One axis too many."},
    ],
}
MULTIPLE: dict[str, Any] = {
    "type": "multiple_choice",
    "title": "Leaf tensors",
    "prompt": "Which are leaves?",
    "scoring": "partial",
    "choices": [
        {"text": "torch.ones(2, requires_grad=True)", "correct": True},
        {"text": "x * 2 for a leaf x that requires grad"},
        {"text": "torch.zeros(3)", "correct": True},
    ],
}
TRUE_FALSE: dict[str, Any] = {
    "type": "true_false",
    "title": "grad_fn of a leaf",
    "prompt": "A user-created leaf has grad_fn None.",
    "answer": True,
    "true_feedback": "Right.",
    "false_feedback": "Leaves have no grad_fn.",
}
NUMERIC: dict[str, Any] = {
    "type": "numeric",
    "title": "Derivative",
    "prompt": "dy/dx of x^2 + 5x + 2 at x = 3?",
    "answers": [
        {"value": 11, "tolerance": 0.001, "feedback": "2x + 5 at 3."},
        {"value": 6, "fraction": 0, "feedback": "You dropped the linear term."},
    ],
}
SHORT_TEXT: dict[str, Any] = {
    "type": "short_text",
    "title": "Creator attribute",
    "prompt": "Which attribute names the creating function?",
    "answers": [{"text": "grad_fn", "feedback": "Yes."}, {"regex": r"^\.grad_fn$"}],
}
CODE: dict[str, Any] = {
    "type": "code",
    "title": "Double it",
    "prompt": "Write `double(x)` returning 2x.",
    "entry_point": "double",
    "starter_code": "def double(x):\n    ...\n",
    "cases": [{"name": "small", "args": [{"tensor": [1.0, 2.0]}]}],
    "files": {
        "reference.py": "def double(x):\n    return x * 2\n",
        "wrong_add.py": "def double(x):\n    return x + 2\n",
    },
}
# The secrets let tests check they never reach a student; maximum 2 points.
VIVA: dict[str, Any] = {
    "type": "viva",
    "title": "Why gradients accumulate",
    "prompt": "Explain why .grad accumulates.",
    "mode": "written",
    "model_answer": "MODEL-ANSWER-SECRET",
    "guidance": "GUIDANCE-SECRET",
    "rubric": [
        {
            "criterion": "Mechanism",
            "levels": [
                {"label": "Missing", "points": 0, "descriptor": "none"},
                {"label": "Partial", "points": 1, "descriptor": "some"},
                {"label": "Full", "points": 2, "descriptor": "RUBRIC-SECRET"},
            ],
        }
    ],
}
# Three levels per criterion as the bank format asks; maximum 2 + 4 = 6 points.
VIVA_TWO_CRITERIA: dict[str, Any] = {
    **VIVA,
    "rubric": [
        {
            "criterion": "Mechanism",
            "levels": [
                {"label": "Missing", "points": 0, "descriptor": "No mention."},
                {"label": "Partial", "points": 1, "descriptor": "Adds up, no why."},
                {"label": "Full", "points": 2, "descriptor": "Sums over uses."},
            ],
        },
        {
            "criterion": "Practice",
            "levels": [
                {"label": "Missing", "points": 0, "descriptor": "No zeroing."},
                {"label": "Partial", "points": 2, "descriptor": "Zeroes sometimes."},
                {"label": "Full", "points": 4, "descriptor": "zero_grad each step."},
            ],
        },
    ],
}
