"""The API docs page is complete on a closed network: every asset comes from the app."""

import re

import pytest
from django.test import Client, override_settings

pytestmark = pytest.mark.django_db


def test_the_docs_page_references_no_external_host() -> None:
    page = Client().get("/api/docs/").content.decode()

    urls = re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)""", page)
    assert urls, "the page loads its script and styles"
    assert not [url for url in urls if re.match(r"(https?:)?//", url)]
    assert not re.search(r"https?://(?!localhost|127\.0\.0\.1|testserver)", page)


def test_the_docs_assets_are_served_from_static_files() -> None:
    page = Client().get("/api/docs/").content.decode()

    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in page


@override_settings(DEBUG=True)  # served from the installed packages, as under `make run`
def test_the_app_itself_serves_the_docs_assets() -> None:
    reply = Client().get("/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")

    assert reply.status_code == 200
    assert b"SwaggerUIBundle" in b"".join(reply.streaming_content)  # type: ignore[attr-defined]


@pytest.mark.parametrize("method", ["options", "post", "delete"])
def test_a_method_the_docs_page_lacks_is_a_json_405(method: str) -> None:
    reply = Client(raise_request_exception=False).generic(method.upper(), "/api/docs/")

    assert reply.status_code == 405
    assert reply["Content-Type"].startswith("application/json")
    assert reply.json()["error"]["code"] == "method_not_allowed"
    assert "GET" in reply["Allow"]
