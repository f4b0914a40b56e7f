"""Question assets: the images a question's text shows. What an image is (sniffed from its
bytes, never from its name), how large it may be, and the URL our text refers to it by.

A question's content lists its assets as `{"assets": {name: sha256}}`; the bytes are
stored once per hash (AssetBlob) and served by `quizbank.views.question_asset`."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

# Per image, and for all of one question's images together.
MAX_ASSET_BYTES = 1024 * 1024
MAX_QUESTION_ASSET_BYTES = 2 * 1024 * 1024
MAX_ASSET_NAME = 120
ASSET_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._ -]*$")
SHA256_RE = re.compile(r"^[0-9a-f]{64}$")
ASSET_URL_PREFIX = "/question-assets/"
# An asset's URL as it appears in a question's text: /question-assets/<sha256>/<quoted name>.
ASSET_URL_RE = re.compile(r"/question-assets/([0-9a-f]{64})/([^\"'\s<>()]*)")
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


class AssetRefused(ValueError):
    """An embedded file that is not kept as an asset; the message says which and why."""


def sniff_image(data: bytes) -> str | None:
    """The image type the bytes begin with (PNG, JPEG, GIF, WebP), or None for anything else
    (SVG and HTML included: they can carry scripts)."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def asset_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def checked_image(name: str, data: bytes) -> str:
    """The sniffed content type of an embedded file; raises AssetRefused for a file that is
    not a kept image, too large, or badly named."""
    if len(name) > MAX_ASSET_NAME or not ASSET_NAME_RE.match(name):
        raise AssetRefused(
            f"file name {name!r}: use letters, digits, spaces, '.', '_' and '-' "
            f"(at most {MAX_ASSET_NAME} characters)"
        )
    if len(data) > MAX_ASSET_BYTES:
        raise AssetRefused(
            f"file {name} is {len(data)} bytes; an image may have {MAX_ASSET_BYTES} bytes"
        )
    content_type = sniff_image(data)
    if content_type is None:
        raise AssetRefused(
            f"file {name} is not a PNG, JPEG, GIF or WebP image (judged by its bytes, "
            "not its name); only those are kept"
        )
    return content_type


def check_question_total(sizes: list[int]) -> None:
    if sum(sizes) > MAX_QUESTION_ASSET_BYTES:
        raise AssetRefused(
            f"its images come to {sum(sizes)} bytes; a question may have "
            f"{MAX_QUESTION_ASSET_BYTES} bytes of images"
        )


def asset_url(digest: str, name: str) -> str:
    return f"{ASSET_URL_PREFIX}{digest}/{quote(name)}"


def asset_problems(assets: object) -> list[str]:
    """What is wrong with a content's `assets` mapping (name to sha256), one line each."""
    if not isinstance(assets, dict):
        return ["assets: must map image names to sha256 digests"]
    problems = []
    for name, digest in assets.items():
        if not isinstance(name, str) or not ASSET_NAME_RE.match(name):
            problems.append(f"assets: {name!r} is not an allowed image name")
        if not isinstance(digest, str) or not SHA256_RE.match(digest):
            problems.append(f"assets.{name}: {digest!r} is not a sha256 digest")
    return problems


def map_texts(value: Any, change: Callable[[str], str]) -> Any:
    """`value` (a question's content, or a part of it) with `change` applied to every string."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [map_texts(item, change) for item in value]
    if isinstance(value, dict):
        return {key: map_texts(item, change) for key, item in value.items()}
    return value
