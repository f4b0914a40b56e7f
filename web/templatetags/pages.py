"""Template filters of the pages."""

from django import template
from django.utils.safestring import SafeString, mark_safe

from grading.models import ResponseStatus
from quizbank import rendering
from quizbank.rendering import render_markdown

register = template.Library()


@register.filter
def markdown(text: object) -> SafeString:
    """An author's Markdown (feedback, descriptors) as sanitized HTML, math left for KaTeX."""
    return mark_safe(render_markdown(str(text or "")))  # noqa: S308 (nh3-sanitized in render_markdown)


@register.filter
def plain_text(html: object) -> str:
    """Rendered HTML as the text a screen reader falls back to: an accessible name where the
    rendered form has none (KaTeX's)."""
    return rendering.plain_text(str(html or ""))


@register.filter
def response_status(value: object) -> str:
    """A response's status as students read it ("needs_marking": "Waiting for an examiner")."""
    labels = dict(ResponseStatus.choices)
    return str(labels.get(str(value), value))
