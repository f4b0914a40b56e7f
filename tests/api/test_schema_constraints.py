"""What the schema promises about input is what the endpoints take: text they refuse
when blank says `minLength: 1`, text says which characters its kind refuses, a new
password how long it may be, and `?ordering=` names the orderings a list offers (each once
found by schemathesis sending schema-valid data that got a 400)."""

import re
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # the library ships no type hints
import pytest
from rest_framework.test import APIClient

from config.scopes import Scope
from lms.services.tokens import api_client_create, token_issue
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


def test_every_list_that_takes_an_ordering_names_the_orderings_it_offers(
    openapi: dict[str, Any],
) -> None:
    unnamed = [
        path
        for path, operations in openapi["paths"].items()
        for parameter in operations.get("get", {}).get("parameters", [])
        if parameter["name"] == "ordering" and "pattern" not in parameter["schema"]
    ]
    assert unnamed == []


def test_it_says_which_characters_a_one_line_title_refuses(
    openapi: dict[str, Any], world: World, author_api: APIClient
) -> None:
    pattern = re.compile(
        openapi["components"]["schemas"]["CourseInput"]["properties"]["title"]["pattern"]
    )
    assert pattern.fullmatch("Autograd, in depth")
    for refused in ("bell\x07", "two\nlines", "right\u202eto left", "c1\x9f"):
        assert not pattern.fullmatch(refused)
        url = f"/api/courses/{world.course.pk}/"
        assert author_api.patch(url, {"title": refused}, format="json").status_code == 400


def test_it_says_how_long_a_provisioned_password_may_be(openapi: dict[str, Any]) -> None:
    client = api_client_create(name="lms")
    api = APIClient()
    api.credentials(
        HTTP_AUTHORIZATION=f"Bearer {token_issue(client=client, scopes=Scope.values)[1]}"
    )
    password = openapi["components"]["schemas"]["UserInput"]["properties"]["password"]
    assert (password["minLength"], password["maxLength"]) == (8, 1000)
    reply = api.post(
        "/api/users/", {"external_id": "s-1", "password": "q7-Zx" * 201}, format="json"
    )
    assert reply.status_code == 400
    assert "password" in reply.json()["error"]["fields"]


def _pattern(openapi: dict[str, Any], component: str, field: str) -> re.Pattern[str]:
    return re.compile(openapi["components"]["schemas"][component]["properties"][field]["pattern"])


def _client_api() -> APIClient:
    client = api_client_create(name="lms")
    api = APIClient()
    api.credentials(
        HTTP_AUTHORIZATION=f"Bearer {token_issue(client=client, scopes=Scope.values)[1]}"
    )
    return api


def test_it_says_an_external_id_refuses_c1_control_characters(openapi: dict[str, Any]) -> None:
    pattern = _pattern(openapi, "UserInput", "external_id")
    api = _client_api()
    assert pattern.fullmatch("s-1@uni.example")
    assert (
        api.post("/api/users/", {"external_id": "s-1@uni.example"}, format="json").status_code
        == 201
    )
    for refused in (
        "c1\x85c1",
        "c1\x9fc1",
        "del\x7fdel",
        "rtl\u202eltr",
        "a/b",
        "a b",
        "b\ufeffom",
    ):
        assert not pattern.fullmatch(refused), refused
        reply = api.post("/api/users/", {"external_id": refused}, format="json")
        assert reply.status_code == 400, refused
        assert "external_id" in reply.json()["error"]["fields"]


def test_it_says_the_pattern_a_topic_slug_must_match(
    openapi: dict[str, Any], world: World, author_api: APIClient
) -> None:
    pattern = _pattern(openapi, "CourseTopicsInput", "slug")
    url = f"/api/courses/{world.course.pk}/topics/"
    assert pattern.fullmatch("autograd-basics")
    reply = author_api.post(url, {"title": "Autograd", "slug": "autograd-basics"}, format="json")
    assert reply.status_code == 201
    for refused in ("Tensors", "two--hyphens", "-edge", "snake_case", "é"):
        assert not pattern.fullmatch(refused), refused
        reply = author_api.post(url, {"title": refused, "slug": refused}, format="json")
        assert reply.status_code == 400, refused
        assert "slug" in reply.json()["error"]["fields"]


def test_it_says_which_access_codes_a_quiz_takes(
    openapi: dict[str, Any], world: World, author_api: APIClient
) -> None:
    code = openapi["components"]["schemas"]["AccessRules"]["properties"]["access_code"]
    pattern = re.compile(code["oneOf"][0]["pattern"])
    url = f"/api/quizzes/{world.quiz.pk}/access/"
    for taken in ("OWL-42", "hall B, row 3", "café"):
        assert pattern.fullmatch(taken)
        body: dict[str, Any] = {"access_code": taken, "allowed_networks": []}
        assert author_api.put(url, body, format="json").status_code == 200, taken
    for refused in ("no\u00a0break", "zero\u200bwidth", "c1\x9fc1", "soft\u00adhyphen"):
        assert not pattern.fullmatch(refused), refused
        body = {"access_code": refused, "allowed_networks": []}
        reply = author_api.put(url, body, format="json")
        assert reply.status_code == 400, refused
        assert "access_code" in reply.json()["error"]["fields"]


def test_it_says_which_networks_a_quiz_takes(
    openapi: dict[str, Any], world: World, author_api: APIClient
) -> None:
    networks = openapi["components"]["schemas"]["AccessRules"]["properties"]["allowed_networks"]
    pattern = re.compile(networks["items"]["pattern"])
    url = f"/api/quizzes/{world.quiz.pk}/access/"
    taken = ["10.2.0.0/16", "192.0.2.7", "2001:db8::/32", "::1", "fe80::1/64"]
    assert all(pattern.fullmatch(network) for network in taken)
    reply = author_api.put(url, {"access_code": "", "allowed_networks": taken}, format="json")
    assert reply.status_code == 200
    for refused in ("the lab", "10.2.0.0/33", "10.0.0.0/255.0.0.0", "300.1.1.1", "1::2::3"):
        assert not pattern.fullmatch(refused), refused
        body = {"access_code": "", "allowed_networks": ["10.2.0.0/16", refused]}
        reply = author_api.put(url, body, format="json")
        assert reply.status_code == 400, refused
        assert "allowed_networks[1]" in reply.json()["error"]["fields"], refused


def test_it_says_the_forms_and_bounds_of_a_duration(
    openapi: dict[str, Any], world: World, author_api: APIClient
) -> None:
    schemas = openapi["components"]["schemas"]
    time_limit = schemas["PatchedQuizInput"]["properties"]["time_limit"]
    assert time_limit["description"].endswith("From 1 second to 30 days.")
    grace = schemas["QuizCreateInput"]["properties"]["grace_period"]
    assert grace["description"].endswith("At most 30 days.")
    assert grace["pattern"] == time_limit["pattern"]
    pattern = re.compile(time_limit["pattern"])
    url = f"/api/quizzes/{world.quiz.pk}/"
    for taken in ("PT1H30M", "p1w", "P1,5D", "00:10:00", "1 02:00:00", "3 days 04:05:06", "1 day"):
        assert pattern.fullmatch(taken), taken
        reply = author_api.patch(url, {"time_limit": taken}, format="json")
        assert reply.status_code == 200, taken
    for refused in ("1 hour", "1h", "P1Y", "PT", "-PT10M", "+00:10:00", "P1W\t", "٣:٠٠"):
        assert not pattern.fullmatch(refused), refused
        reply = author_api.patch(url, {"time_limit": refused}, format="json")
        assert reply.status_code == 400, refused
        assert "time_limit" in reply.json()["error"]["fields"]
    # Below the bound the description gives: the pattern's form, refused by its size.
    reply = author_api.patch(url, {"time_limit": "PT0.5S"}, format="json")
    assert reply.status_code == 400
    assert "time_limit" in reply.json()["error"]["fields"]


def _shape(openapi: dict[str, Any], name: str) -> dict[str, Any]:
    return dict(openapi["components"]["schemas"][name])


def _json_schema(value: Any) -> Any:
    """OpenAPI 3.0's `nullable` as JSON Schema says it."""
    if isinstance(value, list):
        return [_json_schema(item) for item in value]
    if not isinstance(value, dict):
        return value
    converted = {key: _json_schema(item) for key, item in value.items()}
    if converted.pop("nullable", False):
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


def _validator(openapi: dict[str, Any], component: str) -> Any:
    components = _json_schema(openapi["components"]["schemas"])
    ref = {"$ref": f"#/components/schemas/{component}", "components": {"schemas": components}}
    return jsonschema.Draft7Validator(ref)


def test_it_says_a_slot_is_a_question_or_a_pool_and_what_it_may_be_worth(
    openapi: dict[str, Any], world: World, author_api: APIClient
) -> None:
    slots = openapi["components"]["schemas"]["PatchedQuizInput"]["properties"]["slots"]
    assert slots["items"]["$ref"].endswith("/SlotInput")
    shapes = [one["$ref"].rsplit("/", 1)[-1] for one in _shape(openapi, "SlotInput")["oneOf"]]
    fixed, pool = (_shape(openapi, name) for name in shapes)
    assert fixed["required"] == ["question"]
    assert fixed["properties"]["draw_count"]["maximum"] == 1
    assert fixed["properties"]["pool_tag"]["maxLength"] == 0
    assert [one["required"] for one in pool["anyOf"]] == [
        ["pool_tag"],
        ["pool_topic"],
        ["pool_difficulty"],
    ]
    assert pool["properties"]["question"] == {"nullable": True, "not": {}}
    for shape in (fixed, pool):
        points = shape["properties"]["points"]
        assert (points["type"], points["minimum"], points["maximum"]) == ("number", 0.01, 1000)
    url = f"/api/quizzes/{world.quiz.pk}/"
    question = world.quiz.slots.order_by("position").first().question_id  # type: ignore[union-attr]
    said = _validator(openapi, "SlotInput")
    taken = {"question": question, "points": 0.01}
    assert said.is_valid(taken)
    assert author_api.patch(url, {"slots": [taken]}, format="json").status_code == 200
    refused: list[tuple[dict[str, object], str]] = [
        ({"question": question, "points": 0}, "slots[0].points"),
        ({"question": question, "points": 0.001}, "slots[0].points"),
        ({"question": question, "pool_tag": "autograd"}, "slots[0]"),
        ({"question": question, "draw_count": 2}, "slots[0]"),
        ({"draw_count": 2}, "slots[0]"),
        ({"pool_tag": "", "pool_difficulty": ""}, "slots[0]"),
    ]
    for slot, field in refused:
        assert not said.is_valid(slot), slot
        reply = author_api.patch(url, {"slots": [slot]}, format="json")
        assert reply.status_code == 400, slot
        assert any(name.startswith(field) for name in reply.json()["error"]["fields"]), reply.json()
