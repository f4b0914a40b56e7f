"""Versioning: every change to a question's content becomes a new immutable version."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.db.models import Max

from config.locking import for_update
from quizbank.bankfiles import content_hash
from quizbank.models import Question, QuestionVersion
from quizbank.rendering import render_markdown
from quizbank.services.content import question_content


@transaction.atomic
def question_snapshot(
    *, question: Question, user: User | AnonymousUser | None = None
) -> QuestionVersion | None:
    """Record the question's current rows as a new version, unless its content is unchanged."""
    # The row lock serialises concurrent saves so version numbers never collide.
    locked = (
        for_update(Question)
        .prefetch_related("choices", "numeric_answers", "text_answers", "code_cases")
        .prefetch_related("code_files", "assets", "rubric_criteria__levels")
        .get(pk=question.pk)
    )
    content = question_content(locked)
    digest = content_hash(content)
    current = locked.current_version
    if current is not None and current.content_hash == digest:
        return None
    last = locked.versions.aggregate(last=Max("number"))["last"] or 0
    version = QuestionVersion.objects.create(
        question=locked,
        number=last + 1,
        content=content,
        content_hash=digest,
        prompt_html=render_markdown(content["prompt"]),
        created_by=user if user is not None and user.is_authenticated else None,
    )
    Question.objects.filter(pk=locked.pk).update(current_version=version)
    question.current_version = version
    return version
