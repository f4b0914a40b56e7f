"""Each rule of docs/bank-format.md, broken once: the error names file, line and field."""
# ruff: noqa: E501  -- the rule table keeps each YAML snippet and each expected error whole

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from quizbank.errors import BankInvalid
from quizbank.models import Course, Question
from quizbank.services.bank_import import bank_import

pytestmark = pytest.mark.django_db

SINGLE = "type: single_choice\ntitle: T\nprompt: P\nchoices:\n"
TF = "type: true_false\ntitle: T\nprompt: P\nanswer: true\n"
NUMERIC = "type: numeric\ntitle: T\nprompt: P\nanswers:\n"
TEXT = "type: short_text\ntitle: T\nprompt: P\nanswers:\n"
CODE = "type: code\ntitle: T\nprompt: P\nentry_point: f\ncases:\n"
CASE = "  - name: one\n    args: [1]\n"
REFERENCE = "def f(x):\n    return x\n"
WRONG = "# Mistake: off by one.\ndef f(x):\n    return x + 1\n"
VIVA = "type: viva\ntitle: T\nmode: written\nprompt: P\nmodel_answer: M\nrubric:\n"
LEVELS = (
    "    levels:\n"
    "      - {label: A, points: 0, descriptor: a}\n"
    "      - {label: B, points: 1, descriptor: b}\n"
    "      - {label: C, points: 2, descriptor: c}\n"
)


def code_question(yaml_text: str, **files: str | None) -> dict[str, str]:
    merged = {"reference.py": REFERENCE, "wrong_x.py": WRONG, **files}
    bank = {f"t/c/{name}": text for name, text in merged.items() if text is not None}
    return {"t/c/question.yaml": yaml_text, **bank}


# (rule, files of the bank, expected error: "<path relative to the bank>:<line> <field>: <text>")
RULES: list[tuple[str, dict[str, str], str]] = [
    (
        "yaml syntax",
        {"t/q.yaml": "type: true_false\ntitle: [unclosed\n"},
        "t/q.yaml:3 (file): not valid YAML",
    ),
    (
        "duplicate key",
        {"t/q.yaml": TF + "title: again\n"},
        "t/q.yaml:5 title: this key appears twice",
    ),
    (
        "unknown key",
        {"t/q.yaml": TF + "shufle: true\n"},
        "t/q.yaml:5 shufle: unknown key; allowed here: type, title",
    ),
    ("type required", {"t/q.yaml": "title: T\nprompt: P\n"}, "t/q.yaml:1 type: is required"),
    (
        "type enum",
        {"t/q.yaml": TF.replace("true_false", "essay")},
        "t/q.yaml:1 type: is not a question type",
    ),
    (
        "title required",
        {"t/q.yaml": "type: true_false\nprompt: P\nanswer: true\n"},
        "t/q.yaml:1 title: is required",
    ),
    (
        "title too long",
        {"t/q.yaml": TF.replace("title: T", "title: " + "x" * 201)},
        "t/q.yaml:2 title: is longer than 200 characters",
    ),
    (
        "prompt is text",
        {"t/q.yaml": TF.replace("prompt: P", "prompt: [a, b]")},
        "t/q.yaml:3 prompt: must be text",
    ),
    (
        "prompt not empty",
        {"t/q.yaml": TF.replace("prompt: P", "prompt: ''")},
        "t/q.yaml:3 prompt: must not be empty",
    ),
    (
        "difficulty enum",
        {"t/q.yaml": TF + "difficulty: hard\n"},
        "t/q.yaml:5 difficulty: must be one of: beginner, intermediate, advanced",
    ),
    (
        "tags are slugs",
        {"t/q.yaml": TF + "tags: [ok, Not Ok]\n"},
        "t/q.yaml:5 tags[1]: a tag is a lowercase slug",
    ),
    (
        "objectives are text",
        {"t/q.yaml": TF + "objectives:\n  - 3\n"},
        "t/q.yaml:6 objectives[0]: must be non-empty text",
    ),
    (
        "points at least zero",
        {"t/q.yaml": TF + "points: -1\n"},
        "t/q.yaml:5 points: must be a number >= 0",
    ),
    (
        "points two decimals",
        {"t/q.yaml": TF + "points: 1.125\n"},
        "t/q.yaml:5 points: may have at most two decimal places",
    ),
    (
        "dates need quotes",
        {"t/q.yaml": TF + "general_feedback: 2024-01-01\n"},
        "t/q.yaml:5 general_feedback: YAML read this as date",
    ),
    (
        "an impossible date is reported at its field",
        {"t/q.yaml": TF + "difficulty: 2026-13-45\n"},
        "t/q.yaml:5 difficulty: is not a real date (month must be in 1..12)",
    ),
    (
        "numbers are finite",
        {"t/q.yaml": NUMERIC + "  - value: .nan\n"},
        "t/q.yaml:5 answers[0].value: must be a finite number",
    ),
    (
        "a short-text question needs an answer that earns marks",
        {"t/q.yaml": TEXT + "  - text: a\n    fraction: 0\n  - text: b\n    fraction: 0\n"},
        "t/q.yaml:4 answers: no answer earns marks: at least one needs a fraction above 0",
    ),
    (
        "a numeric question needs an answer that earns marks",
        {"t/q.yaml": NUMERIC + "  - value: 2\n    fraction: 0\n"},
        "t/q.yaml:4 answers: no answer earns marks: at least one needs a fraction above 0",
    ),
    (
        "single choice: one correct",
        {"t/q.yaml": SINGLE + "  - text: a\n    correct: true\n  - text: b\n    correct: true\n"},
        "t/q.yaml:4 choices: a single-choice question needs exactly one correct choice",
    ),
    (
        "a choice that is only markup shows nothing",
        {
            "t/q.yaml": SINGLE
            + "  - text: <script>alert(4)</script>\n    correct: true\n  - text: b\n"
        },
        "t/q.yaml:5 choices[0].text: shows nothing once its HTML is made safe",
    ),
    (
        "a choice that is only an image whose source is removed shows nothing",
        {
            "t/q.yaml": SINGLE
            + "  - text: '<img src=\"data:image/png;base64,iVBORw0KGgo=\">'\n"
            + "    correct: true\n  - text: b\n"
        },
        "t/q.yaml:5 choices[0].text: shows nothing once its HTML is made safe",
    ),
    (
        "a prompt that is only markup shows nothing",
        {"t/q.yaml": TF.replace("prompt: P", "prompt: '<style>p {}</style>'")},
        "t/q.yaml:3 prompt: shows nothing once its HTML is made safe",
    ),
    (
        "choices that read the same",
        {"t/q.yaml": SINGLE + "  - text: A  b\n    correct: true\n  - text: a b\n"},
        "t/q.yaml:7 choices[1].text: the same text as choice 0: students could not tell them apart",
    ),
    (
        "single choice: none correct",
        {"t/q.yaml": SINGLE + "  - text: a\n  - text: b\n"},
        "t/q.yaml:4 choices: a single-choice question needs exactly one correct choice",
    ),
    (
        "multiple choice: one correct at least",
        {"t/q.yaml": SINGLE.replace("single", "multiple") + "  - text: a\n  - text: b\n"},
        "t/q.yaml:4 choices: a multiple-choice question needs at least one correct choice",
    ),
    (
        "two choices at least",
        {"t/q.yaml": SINGLE + "  - text: a\n    correct: true\n"},
        "t/q.yaml:4 choices: a choice question needs at least two choices",
    ),
    (
        "choices required",
        {"t/q.yaml": "type: single_choice\ntitle: T\nprompt: P\n"},
        "t/q.yaml:1 choices: is required",
    ),
    (
        "choice text required",
        {"t/q.yaml": SINGLE + "  - text: a\n    correct: true\n  - feedback: no text\n"},
        "t/q.yaml:7 choices[1].text: is required",
    ),
    (
        "correct is a boolean",
        {"t/q.yaml": SINGLE + "  - text: a\n    correct: yes please\n  - text: b\n"},
        "t/q.yaml:6 choices[0].correct: must be true or false",
    ),
    (
        "scoring enum",
        {
            "t/q.yaml": SINGLE.replace("single", "multiple")
            + "  - text: a\n    correct: true\n  - text: b\nscoring: some\n"
        },
        "t/q.yaml:8 scoring: must be one of: all_or_nothing, partial",
    ),
    (
        "scoring only for multiple choice",
        {"t/q.yaml": SINGLE + "  - text: a\n    correct: true\n  - text: b\nscoring: partial\n"},
        "t/q.yaml:8 scoring: unknown key",
    ),
    (
        "shuffle is a boolean",
        {"t/q.yaml": SINGLE + "  - text: a\n    correct: true\n  - text: b\nshuffle: maybe\n"},
        "t/q.yaml:8 shuffle: must be true or false",
    ),
    (
        "true/false answer required",
        {"t/q.yaml": "type: true_false\ntitle: T\nprompt: P\n"},
        "t/q.yaml:1 answer: is required",
    ),
    (
        "true/false answer boolean",
        {"t/q.yaml": TF.replace("answer: true", "answer: maybe")},
        "t/q.yaml:4 answer: must be true or false",
    ),
    (
        "numeric answers required",
        {"t/q.yaml": NUMERIC + "  []\n".replace("  []", "")},
        "t/q.yaml:4 answers: is required",
    ),
    (
        "numeric value is a number",
        {"t/q.yaml": NUMERIC + "  - value: eleven\n"},
        "t/q.yaml:5 answers[0].value: must be a number",
    ),
    (
        "numeric value within the size grading reads",
        {"t/q.yaml": NUMERIC + "  - value: 1.0e+200\n"},
        "t/q.yaml:5 answers[0].value: must be at most 1e+100 in size (1e+200 given)",
    ),
    (
        "numeric tolerance within the size grading reads",
        {"t/q.yaml": NUMERIC + "  - value: 11\n    tolerance: 1.0e+101\n"},
        "t/q.yaml:6 answers[0].tolerance: must be at most 1e+100 in size (1e+101 given)",
    ),
    (
        "numeric tolerance at least zero",
        {"t/q.yaml": NUMERIC + "  - value: 11\n    tolerance: -0.1\n"},
        "t/q.yaml:6 answers[0].tolerance: must be a number >= 0",
    ),
    (
        "numeric tolerance mode enum",
        {"t/q.yaml": NUMERIC + "  - value: 11\n    tolerance_mode: percent\n"},
        "t/q.yaml:6 answers[0].tolerance_mode: must be one of: absolute, relative",
    ),
    (
        "fraction between 0 and 1",
        {"t/q.yaml": NUMERIC + "  - value: 11\n    fraction: 2\n"},
        "t/q.yaml:6 answers[0].fraction: must be a number <= 1",
    ),
    (
        "short text: regex compiles",
        {"t/q.yaml": TEXT + "  - regex: '^(grad_fn$'\n"},
        "t/q.yaml:5 answers[0].regex: is not a valid regular expression",
    ),
    (
        "short text: regex compiles in the engine that grades",
        {"t/q.yaml": TEXT + "  - regex: '[[:letters:]]+'\n"},
        "t/q.yaml:5 answers[0].regex: is not a valid regular expression",
    ),
    (
        "short text: regex repeat count within bounds",
        {"t/q.yaml": TEXT + "  - regex: 'a{4294967296}'\n"},
        "t/q.yaml:5 answers[0].regex: is not a valid regular expression",
    ),
    (
        "text holds no control characters",
        {"t/q.yaml": TF.replace("title: T", 'title: "Bell \\a"')},
        "t/q.yaml:2 title: holds a control character (U+0007) at character 6; a one-line "
        "field takes no control characters, line breaks or bidi formatting",
    ),
    (
        "a title is one line",
        {"t/q.yaml": TF.replace("title: T", 'title: "two\\nlines"')},
        "t/q.yaml:2 title: holds a line break (U+000A) at character 4; a one-line "
        "field takes no control characters, line breaks or bidi formatting",
    ),
    (
        "a prompt takes line breaks but no other control character",
        {"t/q.yaml": TF.replace("prompt: P", 'prompt: "a\\nb\\x1b"')},
        "t/q.yaml:3 prompt: holds a control character (U+001B) at character 4; text takes "
        "no control characters but tab, newline and carriage return",
    ),
    (
        "short text: text or regex",
        {"t/q.yaml": TEXT + "  - text: a\n    regex: a\n"},
        "t/q.yaml:5 answers[0]: an answer needs exactly one of text or regex",
    ),
    (
        "short text: an accepted text is not blank",
        {"t/q.yaml": TEXT + '  - text: " `` "\n'},
        "t/q.yaml:5 answers[0].text: must not be empty (a blank answer would match it)",
    ),
    (
        "short text: whitespace enum",
        {"t/q.yaml": TEXT + "  - text: a\nwhitespace: squash\n"},
        "t/q.yaml:6 whitespace: must be one of: normalize, exact, ignore",
    ),
    (
        "short text: case_sensitive boolean",
        {"t/q.yaml": TEXT + "  - text: a\ncase_sensitive: 1\n"},
        "t/q.yaml:6 case_sensitive: must be true or false",
    ),
    (
        "code: must be a folder",
        {"t/q.yaml": CODE + CASE},
        "t/q.yaml:1 files: a code question needs reference.py",
    ),
    (
        "code: reference.py present",
        code_question(CODE + CASE, **{"reference.py": None}),
        "t/c/question.yaml:1 files: a code question needs reference.py",
    ),
    (
        "code: a wrong solution",
        code_question(CODE + CASE, **{"wrong_x.py": None}),
        "t/c/question.yaml:1 files: a code question needs at least one wrong_<name>.py",
    ),
    (
        "code: reference defines the entry point",
        code_question(CODE + CASE, **{"reference.py": "def g(x):\n    return x\n"}),
        "t/c/reference.py:1 reference.py: must define f at the top level",
    ),
    (
        "code: a correct alternative defines the entry point",
        code_question(CODE + CASE, **{"correct_y.py": "def g(x):\n    return x\n"}),
        "t/c/correct_y.py:1 correct_y.py: must define f at the top level",
    ),
    (
        "code: python parses",
        code_question(CODE + CASE, **{"wrong_x.py": "def f(x)\n    return x\n"}),
        "t/c/wrong_x.py:1 wrong_x.py: is not valid Python",
    ),
    (
        "code: only known files",
        code_question(CODE + CASE, **{"helper.py": "x = 1\n"}),
        "t/c/helper.py:1 (file): a question folder holds question.yaml",
    ),
    (
        "code: generator defines generate",
        code_question(CODE + CASE, **{"generate.py": "def make(rng):\n    return {}\n"}),
        "t/c/generate.py:1 generate.py: must define generate at the top level",
    ),
    (
        "code: entry point identifier",
        code_question(CODE.replace("entry_point: f", "entry_point: 2f") + CASE),
        "t/c/question.yaml:4 entry_point: must be a Python identifier",
    ),
    (
        "code: device enum",
        code_question(CODE + CASE + "device: tpu\n"),
        "t/c/question.yaml:8 device: must be one of cpu, cuda, any",
    ),
    (
        "code: limits positive",
        code_question(CODE + CASE + "limits:\n  memory_mb: 0\n"),
        "t/c/question.yaml:9 limits.memory_mb: must be a positive whole number",
    ),
    (
        "code: limits within what a worker can give",
        code_question(CODE + CASE + "limits:\n  time_s: 1.0e+300\n"),
        "t/c/question.yaml:9 limits.time_s: must be at most 120",
    ),
    (
        "code: memory within what a worker can give",
        code_question(CODE + CASE + "limits:\n  memory_mb: 1000000000000\n"),
        "t/c/question.yaml:9 limits.memory_mb: must be at most 16384",
    ),
    (
        "code: compare dtype enum",
        code_question(CODE + CASE + "compare:\n  dtype: loose\n"),
        "t/c/question.yaml:9 compare.dtype: must be strict or promotable",
    ),
    (
        "code: forbidden names",
        code_question(CODE + CASE + "forbidden: [torch softmax]\n"),
        "t/c/question.yaml:8 forbidden[0]: must be a qualified name",
    ),
    (
        "code: cases non-empty",
        code_question(CODE + "  []\n"),
        "t/c/question.yaml:5 cases: must be a non-empty list",
    ),
    (
        "code: case name required",
        code_question(CODE + "  - args: [1]\n"),
        "t/c/question.yaml:6 cases[0].name: is required",
    ),
    (
        "code: case names unique",
        code_question(CODE + CASE + CASE),
        "t/c/question.yaml:8 cases[1].name: two cases have this name",
    ),
    (
        "code: weight at least zero",
        code_question(CODE + CASE + "    weight: -1\n"),
        "t/c/question.yaml:8 cases[0].weight: must be a number from 0 to 1000",
    ),
    (
        "code: seed whole number",
        code_question(CODE + CASE + "    seed: 1.5\n"),
        "t/c/question.yaml:8 cases[0].seed: must be an integer in [0, 2**32)",
    ),
    (
        "code: unknown case key",
        code_question(CODE + CASE + "    expected: 3\n"),
        "t/c/question.yaml:8 cases[0].expected: unknown field; allowed: name, kind",
    ),
    (
        "code: check names known",
        code_question(CODE + CASE + "    checks: [gradient]\n"),
        "t/c/question.yaml:8 cases[0].checks[0].kind: unknown check 'gradient'",
    ),
    (
        "code: check mapping kind known",
        code_question(CODE + CASE + "    checks:\n      - {kind: speed}\n"),
        "t/c/question.yaml:9 cases[0].checks[0].kind: unknown check 'speed'",
    ),
    (
        "code: upstream gradient is sum, ones or a tensor value",
        code_question(CODE + CASE + "    checks:\n      - {kind: gradients, upstream: 2}\n"),
        "t/c/question.yaml:9 cases[0].checks[0].upstream: must be sum, ones or a {tensor: ...} or {random: ...} value",
    ),
    (
        "code: an upstream tensor value is checked like an argument",
        code_question(
            CODE
            + CASE
            + "    checks:\n      - {kind: gradients, upstream: {random: [2], dtype: float8}}\n"
        ),
        "t/c/question.yaml:9 cases[0].checks[0].upstream.dtype: unknown dtype 'float8'; use one of float16",
    ),
    (
        "code: efficiency check needs ratios",
        code_question(CODE + CASE + "    checks: [efficiency]\n"),
        "t/c/question.yaml:8 cases[0].checks: the efficiency check needs the question's efficiency ratios",
    ),
    (
        "code: value mapping form",
        code_question(CODE + "  - name: one\n    args:\n      - {data: [1, 2]}\n"),
        "t/c/question.yaml:8 cases[0].args[0]: a mapping value needs exactly one of tensor or random",
    ),
    (
        "code: tensor data rectangular",
        code_question(CODE + "  - name: one\n    args:\n      - {tensor: [[1, 2], [3]]}\n"),
        "t/c/question.yaml:8 cases[0].args[0].tensor: must be a number or a rectangular nested list",
    ),
    (
        "code: dtype known",
        code_question(CODE + "  - name: one\n    args:\n      - {tensor: [1.0], dtype: float8}\n"),
        "t/c/question.yaml:8 cases[0].args[0].dtype: unknown dtype 'float8'; use one of float16",
    ),
    (
        "code: random shape",
        code_question(CODE + "  - name: one\n    args:\n      - {random: [2, -1]}\n"),
        "t/c/question.yaml:8 cases[0].args[0].random: must be a shape",
    ),
    (
        "code: distribution known",
        code_question(
            CODE + "  - name: one\n    args:\n      - {random: [2], distribution: cauchy}\n"
        ),
        "t/c/question.yaml:8 cases[0].args[0].distribution: unknown distribution 'cauchy'; use one of normal, uniform, randint, bernoulli",
    ),
    (
        "code: requires_grad needs floats",
        code_question(
            CODE
            + "  - name: one\n    args:\n      - {random: [2], dtype: int64, requires_grad: true}\n"
        ),
        "t/c/question.yaml:8 cases[0].args[0].requires_grad: only floating tensors can require grad, not int64",
    ),
    (
        "code: training loss known",
        code_question(
            CODE
            + "  - name: train\n    kind: training\n    model: {linear: [2, 1]}\n    data: {x: {random: [4, 2]}, y: {random: [4, 1]}}\n    loss: hinge\n    optimizer: {sgd: {lr: 0.1}}\n    steps: 3\n    stages: [{check: runs}]\n"
        ),
        "t/c/question.yaml:10 cases[0].loss: unknown loss 'hinge'; use one of mse, bce_with_logits",
    ),
    (
        "code: training optimizer known",
        code_question(
            CODE
            + "  - name: train\n    kind: training\n    model: {linear: [2, 1]}\n    data: {x: {random: [4, 2]}, y: {random: [4, 1]}}\n    loss: mse\n    optimizer: {rmsprop: {lr: 0.1}}\n    steps: 3\n    stages: [{check: runs}]\n"
        ),
        "t/c/question.yaml:11 cases[0].optimizer.rmsprop: unknown optimizer; use sgd or adam",
    ),
    (
        "viva: mode enum",
        {"t/q.yaml": VIVA.replace("mode: written", "mode: video") + "  - criterion: C\n" + LEVELS},
        "t/q.yaml:3 mode: must be one of: written, oral",
    ),
    (
        "viva: model answer required",
        {"t/q.yaml": VIVA.replace("model_answer: M\n", "") + "  - criterion: C\n" + LEVELS},
        "t/q.yaml:1 model_answer: is required",
    ),
    (
        "viva: rubric non-empty",
        {"t/q.yaml": VIVA + "  []\n"},
        "t/q.yaml:6 rubric: must be a non-empty list",
    ),
    (
        "viva: three or four levels",
        {"t/q.yaml": VIVA + "  - criterion: C\n" + LEVELS.rsplit("      -", 1)[0]},
        "t/q.yaml:8 rubric[0].levels: a criterion needs 3 or 4 levels",
    ),
    (
        "viva: points rise",
        {"t/q.yaml": VIVA + "  - criterion: C\n" + LEVELS.replace("points: 2", "points: 1")},
        "t/q.yaml:8 rubric[0].levels: levels go from weakest to strongest: points must rise",
    ),
    (
        "viva: level points within the bank's range",
        {"t/q.yaml": VIVA + "  - criterion: C\n" + LEVELS.replace("points: 2", "points: 1.5e+308")},
        "t/q.yaml:11 rubric[0].levels[2].points: must be a number <= 9999.99",
    ),
    (
        "viva: level descriptor required",
        {"t/q.yaml": VIVA + "  - criterion: C\n" + LEVELS.replace(", descriptor: c", "")},
        "t/q.yaml:11 rubric[0].levels[2].descriptor: is required",
    ),
    ("file name is a slug", {"t/Q_1.yaml": TF}, "t/Q_1.yaml:1 (file): 'Q_1' is not a slug"),
    (
        "only yaml in topic folders",
        {"t/notes.txt": "hello"},
        "t/notes.txt:1 (file): a topic folder holds only <slug>.yaml files and folders",
    ),
    (
        "topic folders are listed",
        {"t/q.yaml": TF, "other/q2.yaml": TF},
        "bank.yaml:1 topics: the folder other/ is not a listed topic",
    ),
    (
        "slugs unique in the bank",
        {"t/q.yaml": TF, "t/q/question.yaml": TF},
        "t/q.yaml:1 (file): the slug q is also used by",
    ),
    (
        "reference.py only in code questions",
        {"t/q/question.yaml": TF, "t/q/reference.py": REFERENCE},
        "t/q/question.yaml:1 files: only code questions have reference.py",
    ),
    (
        "correct_*.py only in code questions",
        {"t/q/question.yaml": TF, "t/q/correct_y.py": REFERENCE},
        "t/q/question.yaml:1 files: only code questions have reference.py, correct_*.py and",
    ),
]


@pytest.mark.parametrize(
    ("files", "expected"), [(f, e) for _, f, e in RULES], ids=[r for r, _, _ in RULES]
)
def test_it_reports_the_broken_rule_with_file_line_and_field(
    small_bank: Callable[[dict[str, str]], Path], files: dict[str, str], expected: str
) -> None:
    root = small_bank(files)
    with pytest.raises(BankInvalid) as caught:
        bank_import(path=root)
    assert any(error.startswith(f"{root}/{expected}") for error in caught.value.errors), (
        caught.value.errors
    )
    assert not Course.objects.exists()


def test_it_accepts_each_rule_when_kept(small_bank: Callable[[dict[str, str]], Path]) -> None:
    files = {
        "t/q.yaml": TF,
        **code_question(
            CODE
            + CASE
            + "    checks:\n      - {kind: gradients, upstream: {random: [1]}}\n"
            + "efficiency:\n  max_time_ratio: 3\n"
        ),
        "t/v.yaml": VIVA + "  - criterion: C\n" + LEVELS,
    }
    report = bank_import(path=small_bank(files))
    assert (report.created, report.new_versions) == (3, 3)
    assert Question.objects.count() == 3


@pytest.mark.parametrize(
    ("bank_yaml", "expected"),
    [
        (
            "course:\n  slug: Small Bank\n  title: S\ntopics:\n  - slug: t\n    title: T\n",
            "bank.yaml:2 course.slug: must be lowercase",
        ),
        (
            "course:\n  slug: s\n  title: S\ntopics:\n  - slug: t\n    title: T\n  - slug: u\n    title: U\n",
            "bank.yaml:7 topics: topic u has no folder u/",
        ),
        (
            "course:\n  slug: s\n  title: S\n  owner: me\ntopics:\n  - slug: t\n    title: T\n",
            "bank.yaml:4 course.owner: unknown key",
        ),
        (
            "course:\n  slug: s\ntopics:\n  - slug: t\n    title: T\n",
            "bank.yaml:1 course.title: is required",
        ),
        (
            "course:\n  slug: s\n  title: S\ntopics:\n  - slug: t\n    title: T\n  - slug: t\n    title: Again\n",
            "bank.yaml:7 topics[1].slug: two topics have this slug",
        ),
    ],
    ids=[
        "course slug format",
        "listed topic has a folder",
        "unknown key",
        "course title required",
        "topic slugs unique",
    ],
)
def test_it_checks_bank_yaml(
    small_bank: Callable[[dict[str, str]], Path], bank_yaml: str, expected: str
) -> None:
    root = small_bank({"t/q.yaml": TF})
    (root / "bank.yaml").write_text(bank_yaml)
    with pytest.raises(BankInvalid) as caught:
        bank_import(path=root)
    assert any(error.startswith(f"{root}/{expected}") for error in caught.value.errors), (
        caught.value.errors
    )


def test_it_needs_bank_yaml(tmp_path: Path) -> None:
    with pytest.raises(BankInvalid) as caught:
        bank_import(path=tmp_path)
    assert caught.value.errors == [f"{tmp_path}/bank.yaml:1 (file): a bank needs bank.yaml"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("t/c/wrong_x.py", "t/c/wrong_x.py:2 (file): is not UTF-8 text"),
        ("t/c/question.yaml", "t/c/question.yaml:2 (file): is not UTF-8 text"),
        ("bank.yaml", "bank.yaml:2 (file): is not UTF-8 text"),
    ],
    ids=["code file", "question file", "bank.yaml"],
)
def test_a_file_that_is_not_utf8_is_an_error_at_its_line_not_a_crash(
    small_bank: Callable[[dict[str, str]], Path], name: str, expected: str
) -> None:
    root = small_bank(code_question(CODE + CASE))
    path = root / name
    lines = path.read_bytes().split(b"\n")
    lines[1] += "# café".encode("latin-1")
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(BankInvalid) as caught:
        bank_import(path=root)
    assert any(error.startswith(f"{root}/{expected}") for error in caught.value.errors), (
        caught.value.errors
    )
    assert not Course.objects.exists()
