"""Question contents (bank format as dicts) used by the examiner tests."""

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
NUMERIC: dict[str, Any] = {
    "type": "numeric",
    "title": "Derivative",
    "prompt": "dy/dx of x^2 + 5x + 2 at x = 3?",
    "answers": [{"value": 11, "tolerance": 0.001}],
}
CODE: dict[str, Any] = {
    "type": "code",
    "title": "Double it",
    "prompt": "Write `double(x)` returning 2x.",
    "entry_point": "double",
    "cases": [{"name": "small", "args": [{"tensor": [1.0, 2.0]}]}],
    "files": {"reference.py": "def double(x):\n    return x * 2\n"},
}
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
