"""Browser-test fixtures: a live server (pytest-django's, on the test database), a real
Celery worker on the test broker (config/celery_workers.py) and Debian's chromium driven by
Playwright; helpers to sign a user in, check a page with axe-core and take screenshots.

Every test here is marked `browser` and `integration` (select with `-m browser`). Without
chromium, Redis or PostgreSQL they skip locally and fail under CI=true.
"""

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, sync_playwright

from config.celery_workers import worker_processes
from tests.conftest import TEST_BROKER_URL, require_service

# Playwright's sync API runs an asyncio loop on this thread between its calls, which Django's
# ORM would take for async code; the test's own ORM calls are plain synchronous ones.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(settings.BASE_DIR) / "test-artifacts"
AXE = Path(settings.BASE_DIR) / "vendor" / "axe" / "axe.min.js"
DESKTOP: ViewportSize = {"width": 1280, "height": 900}
PHONE: ViewportSize = {"width": 375, "height": 812}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.integration)


def _missing(message: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Debian's chromium, headless; `make install` installs it."""
    if not CHROMIUM.exists():
        _missing(f"{CHROMIUM} is missing: run `make install` (apt-get install chromium)")
    if not AXE.exists():
        _missing(f"{AXE} is missing: run `make install`")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox"]
        )
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def grading_worker(django_db_setup: None) -> Iterator[None]:
    """One real worker (queues cpu and default) on the test broker and test database.

    It lives until the session ends and so also takes tasks of later tests on that broker,
    webhook deliveries included: like those tests' own workers, it may deliver to a receiver
    on 127.0.0.1 (else its refusals would count as the deliveries' failed tries)."""
    require_service("Redis", "127.0.0.1", 6379)
    env = {"WEBHOOK_ALLOWED_PRIVATE_HOSTS": "127.0.0.1"}
    with worker_processes(TEST_BROKER_URL, name="browser", env=env):
        yield


@dataclass
class Site:
    """The live site and the browser: open signed-in pages on it."""

    url: str
    browser: Browser

    def context(self, user: User | None = None, **options: Any) -> BrowserContext:
        """A fresh browser profile (cookies, localStorage), signed in as `user` if given."""
        context = self.browser.new_context(viewport=DESKTOP, base_url=self.url, **options)
        context.set_default_timeout(15_000)
        if user is not None:
            client = Client()
            client.force_login(user)
            cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
            name = settings.SESSION_COOKIE_NAME
            context.add_cookies([{"name": name, "value": cookie, "url": self.url}])
        return context

    def page(self, user: User | None = None, path: str = "/") -> Page:
        """A new page in a fresh context, at `path`."""
        page = self.context(user).new_page()
        page.goto(path)
        return page


@pytest.fixture
def site(live_server: Any, browser: Browser, grading_worker: None) -> Iterator[Site]:
    """The live server (transactional test database), a worker and the browser."""
    the_site = Site(url=str(live_server.url), browser=browser)
    yield the_site
    for context in browser.contexts:
        context.close()


@pytest.fixture
def demo(db: None) -> dict[str, User]:
    """The demo bank, users and quizzes of `make run` (fixtures/demo.yaml), by username."""
    from quizbank.services.demo_data import demo_load

    base = Path(settings.BASE_DIR)
    demo_load(path=base / "fixtures" / "demo.yaml", base_dir=base)
    return {user.username: user for user in User.objects.all()}


def assert_accessible(page: Page) -> None:
    """axe-core (injected from vendor/, never a CDN) finds no serious or critical violation."""
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("async () => (await axe.run(document)).violations")
    bad = [
        {"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]][:5]}
        for v in found
        if v["impact"] in ("serious", "critical")
    ]
    assert not bad, f"{page.url}: {json.dumps(bad, indent=1)}"


_WIDEST = """w => [...document.querySelectorAll('body *')]
  .filter(e => e.getBoundingClientRect().right > w).slice(0, 3)
  .map(e => e.outerHTML.slice(0, 80))"""


def assert_fits(page: Page, width: int) -> None:
    """The page scrolls only vertically at `width` CSS pixels."""
    scroll = int(page.evaluate("() => document.documentElement.scrollWidth"))
    widest = page.evaluate(_WIDEST, width)
    assert scroll <= width, f"{page.url} is {scroll}px wide at {width}px: {widest}"


def screenshots(page: Page, name: str) -> None:
    """Full-page shots at desktop width and at 375 px into test-artifacts/ (gitignored);
    at 375 px the page must not scroll sideways."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.set_viewport_size(DESKTOP)
    page.screenshot(path=str(ARTIFACTS / f"{name}-desktop.png"), full_page=True)
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(100)
    assert_fits(page, PHONE["width"])
    page.screenshot(path=str(ARTIFACTS / f"{name}-375.png"), full_page=True)
    page.set_viewport_size(DESKTOP)
