"""The vocabulary of the bank file format (docs/bank-format.md) in one place."""

import re

from runner.contract import RUNNER_KEYS

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# A numeric answer of a parameterised question may be "{{name}}", filled by generate.py.
PARAM_RE = re.compile(r"^\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}$")

QUESTION_TYPES = (
    "single_choice",
    "multiple_choice",
    "true_false",
    "numeric",
    "short_text",
    "code",
    "viva",
)
DIFFICULTIES = ("beginner", "intermediate", "advanced")
SCORING_RULES = ("all_or_nothing", "partial")
TOLERANCE_MODES = ("absolute", "relative")
WHITESPACE_RULES = ("normalize", "exact", "ignore")
VIVA_MODES = ("written", "oral")

COMMON_KEYS = (
    "type",
    "title",
    "difficulty",
    "tags",
    "objectives",
    "points",
    "prompt",
    "general_feedback",
)
# Keys of each type beyond the common ones, in the order files are written.
TYPE_KEYS: dict[str, tuple[str, ...]] = {
    "single_choice": ("shuffle", "choices"),
    "multiple_choice": ("shuffle", "scoring", "choices"),
    "true_false": ("answer", "true_feedback", "false_feedback"),
    "numeric": ("answers", "unit"),
    "short_text": ("case_sensitive", "whitespace", "answers"),
    # The runner owns a code question's settings; the bank adds only the starter code.
    "code": (RUNNER_KEYS[0], "starter_code", *RUNNER_KEYS[1:]),
    "viva": ("mode", "model_answer", "guidance", "rubric"),
}
# Keys stored as rows of their own rather than in Question.settings.
ROW_KEYS = ("choices", "answers", "cases", "rubric")


QUESTION_FILE = "question.yaml"
ASSETS_FOLDER = "assets"  # a question folder's images (quizbank.assets)
BANK_FILE = "bank.yaml"

# Field limits of the database columns, checked before anything is written.
MAX_TITLE = 200
MAX_QUESTION_SLUG = 120
MAX_TOPIC_SLUG = 80
MAX_CODE_FILES = 30  # a code question's files: each solution is graded by a solution check
MAX_TEXT_ANSWER = 500
# The largest size of a numeric answer's value or tolerance, and of the number a student
# types (grading.scoring.numeric): far beyond any quantity a question asks for and far inside
# a float's range, so the tolerance arithmetic never overflows.
MAX_MAGNITUDE = 1e100
MAX_LEVEL_LABEL = 100
MAX_POINTS = 9999.99
