"""Read a question version's content (the bank file format as a dict) and its variant.

Code files may be stored as a `files` mapping of name to source, a list of
`{name, kind, source}` rows, or top-level `reference`/`generator` keys; these
helpers accept each so grading does not depend on one serialisation.
"""

import re
from typing import Any

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def code_files(content: dict[str, Any]) -> dict[str, str]:
    """A code question's files, name to source, however the content stores them."""
    files = content.get("files") or content.get("code_files") or {}
    if isinstance(files, list):
        return {str(row.get("name", "")): str(row.get("source", "")) for row in files}
    return {str(name): str(source) for name, source in dict(files).items()}


def file_source(content: dict[str, Any], *, name: str, key: str) -> str | None:
    """The source of file `name` (e.g. generate.py), or the top-level `key`, if present."""
    direct = content.get(key)
    if isinstance(direct, str) and direct.strip():
        return direct
    if isinstance(direct, dict) and direct.get("source"):
        return str(direct["source"])
    source = code_files(content).get(name)
    return source if source and source.strip() else None


def generator_source(content: dict[str, Any]) -> str | None:
    return file_source(content, name="generate.py", key="generator")


def reference_source(content: dict[str, Any]) -> str:
    return file_source(content, name="reference.py", key="reference") or ""


def substitute(value: Any, values: dict[str, Any]) -> Any:
    """Replace `{{name}}` placeholders everywhere in a JSON value.

    A string that is exactly one placeholder becomes the raw value (so a
    numeric answer or a tensor shape keeps its type); otherwise it is text.
    """
    if isinstance(value, str):
        whole = _PLACEHOLDER.fullmatch(value.strip())
        if whole and whole.group(1) in values:
            return values[whole.group(1)]
        return _PLACEHOLDER.sub(lambda m: _text(values, m), value)
    if isinstance(value, list):
        return [substitute(item, values) for item in value]
    if isinstance(value, dict):
        return {key: substitute(item, values) for key, item in value.items()}
    return value


def _text(values: dict[str, Any], match: re.Match[str]) -> str:
    name = match.group(1)
    return str(values[name]) if name in values else match.group(0)


def variant_content(
    content: dict[str, Any], params: dict[str, Any], answers: dict[str, Any]
) -> dict[str, Any]:
    """The content as this variant's student saw it, with generated answers filled in."""
    if not params and not answers:
        return content
    result: dict[str, Any] = substitute(content, {**answers, **params})
    return result
