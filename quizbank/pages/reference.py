"""Reference pages for authors and examiners: the bank format and the item statistics, read
from the same files in docs/ that the repository documents them in, so they cannot differ."""

from __future__ import annotations

from functools import lru_cache

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET

from quizbank.rendering import render_markdown

PAGES = {"bank-format": "bank-format.md", "statistics": "statistics.md"}


# A table wider than a phone scrolls in its own box (reachable by keyboard) instead of
# widening the whole page.
_TABLE_BOX = (
    '<div class="table-wrap" role="region" aria-label="Table (scrolls sideways)" tabindex="0">'
)


@lru_cache(maxsize=len(PAGES))
def _rendered(name: str) -> str:
    html = render_markdown((settings.BASE_DIR / "docs" / PAGES[name]).read_text(encoding="utf-8"))
    return html.replace("<table>", f"{_TABLE_BOX}<table>").replace("</table>", "</table></div>")


@login_required
@require_GET
def reference_page(request: HttpRequest, name: str) -> HttpResponse:
    if name not in PAGES:
        raise Http404
    html = mark_safe(_rendered(name))  # noqa: S308 (nh3-sanitized in render_markdown)
    return render(request, "quizbank/reference.html", {"html": html})
