"""Authors writing one question in the browser or over the API: its content as bank-format
YAML (the form `bank_export` writes), checked by the same rules as a bank import, and saved
as a new version only when it changed."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from config.locking import for_update
from config.text import unstorable_text
from quizbank.bankfiles import canonicalize, schema
from quizbank.bankfiles.source import YamlSyntaxError, field_name, load_yaml
from quizbank.bankfiles.writer import dump_yaml
from quizbank.errors import QuestionChanged, QuestionInvalid, SlugTaken
from quizbank.models import Course, Question, QuestionAsset, QuestionVersion, Topic
from quizbank.services.bank_import import bank_write_question, question_problems
from quizbank.services.content import question_content

# An editor's whole question, reference solution included, fits well within this.
MAX_YAML_CHARS = 200_000


@dataclass(frozen=True)
class Saved:
    question: Question
    outcome: str  # "created", "updated", "moved" (to another topic only) or "unchanged"


def question_yaml(question: Question) -> str:
    """The question's current content as the YAML an author edits."""
    version = question.current_version
    content = version.content if version is not None else question_content(question)
    return dump_yaml(canonicalize(content))


def version_yaml(version: QuestionVersion) -> str:
    """One version's content as the YAML an author edits (to read, compare or start from)."""
    return dump_yaml(canonicalize(version.content))


def version_changes(version: QuestionVersion) -> list[str]:
    """What the version changed: a unified diff of its YAML against the version before it
    (empty for the first version)."""
    before = version.question.versions.filter(number__lt=version.number).order_by("-number")
    previous = before.first()
    if previous is None:
        return []
    return list(
        difflib.unified_diff(
            version_yaml(previous).splitlines(),
            version_yaml(version).splitlines(),
            fromfile=f"version {previous.number}",
            tofile=f"version {version.number}",
            lineterm="",
        )
    )


def content_from_yaml(text: str) -> dict[str, Any]:
    """The question a YAML text holds; QuestionInvalid (field `content`, with the line) when
    it is not one mapping of YAML."""
    if len(text) > MAX_YAML_CHARS:
        raise _invalid("content", f"is over {MAX_YAML_CHARS} characters")
    try:
        loaded = load_yaml(text)
    except YamlSyntaxError as error:
        raise _invalid("content", f"line {error.line}: {error.message}") from error
    if loaded.issues:  # a key given twice: which one did the author mean?
        issue = loaded.issues[0]
        where = f"line {loaded.source.line(issue.path)}: {field_name(issue.path)}"
        raise _invalid("content", f"{where} {issue.message}")
    data = loaded.data
    if not isinstance(data, dict):
        raise _invalid("content", "must be a mapping of fields (type: ..., title: ..., ...)")
    return data


def question_content_check(*, course: Course, text: str) -> None:
    """QuestionInvalid naming every rule the YAML `text` breaks as a question of `course`
    (what saving it would refuse in its content); nothing is written."""
    _check(content_from_yaml(text), course)


@transaction.atomic
def question_save(
    *,
    course: Course,
    topic_slug: str,
    content: dict[str, Any],
    user: User | None,
    question: Question | None = None,
    slug: str = "",
    edited_version: int | None = None,
) -> Saved:
    """Create a question named `slug` in `course` (question None), or store `content` as the
    next version of `question`; QuestionInvalid names every rule it breaks, SlugTaken a slug
    already in the course, QuestionChanged an edit of `edited_version` when a newer one was
    saved meanwhile. Attempts keep the version they drew, so an edit (even of the type)
    changes only what later attempts get."""
    topic = Topic.objects.filter(course=course, slug=topic_slug).first()
    if topic is None:
        raise _invalid("topic", f"the course has no topic {topic_slug!r}")
    if question is None:
        _check_slug(course, slug)
    else:
        _check_current(question, edited_version)
    _check(content, course)
    canonical = canonicalize(content)
    moved = question is not None and question.topic_id != topic.pk
    try:
        with transaction.atomic():  # a savepoint: a slug taken meanwhile leaves nothing
            outcome = bank_write_question(
                course=course,
                topic=topic,
                slug=slug,
                question=question,
                content=canonical,
                user=user,
            )
    except IntegrityError as error:  # the same slug created at the same moment
        raise _slug_taken() from error
    if outcome == "unchanged" and moved:
        outcome = "moved"
    saved = Question.objects.select_related("current_version", "topic").get(
        course=course, slug=question.slug if question is not None else slug
    )
    return Saved(saved, outcome)


def _slug_taken() -> SlugTaken:
    return SlugTaken(
        "The course has a question with this slug.", fields={"slug": ["Already taken."]}
    )


def _check_slug(course: Course, slug: str) -> None:
    if not schema.SLUG_RE.match(slug) or len(slug) > schema.MAX_QUESTION_SLUG:
        message = (
            f"lowercase letters, digits and single hyphens, at most {schema.MAX_QUESTION_SLUG}"
        )
        raise _invalid("slug", message)
    if Question.objects.filter(course=course, slug=slug).exists():
        raise _slug_taken()


def _check_current(question: Question, edited_version: int | None) -> None:
    """Refuse an edit begun from a version older than the current one (a second tab)."""
    current = (
        for_update(Question).select_related("current_version").get(pk=question.pk).current_version
    )
    number = current.number if current is not None else None
    if edited_version is not None and number is not None and edited_version != number:
        message = (
            f"This edit began from version {edited_version}, but the question is at version "
            f"{number}; reload it and make your change again."
        )
        raise QuestionChanged(message, fields={"version": [message]})


def _check(content: dict[str, Any], course: Course) -> None:
    # Text first: the other checks read names and sources (a NUL in a file name included).
    if unstorable_text(content):
        problems = ["content: text holds NUL characters or unpaired surrogates"]
    else:
        problems = question_problems(content)
    assets: dict[str, str] = content.get("assets", {}) if isinstance(content, dict) else {}
    if isinstance(assets, dict) and not problems:
        # Only an image this course's questions already show: the editor uploads none, and
        # another course's images are not this author's to reuse.
        digests = {str(digest) for digest in assets.values()}
        held = QuestionAsset.objects.filter(question__course=course, blob_id__in=digests)
        known = set(held.values_list("blob_id", flat=True))
        problems += [
            f"assets.{name}: no such image in this course's questions"
            for name, digest in sorted(assets.items())
            if str(digest) not in known
        ]
    if not problems:
        return
    fields: dict[str, list[str]] = {}
    for problem in problems:
        where, _, message = problem.partition(": ")
        fields.setdefault(f"content.{where}" if message else "content", []).append(message or where)
    first = problems[0]
    raise QuestionInvalid(f"The question breaks the bank's rules: {first}", fields=fields)


def _invalid(field: str, message: str) -> QuestionInvalid:
    return QuestionInvalid(f"{field}: {message}", fields={field: [message]})


# What "New question" starts from, one per type: valid as they stand, for the author to
# rewrite. (In the bank's own words: these are examples of the format, not course content.)
STARTERS: dict[str, dict[str, Any]] = {
    "single_choice": {
        "type": "single_choice",
        "title": "A new single-choice question",
        "prompt": "What does `torch.zeros(2, 3).shape` give?",
        "choices": [
            {"text": "`torch.Size([2, 3])`", "correct": True, "feedback": "Rows, then columns."},
            {"text": "`torch.Size([3, 2])`", "feedback": "The order is the one you passed."},
            {"text": "`6`", "feedback": "That is the number of elements, `numel()`."},
        ],
    },
    "multiple_choice": {
        "type": "multiple_choice",
        "title": "A new multiple-choice question",
        "prompt": "Which of these tensors are leaves? Select all that apply.",
        "scoring": "partial",
        "choices": [
            {"text": "`torch.ones(3, requires_grad=True)`", "correct": True},
            {"text": "`torch.ones(3)`", "correct": True},
            {"text": "`torch.ones(3, requires_grad=True) * 2`"},
        ],
    },
    "true_false": {
        "type": "true_false",
        "title": "A new true/false question",
        "prompt": "A tensor created by the user has `grad_fn` set to `None`.",
        "answer": True,
    },
    "numeric": {
        "type": "numeric",
        "title": "A new numeric question",
        "prompt": "How many elements does a tensor of shape `(4, 5, 6)` hold?",
        "answers": [{"value": 120, "feedback": "4 × 5 × 6."}],
    },
    "short_text": {
        "type": "short_text",
        "title": "A new short-text question",
        "prompt": "Which tensor method returns a copy with contiguous memory?",
        "answers": [{"text": "contiguous", "feedback": "Yes: `x.contiguous()`."}],
    },
    "code": {
        "type": "code",
        "title": "A new code question",
        "prompt": "Write `double(x)` that returns a new tensor twice `x`, leaving `x` as it is.",
        "entry_point": "double",
        "starter_code": "import torch\n\n\ndef double(x: torch.Tensor) -> torch.Tensor:\n    ...\n",
        "cases": [
            {"name": "three values", "args": [{"tensor": [1.0, -2.0, 0.5]}]},
            {
                "name": "random matrix",
                "seed": 1,
                "args": [{"random": [4, 3]}],
                "checks": ["purity"],
            },
        ],
        "files": {
            "reference.py": "import torch\n\n\ndef double(x):\n    return x * 2\n",
            "wrong_adds_two.py": "import torch\n\n\ndef double(x):\n    return x + 2\n",
        },
    },
    "viva": {
        "type": "viva",
        "title": "A new viva question",
        "mode": "written",
        "points": 3,
        "prompt": "Explain what `loss.backward()` does with the recorded graph.",
        "model_answer": "It walks the graph from the loss back to the leaves, applying the "
        "chain rule at each node, and adds each leaf's gradient into its `.grad`.",
        "rubric": [
            {
                "criterion": "The backward pass",
                "levels": [
                    {"label": "Missing", "points": 0, "descriptor": "No account of the pass."},
                    {"label": "Partial", "points": 1, "descriptor": "Names the chain rule only."},
                    {
                        "label": "Full",
                        "points": 2,
                        "descriptor": "From loss to leaves, into .grad.",
                    },
                ],
            }
        ],
    },
}


def starter_yaml(qtype: str) -> str:
    """A valid question of `qtype` to start from (a single-choice one for an unknown type)."""
    return dump_yaml(canonicalize(STARTERS.get(qtype, STARTERS["single_choice"])))
