"""Reference pages for authors and examiners: the bank format and the item statistics, read
from the same files in docs/ that the repository documents them in, so they cannot differ."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from functools import lru_cache

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET

from quizbank.rendering import render_markdown

PAGES = {
    "bank-format": "bank-format.md",
    "interchange": "interchange.md",
    "statistics": "statistics.md",
}
TITLES = {
    "bank-format": "Bank format",
    "interchange": "Import and export (Moodle XML, GIFT, QTI)",
    "statistics": "Item statistics",
}
_TABLE = re.compile(r"<table>(.*?)</table>", re.DOTALL)
# A link from one of these docs to another (`interchange.md#images`) opens its page here.
_DOC_LINK = re.compile(r'href="([a-z-]+)\.md(#[^"]*)?"')


def _page_link(match: re.Match[str]) -> str:
    slug, anchor = match.group(1), match.group(2) or ""
    return f'href="/author/help/{slug}/{anchor}"' if slug in PAGES else match.group(0)


def _table_box(match: re.Match[str], count: Iterator[int]) -> str:
    # A table wider than a phone scrolls in its own box (reachable by keyboard) instead of
    # widening the whole page; each box is numbered, since regions of one name are
    # landmarks a screen reader cannot tell apart.
    label = f"Table {next(count)} (scrolls sideways)"
    return (
        f'<div class="table-wrap" role="region" aria-label="{label}" tabindex="0">'
        f"<table>{match.group(1)}</table></div>"
    )


@lru_cache(maxsize=len(PAGES))
def _rendered(name: str) -> str:
    html = render_markdown((settings.BASE_DIR / "docs" / PAGES[name]).read_text(encoding="utf-8"))
    count = itertools.count(1)
    return _DOC_LINK.sub(_page_link, _TABLE.sub(lambda match: _table_box(match, count), html))


@login_required
@require_GET
def reference_page(request: HttpRequest, name: str) -> HttpResponse:
    if name not in PAGES:
        raise Http404
    html = mark_safe(_rendered(name))  # noqa: S308 (nh3-sanitized in render_markdown)
    return render(request, "quizbank/reference.html", {"html": html, "title": TITLES[name]})
