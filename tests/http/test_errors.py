"""The API's ``error`` codes come from one registry (``service.http.errors``): every ``ApiError`` in the service
names a registered code, werkzeug's errors answer with registered codes, and ``openapi.yaml`` carries the
registry as the enum of ``Error.error``, so that a generated client can switch on it."""

from __future__ import annotations

import ast
from pathlib import Path

from werkzeug.exceptions import default_exceptions

from service.http.app import spec
from service.http.errors import API_ERRORS, ERROR_CODES, HTTP_ERRORS, HTTP_STATUSES, http_error

SERVICE = Path(__file__).resolve().parents[2] / "service"


def api_error_codes() -> list[tuple[str, int, object]]:
    """(file, line, the code argument) of every ``ApiError(status, code, ...)`` under service/."""
    found: list[tuple[str, int, object]] = []
    for path in sorted(SERVICE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "ApiError"
                and len(node.args) >= 2
            ):
                code = node.args[1]
                found.append((path.name, node.lineno, code.value if isinstance(code, ast.Constant) else None))
    return found


def test_every_api_error_names_a_registered_code_as_a_literal():
    found = api_error_codes()
    assert len(found) > 30  # the scan sees them
    assert [f"{name}:{line}: {code!r}" for name, line, code in found if code not in API_ERRORS] == []


def test_werkzeugs_errors_answer_with_registered_codes(app):
    with app.test_request_context():
        for status in (*HTTP_STATUSES, 418, 451, 502):
            response = http_error(default_exceptions[status]())
            assert response.status_code == status
            assert response.json["error"] in ERROR_CODES, status
    assert HTTP_ERRORS[405] == "method_not_allowed" and HTTP_ERRORS[413] == "request_entity_too_large"


def test_the_registry_answers_what_the_app_answers(client):
    assert client.delete("/v1/games").json["error"] == "method_not_allowed"
    assert client.get("/v1/nothing-here").json["error"] == "not_found"
    assert client.get("/v1/matches/" + "0" * 32).json["error"] == "match_not_found"


def test_the_contract_lists_every_error_code_as_an_enum(app):
    error = spec(app)["components"]["schemas"]["Error"]["properties"]
    assert error["error"]["enum"] == sorted(ERROR_CODES)
    assert error["reason"] == {"$ref": "#/components/schemas/RefusalReason"}


def test_every_registered_code_is_described():
    assert [code for code, description in API_ERRORS.items() if not description.strip()] == []


def test_the_api_reference_lists_every_code():
    """A client reads the codes in the API reference's table: each one the server may answer is there."""
    reference = (SERVICE.parent / "docs" / "reference" / "api.md").read_text(encoding="utf-8")
    assert sorted(code for code in ERROR_CODES if f"`{code}`" not in reference) == []
