"""The OpenAPI schema generates without warnings and lists every API endpoint."""

import re
from io import StringIO
from typing import Any

from django.core.management import call_command
from django.urls import get_resolver
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema

# The API, and the quiz page's JSON endpoints for Run (web/code_runs.py).
DOCUMENTED = ("api/", "code-runs/")


def _api_paths() -> set[str]:
    def walk(patterns: list, prefix: str = "") -> set[str]:  # type: ignore[type-arg]  # URL patterns
        found: set[str] = set()
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if hasattr(pattern, "url_patterns"):
                found |= walk(pattern.url_patterns, route)
            elif route.startswith(DOCUMENTED) and "schema" not in route and "docs" not in route:
                found.add("/" + re.sub(r"<\w+:(\w+)>", r"{\1}", route))
        return found

    return walk(get_resolver().url_patterns)


def test_the_schema_is_valid_and_covers_every_endpoint() -> None:
    # drf-spectacular's generator and validator carry no type hints.
    generator = SchemaGenerator()  # type: ignore[no-untyped-call]
    schema = generator.get_schema(request=None, public=True)  # type: ignore[no-untyped-call]
    validate_schema(schema)  # type: ignore[no-untyped-call]
    assert _api_paths() <= set(schema["paths"])
    assert len(_api_paths()) >= 14


def test_the_spectacular_command_validates_with_no_warnings() -> None:
    out = StringIO()
    call_command("spectacular", "--validate", "--fail-on-warn", stdout=out)
    assert "openapi: 3" in out.getvalue()


def _schema() -> dict[str, Any]:
    generator = SchemaGenerator()  # type: ignore[no-untyped-call]  # untyped library
    schema: dict[str, Any] = generator.get_schema(request=None, public=True)  # type: ignore[no-untyped-call]
    return schema


def test_every_operation_documents_its_errors_in_the_one_shape() -> None:
    schema = _schema()
    error = schema["components"]["schemas"]["Error"]
    assert error["required"] == ["error"]
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            responses = operation["responses"]
            assert "400" in responses, (method, path)
            if path != "/api/auth/token/":
                assert {"401", "403"} <= set(responses), (method, path)
            if "{" in path:
                assert "404" in responses, (method, path)
            if method in ("post", "put") and path != "/api/auth/token/":
                assert "409" in responses, (method, path)
            for status, response in responses.items():
                if status[0] in "45":
                    ref = response["content"]["application/json"]["schema"]["$ref"]
                    assert ref == "#/components/schemas/Error", (method, path, status)


def test_throttled_operations_document_429_with_retry_after() -> None:
    paths = _schema()["paths"]
    for path in ("/api/auth/token/", "/api/code-runs/", "/code-runs/"):
        assert "Retry-After" in paths[path]["post"]["responses"]["429"]["headers"]


def test_every_operation_documents_the_503_to_retry() -> None:
    for path, operations in _schema()["paths"].items():
        for method, operation in operations.items():
            assert "Retry-After" in operation["responses"]["503"]["headers"], (method, path)


def test_ids_in_paths_are_documented_as_bounded_integers() -> None:
    parameters = _schema()["paths"]["/api/attempts/{attempt_id}/"]["get"]["parameters"]
    assert parameters[0]["schema"] == {"type": "integer", "minimum": 0, "maximum": 2**63 - 1}


def _ref(body: dict[str, Any]) -> str:
    return str(body["content"]["application/json"]["schema"]["$ref"]).rsplit("/", 1)[-1]


def test_the_quiz_pages_run_endpoints_document_their_bodies_and_errors() -> None:
    schema = _schema()
    start = schema["paths"]["/code-runs/"]["post"]
    poll = schema["paths"]["/code-runs/{job_id}/"]["get"]
    components = schema["components"]["schemas"]
    assert components[_ref(start["requestBody"])]["required"] == ["code"]
    assert set(start["responses"]) == {
        "202",
        *("400", "401", "403", "404", "409", "411", "413", "415", "429", "503"),
    }
    assert components[_ref(start["responses"]["202"])]["required"] == ["job"]
    assert {"200", "401", "403", "404"} <= set(poll["responses"])
    shapes = [
        one["$ref"].rsplit("/", 1)[-1]
        for one in components[_ref(poll["responses"]["200"])]["oneOf"]
    ]
    pending, finished = (components[name]["required"] for name in shapes)
    assert pending == ["finished"]
    assert {"finished", "status", "stdout", "stderr", "exit_code"} <= set(finished)


def test_a_duration_field_documents_every_form_it_takes() -> None:
    schemas = _schema()["components"]["schemas"]
    for component in ("QuizCreateInput", "PatchedQuizInput"):
        for name in ("time_limit", "grace_period"):
            field = schemas[component]["properties"][name]
            assert field["type"] == "string"
            for example in ("P1W", "PT1H30M", "00:10:00", "3 days 04:05:06"):
                assert example in field["description"], (component, name)
