"""Authors' question pages: a course's bank, and one question written as bank-format YAML
(new, or its next version), checked by the same rules as an import."""

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from config.exceptions import DomainError
from config.fields import id_from_text
from quizbank.access import AUTHORS, access_course, access_question
from quizbank.bankfiles import schema
from quizbank.models import Course, Question, QuestionType, QuestionVersion
from quizbank.selectors import course_questions, question_versions
from quizbank.services.question_authoring import (
    MAX_YAML_CHARS,
    STARTERS,
    content_from_yaml,
    question_content_check,
    question_save,
    question_yaml,
    starter_yaml,
    version_changes,
    version_yaml,
)
from quizbank.services.topics import MAX_TITLE, topic_create

NO_TOPIC = (
    "This course has no topic yet, and every question belongs to one: add a topic on the "
    "course's question list first."
)


class _TextWithLines(forms.CharField):
    """Text whose line breaks count one character each, as the browser's maxlength counts
    them: a form sends them as CR LF."""

    def to_python(self, value: Any) -> str | None:
        text = super().to_python(value)
        return text.replace("\r\n", "\n") if isinstance(text, str) else text


class QuestionForm(forms.Form):
    slug = forms.RegexField(
        regex=schema.SLUG_RE,
        max_length=80,
        help_text="Its name in the bank: lowercase letters and digits, words joined by hyphens.",
        error_messages={
            "invalid": "Use lowercase letters and digits, words joined by single hyphens "
            "(autograd-leaf-tensors)."
        },
    )
    topic = forms.ChoiceField(choices=[])
    content = _TextWithLines(
        label="The question (bank-format YAML)",
        max_length=MAX_YAML_CHARS,
        strip=False,
        widget=forms.Textarea(
            attrs={"rows": 30, "spellcheck": "false", "class": "code-text", "wrap": "off"}
        ),
        # Django shows help text as HTML: the file name pattern is escaped here.
        help_text='The fields of the <a href="/author/help/bank-format/">bank format</a>; '
        "a code question's files go under "
        "<code>files:</code> (reference.py and at least one wrong_&lt;name&gt;.py).",
    )

    version = forms.IntegerField(
        widget=forms.HiddenInput,
        min_value=1,
        error_messages=dict.fromkeys(
            ("required", "invalid", "min_value"),
            "This page did not say which version it edits: copy your text, reload the page "
            "and save again.",
        ),
    )

    def __init__(self, *args: Any, course: Course, new: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        topics = course.topics.order_by("position")
        self.fields["topic"] = forms.ChoiceField(
            choices=[(t.slug, t.title) for t in topics],
            help_text="" if topics else NO_TOPIC,
            error_messages={"required": NO_TOPIC if not topics else "Choose the topic."},
        )
        if new:
            del self.fields["version"]
        else:
            del self.fields["slug"]


def _user(request: HttpRequest) -> User | None:
    return request.user if isinstance(request.user, User) else None


def _put_on_form(form: QuestionForm, refused: DomainError) -> None:
    for name, problems in (refused.fields or {"content": [refused.message]}).items():
        shown = name in form.fields and not form.fields[name].widget.is_hidden
        field = name if shown else "content"
        for problem in problems:
            where = "" if field == name else f"{name.removeprefix('content.')}: "
            form.add_error(field, f"{where}{problem}")


def _refuse_content_too(form: QuestionForm, course: Course) -> None:
    """A form refused for its slug or topic also says what is wrong with its YAML, so the
    author does not fix one field only to meet the next refusal."""
    if "content" in form.errors:
        return
    try:
        question_content_check(course=course, text=str(form.data.get("content", "")))
    except DomainError as refused:
        _put_on_form(form, refused)


def _save(
    request: HttpRequest, form: QuestionForm, course: Course, question: Question | None
) -> Question | None:
    """The saved question, or None with the refusal put on the form's fields."""
    if not form.is_valid():
        _refuse_content_too(form, course)
        return None
    try:
        content = content_from_yaml(form.cleaned_data["content"])
        saved = question_save(
            course=course,
            question=question,
            slug=form.cleaned_data.get("slug", ""),
            edited_version=form.cleaned_data.get("version"),
            topic_slug=form.cleaned_data["topic"],
            content=content,
            user=_user(request),
        )
    except DomainError as refused:
        _put_on_form(form, refused)
        return None
    done = {
        "created": "Created",
        "updated": "Saved a new version of",
        "moved": "Moved to another topic:",
        "unchanged": "No change to",
    }
    messages.success(request, f"{done[saved.outcome]} {saved.question.title}.")
    return saved.question


@login_required
@require_http_methods(["GET", "POST"])
def question_list_page(request: HttpRequest, course_id: int) -> HttpResponse:
    """The course's questions, by topic, filtered by topic and type; POST adds a topic."""
    course = access_course(request.user, course_id, roles=AUTHORS)
    refused_topic = None
    if request.method == "POST":
        title = request.POST.get("title", "")[:400]
        try:
            added = topic_create(course=course, title=title)
        except DomainError as refused:
            # Shown beside the field with the title as typed, rather than lost to a redirect.
            refused_topic = {"title": title, "error": refused.message}
        else:
            messages.success(request, f"Added the topic {added.title}.")
            return redirect("quizbank-pages:question-list", course_id=course.pk)
    questions = course_questions(course)
    topics = list(course.topics.order_by("position"))
    topic, qtype = request.GET.get("topic", ""), request.GET.get("type", "")
    # Only a known value filters: anything else (a typo, hostile bytes) shows every question.
    if topic in {t.slug for t in topics}:
        questions = questions.filter(topic__slug=topic)
    if qtype in QuestionType.values:
        questions = questions.filter(type=qtype)
    context = {
        "course": course,
        "questions": questions,
        "topics": topics,
        "types": QuestionType.choices,
        "chosen": {"topic": topic, "type": qtype},
        "max_title": MAX_TITLE,
        "refused_topic": refused_topic,
    }
    return render(request, "quizbank/author/questions.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def question_create_page(request: HttpRequest, course_id: int) -> HttpResponse:
    """A new question, started from an example of the chosen type."""
    course = access_course(request.user, course_id, roles=AUTHORS)
    qtype = request.GET.get("type", "single_choice")
    if request.method == "POST":
        form = QuestionForm(request.POST, course=course, new=True)
        saved = _save(request, form, course, None)
        if saved is not None:
            return redirect("quizbank-pages:question-edit", question_id=saved.pk)
        qtype = _written_type(request.POST.get("content", "")) or qtype
    else:
        form = QuestionForm(course=course, new=True, initial={"content": starter_yaml(qtype)})
    context = {
        "course": course,
        "form": form,
        "types": [(value, label) for value, label in QuestionType.choices if value in STARTERS],
        "chosen_type": qtype,
    }
    return render(request, "quizbank/author/question_edit.html", context)


def _written_type(text: str) -> str | None:
    """The type the author's refused text names, for the example selector to keep (rather
    than go back to the page address's type); None when the text names no type of example."""
    try:
        qtype = content_from_yaml(text).get("type")
    except DomainError:
        return None
    return qtype if isinstance(qtype, str) and qtype in STARTERS else None


@login_required
@require_http_methods(["GET", "POST"])
def question_edit_page(request: HttpRequest, question_id: int) -> HttpResponse:
    """The question's current content to edit; saving it makes the next version."""
    question = access_question(request.user, question_id)
    course = question.course
    if request.method == "POST":
        form = QuestionForm(request.POST, course=course, new=False)
        if _save(request, form, course, question) is not None:
            return redirect("quizbank-pages:question-edit", question_id=question.pk)
    else:
        current = question.current_version
        start = _start_version(request, question)
        initial = {
            "topic": question.topic.slug,
            "content": question_yaml(question) if start is None else version_yaml(start),
            "version": current.number if current is not None else None,
        }
        form = QuestionForm(course=course, new=False, initial=initial)
    context = {
        "course": course,
        "question": question,
        "form": form,
        "versions": question_versions(question)[:MAX_VERSIONS_LISTED],
        "version_count": question.versions.count(),
        "start": start if request.method == "GET" else None,
    }
    return render(request, "quizbank/author/question_edit.html", context)


# The newest versions the editor lists; older ones are a link from the oldest listed away.
MAX_VERSIONS_LISTED = 20


def _start_version(request: HttpRequest, question: Question) -> QuestionVersion | None:
    """The earlier version the form starts from (`?from_version=N`), to bring it back as the
    next version; None (the current content) for anything else."""
    number = id_from_text(request.GET.get("from_version", ""))
    current = question.current_version
    if number is None or current is None or number == current.number:
        return None
    return question.versions.filter(number=number).first()


@login_required
@require_GET
def question_version_page(request: HttpRequest, question_id: int, number: int) -> HttpResponse:
    """One version as it was saved, and what it changed from the version before it."""
    question = access_question(request.user, question_id)
    version = get_object_or_404(question_versions(question), number=number)
    context = {
        "course": question.course,
        "question": question,
        "version": version,
        "changes": version_changes(version),
        "content": version_yaml(version),
        "current": question.current_version,
    }
    return render(request, "quizbank/author/question_version.html", context)
