"""The browser pages work on a closed exam network: every asset comes from the app itself
(KaTeX is bundled by `make install` from package-lock.json), still integrity-checked."""

from __future__ import annotations

import base64
import hashlib
import re

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse

from quizbank.services.versioning import question_snapshot
from tests.quizbank.factories import make_choice

# Any attribute or CSS url() that names a host: http://, https:// or protocol-relative //.
EXTERNAL = re.compile(
    r"""(?:\b(?:src|href|action|srcset)\s*=\s*["']?|url\(\s*["']?)\s*(?:[a-z]+:)?//"""
)
INTEGRITY = re.compile(r'(?:src|href)="(?P<url>[^"]+)"\s+integrity="sha384-(?P<digest>[^"]+)"')


@pytest.fixture
def pages(admin_client: Client) -> dict[str, str]:
    """Every server-rendered page, as an administrator (who sees the most) or anonymously."""
    choice = make_choice(correct=True, text="$x^2$", question__prompt="Rank of $x$?")
    question_snapshot(question=choice.question)
    preview = reverse("quizbank:question-preview", args=[choice.question.pk])
    replies = {
        "home": Client().get("/"),
        "preview": admin_client.get(preview),
        "admin login": Client().get(reverse("admin:login")),
        "admin index": admin_client.get(reverse("admin:index")),
        "admin questions": admin_client.get(reverse("admin:quizbank_question_changelist")),
        "API docs": admin_client.get("/api/docs/"),
    }
    assert {name: reply.status_code for name, reply in replies.items()} == dict.fromkeys(
        replies, 200
    )
    return {name: reply.content.decode() for name, reply in replies.items()}


def _sha384(path: str) -> str:
    with open(path, "rb") as asset:
        return base64.b64encode(hashlib.sha384(asset.read()).digest()).decode()


def test_no_page_references_another_host(pages: dict[str, str]) -> None:
    found = {name: EXTERNAL.findall(html) for name, html in pages.items()}

    assert found == dict.fromkeys(pages, [])


def test_the_preview_loads_katex_from_the_app_and_checks_its_integrity(
    pages: dict[str, str],
) -> None:
    pinned = {match["url"]: match["digest"] for match in INTEGRITY.finditer(pages["preview"])}
    prefix = f"{settings.STATIC_URL}vendor/katex/"

    assert sorted(pinned) == [f"{prefix}katex.min.css", f"{prefix}katex.min.js"]
    for url, digest in pinned.items():
        path = finders.find(url.removeprefix(settings.STATIC_URL))
        assert isinstance(path, str), f"{url} is not bundled: run `make install`"
        assert _sha384(path) == digest, f"{url} differs from the pinned version"


def test_every_font_the_katex_stylesheet_names_is_bundled_beside_it() -> None:
    stylesheet = finders.find("vendor/katex/katex.min.css")
    assert isinstance(stylesheet, str), "KaTeX is not bundled: run `make install`"
    with open(stylesheet, encoding="utf-8") as css:
        fonts = set(re.findall(r"url\((fonts/[^)]+)\)", css.read()))

    assert fonts
    assert [font for font in sorted(fonts) if not finders.find(f"vendor/katex/{font}")] == []
