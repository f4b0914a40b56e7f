"""The browser pages work on a closed exam network: every asset comes from the app itself
(htmx, KaTeX and the pages' modules are bundled by `make install` from package-lock.json)."""

from __future__ import annotations

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


def test_no_page_references_another_host(pages: dict[str, str]) -> None:
    found = {name: EXTERNAL.findall(html) for name, html in pages.items()}

    assert found == dict.fromkeys(pages, [])


def test_every_page_loads_its_bundle_from_the_app(pages: dict[str, str]) -> None:
    bundle = [f"{settings.STATIC_URL}vendor/app/{name}" for name in ("site.css", "base.js")]
    site_pages = {name: html for name, html in pages.items() if name in ("home", "preview")}

    for name, html in site_pages.items():
        assert [url for url in bundle if f'"{url}"' not in html] == [], name
    for url in bundle:
        assert finders.find(url.removeprefix(settings.STATIC_URL)), f"{url}: run `make install`"


def test_every_font_the_stylesheet_names_is_bundled_beside_it() -> None:
    stylesheet = finders.find("vendor/app/site.css")
    assert isinstance(stylesheet, str), "the assets are not bundled: run `make install`"
    with open(stylesheet, encoding="utf-8") as css:
        fonts = set(re.findall(r"""url\(["']?(?:\./)?(fonts/[^)"']+)""", css.read()))

    assert fonts
    assert [font for font in sorted(fonts) if not finders.find(f"vendor/app/{font}")] == []
