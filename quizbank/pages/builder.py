"""The quiz builder (authors): settings, then fixed questions and pools from the bank."""

from datetime import timedelta
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from config.exceptions import DomainError
from quizbank.access import AUTHORS, access_course, access_quiz
from quizbank.models import Course, GradingMethod, Quiz, ReleasePolicy
from quizbank.services.quiz_builder import QuizInput, SlotInput, quiz_save, quiz_slots_set


class QuizForm(forms.Form):
    title = forms.CharField(max_length=200)
    slug = forms.SlugField(max_length=80)
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    minutes = forms.IntegerField(
        required=False, min_value=1, max_value=10000, label="Time limit in minutes (empty: untimed)"
    )
    opens_at = forms.DateTimeField(
        required=False, label="Opens", widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )
    closes_at = forms.DateTimeField(
        required=False, label="Closes", widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )
    attempts_allowed = forms.IntegerField(
        min_value=0, max_value=100, initial=1, label="Attempts (0: unlimited)"
    )
    grading_method = forms.ChoiceField(choices=GradingMethod.choices)
    shuffle_questions = forms.BooleanField(required=False)
    shuffle_choices = forms.BooleanField(required=False, initial=True)
    release_policy = forms.ChoiceField(choices=ReleasePolicy.choices)
    questions = forms.MultipleChoiceField(
        required=False, widget=forms.CheckboxSelectMultiple, label="Fixed questions"
    )
    pool_topic = forms.ChoiceField(required=False, label="Also draw from topic")
    pool_draw = forms.IntegerField(required=False, min_value=1, max_value=100, label="How many")

    def __init__(self, course: Course, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        bank = course.questions.filter(current_version__isnull=False).order_by("slug")
        self.fields["questions"].choices = [(str(q.pk), f"{q.title} ({q.type})") for q in bank]  # type: ignore[attr-defined]  # a ChoiceField
        topics = [("", "no pool")] + [(str(t.pk), t.title) for t in course.topics.all()]
        self.fields["pool_topic"].choices = topics  # type: ignore[attr-defined]  # a ChoiceField


def _initial(quiz: Quiz) -> dict[str, Any]:
    fixed = [str(s.question_id) for s in quiz.slots.all() if s.question_id]
    minutes = int(quiz.time_limit.total_seconds() // 60) if quiz.time_limit else None
    names = [
        "title",
        "slug",
        "description",
        "opens_at",
        "closes_at",
        "attempts_allowed",
        "grading_method",
        "shuffle_questions",
        "shuffle_choices",
        "release_policy",
    ]
    return {**{n: getattr(quiz, n) for n in names}, "minutes": minutes, "questions": fixed}


def _save(course: Course, quiz: Quiz | None, data: dict[str, Any]) -> Quiz:
    limit = timedelta(minutes=data["minutes"]) if data["minutes"] else None
    settings = QuizInput(
        slug=data["slug"],
        title=data["title"],
        description=data["description"],
        time_limit=limit,
        opens_at=data["opens_at"],
        closes_at=data["closes_at"],
        attempts_allowed=data["attempts_allowed"],
        grading_method=data["grading_method"],
        shuffle_questions=data["shuffle_questions"],
        shuffle_choices=data["shuffle_choices"],
        release_policy=data["release_policy"],
    )
    slots = [SlotInput(question_id=int(pk)) for pk in data["questions"]]
    if data["pool_topic"]:
        slots.append(
            SlotInput(pool_topic_id=int(data["pool_topic"]), draw_count=data["pool_draw"] or 1)
        )
    saved = quiz_save(course=course, quiz=quiz, data=settings)
    quiz_slots_set(quiz=saved, slots=slots)
    return saved


def _page(request: HttpRequest, course: Course, quiz: Quiz | None) -> HttpResponse:
    initial = _initial(quiz) if quiz else {}
    form = QuizForm(course, request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            saved = _save(course, quiz, form.cleaned_data)
            messages.success(request, f"Saved {saved.title}.")
            return redirect("quizbank-pages:quiz-edit", quiz_id=saved.pk)
        except DomainError as refused:
            for name, problems in refused.fields.items():
                form.add_error(name if name in form.fields else None, "; ".join(problems))
            form.add_error(None, refused.message)
    return render(
        request, "quizbank/author/builder.html", {"form": form, "course": course, "quiz": quiz}
    )


@login_required
@require_http_methods(["GET", "POST"])
def quiz_create_page(request: HttpRequest, course_id: int) -> HttpResponse:
    """A new quiz in the course (authors)."""
    return _page(request, access_course(request.user, course_id, roles=AUTHORS), None)


@login_required
@require_http_methods(["GET", "POST"])
def quiz_edit_page(request: HttpRequest, quiz_id: int) -> HttpResponse:
    """Edit a quiz's settings and slots (authors); past attempts keep what they drew."""
    quiz = access_quiz(request.user, quiz_id, roles=AUTHORS)
    return _page(request, quiz.course, quiz)
