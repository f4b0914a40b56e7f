"""The vocabulary of the bank file format (docs/bank-format.md) in one place."""

import re

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
QUALIFIED_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")
# A numeric answer of a parameterised question may be "{{name}}", filled by generate.py.
PARAM_RE = re.compile(r"^\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}$")
WRONG_FILE_RE = re.compile(r"^wrong_[A-Za-z0-9_]+\.py$")
CORRECT_FILE_RE = re.compile(r"^correct_[A-Za-z0-9_]+\.py$")

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
DEVICES = ("cpu", "cuda", "any")
VIVA_MODES = ("written", "oral")
COMPARE_DTYPE_RULES = ("strict", "promotable")
DTYPES = ("float16", "bfloat16", "float32", "float64", "int32", "int64", "bool")
FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
DISTRIBUTIONS = ("normal", "uniform", "randint", "bernoulli")
CHECK_NAMES = (
    "gradients",
    "requires_grad",
    "is_leaf",
    "grad_accumulates",
    "purity",
    "no_graph",
    "determinism",
    "gradcheck",
    "efficiency",
    "retain_graph",
)
CASE_KINDS = ("call", "training")
LOSSES = ("mse", "bce_with_logits")
OPTIMIZERS = {"sgd": ("lr", "momentum", "weight_decay"), "adam": ("lr", "betas", "weight_decay")}
STAGE_CHECKS = ("runs", "loss_decreases", "matches_reference")

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
    "code": (
        "entry_point",
        "starter_code",
        "device",
        "limits",
        "compare",
        "forbidden",
        "efficiency",
        "cases",
    ),
    "viva": ("mode", "model_answer", "guidance", "rubric"),
}
# Keys stored as rows of their own rather than in Question.settings.
ROW_KEYS = ("choices", "answers", "cases", "rubric")

LIMIT_KEYS = ("time_s", "memory_mb", "output_kb")
COMPARE_KEYS = ("rtol", "atol", "dtype", "equal_nan", "check_device")
EFFICIENCY_KEYS = ("max_time_ratio", "max_memory_ratio")
CALL_CASE_KEYS = (
    "name",
    "kind",
    "weight",
    "hidden",
    "seed",
    "args",
    "kwargs",
    "checks",
    "compare",
    "compare_output",
)
TRAINING_CASE_KEYS = (
    "name",
    "kind",
    "weight",
    "hidden",
    "seed",
    "model",
    "data",
    "loss",
    "optimizer",
    "steps",
    "stages",
)
TENSOR_KEYS = ("tensor", "dtype", "requires_grad")
RANDOM_KEYS = ("random", "dtype", "distribution", "low", "high", "scale", "requires_grad")

REFERENCE_FILE = "reference.py"
GENERATOR_FILE = "generate.py"
QUESTION_FILE = "question.yaml"
BANK_FILE = "bank.yaml"

# Field limits of the database columns, checked before anything is written.
MAX_TITLE = 200
MAX_QUESTION_SLUG = 120
MAX_TOPIC_SLUG = 80
MAX_TEXT_ANSWER = 500
MAX_CASE_NAME = 200
MAX_LEVEL_LABEL = 100
MAX_POINTS = 9999.99
