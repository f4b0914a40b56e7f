"""What the schema promises about input is what the endpoints take: text they refuse
when blank says `minLength: 1`, and `?ordering=` names the orderings a list offers (both
once found by schemathesis sending schema-valid data that got a 400)."""

import re
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.api.conftest import World


@pytest.fixture
def openapi(db: None) -> dict[str, Any]:
    response = APIClient().get("/api/schema/?format=json")
    assert response.status_code == 200
    return dict(response.json())


@pytest.fixture
def author_api(world: World) -> APIClient:
    client = APIClient()
    client.force_authenticate(world.author)
    return client


def _ordering(openapi: dict[str, Any], path: str) -> dict[str, Any]:
    parameters = openapi["paths"][path]["get"]["parameters"]
    return next(p["schema"] for p in parameters if p["name"] == "ordering")


def test_it_says_a_course_title_may_not_be_blank(
    openapi: dict[str, Any], world: World, author_api: APIClient
) -> None:
    for component in ("CourseInput", "PatchedCourseInput"):
        title = openapi["components"]["schemas"][component]["properties"]["title"]
        assert title["minLength"] == 1
    url = f"/api/courses/{world.course.pk}/"
    response = author_api.patch(url, {"title": ""}, format="json")
    assert response.status_code == 400
    assert "title" in response.json()["error"]["fields"]


def test_it_leaves_blank_text_allowed_where_the_endpoint_takes_it(
    openapi: dict[str, Any],
) -> None:
    description = openapi["components"]["schemas"]["CourseInput"]["properties"]["description"]
    assert "minLength" not in description


def test_it_lists_the_orderings_a_list_offers(
    openapi: dict[str, Any], author_api: APIClient
) -> None:
    pattern = re.compile(_ordering(openapi, "/api/courses/")["pattern"])
    for ordering in ("slug", "-title", "title,-slug"):
        assert pattern.fullmatch(ordering)
        assert author_api.get("/api/courses/", {"ordering": ordering}).status_code == 200
    for ordering in ("moved", "slug,", "--slug", "id"):
        assert not pattern.fullmatch(ordering)
    assert author_api.get("/api/courses/", {"ordering": "moved"}).status_code == 400
