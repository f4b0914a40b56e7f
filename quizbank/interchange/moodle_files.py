"""Files embedded in a Moodle question: the images of its texts become question assets
(quizbank.assets) and `@@PLUGINFILE@@/name` references become asset URLs; on export the
other way round. Any other embedded file (a CodeRunner support file...) is refused."""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any
from urllib.parse import quote, unquote
from xml.etree.ElementTree import Element, SubElement

from quizbank.assets import (
    ASSET_URL_RE,
    AssetRefused,
    asset_digest,
    asset_url,
    check_question_total,
    checked_image,
    map_texts,
)
from quizbank.interchange.report import Unsupported

PLUGINFILE = "@@PLUGINFILE@@/"
_REFERENCE = re.compile(r"@@PLUGINFILE@@/([^\"'\s<>()?#]+)")
_NOT_TEXT = ("files", "assets")  # keys of a content whose strings are not question text


def keep_images(
    content: dict[str, Any], images: dict[str, tuple[str, str, bytes]]
) -> dict[str, bytes]:
    """Put `images` into `content["assets"]` and point its texts' `@@PLUGINFILE@@` references
    at them; returns their bytes by sha256. Raises Unsupported for a dangling reference."""
    references = {ref: (name, digest) for ref, (name, digest, _) in images.items()}

    def to_url(match: re.Match[str]) -> str:
        found = references.get(unquote(match[1]))
        return asset_url(found[1], found[0]) if found else match[0]

    for key, value in content.items():
        if key not in _NOT_TEXT:
            content[key] = map_texts(value, lambda text: _REFERENCE.sub(to_url, text))
    for value in (value for key, value in content.items() if key not in _NOT_TEXT):
        if match := _REFERENCE.search(str(value)):
            raise Unsupported(f"{match[0]} refers to a file the question does not carry")
    if images:
        content["assets"] = {name: digest for name, digest, _ in images.values()}
    return {digest: data for _, digest, data in images.values()}


def embedded_images(element: Element) -> dict[str, tuple[str, str, bytes]]:
    """The images beside the texts of a Moodle question (name, sha256, bytes) by the path its
    texts refer to them by; raises Unsupported for any file that cannot be kept."""
    holders = [holder for holder in element.iter() if holder.find("text") is not None]
    kept = [file for holder in holders for file in holder.findall("file")]
    others = [file.get("name", "?") for file in element.iter("file") if file not in kept]
    if others:
        raise Unsupported(
            f"it holds embedded files ({', '.join(others)}) that are not images in its "
            "texts; only those are imported, and the question would be incomplete without them"
        )
    images: dict[str, tuple[str, str, bytes]] = {}
    names: set[str] = set()
    for file in kept:
        name, data = _decoded(file)
        if name in names:
            raise Unsupported(f"two embedded files are named {name}")
        names.add(name)
        path = (file.get("path") or "/").strip("/")
        images[f"{path}/{name}" if path else name] = (name, asset_digest(data), data)
    try:
        check_question_total([len(data) for _, _, data in images.values()])
    except AssetRefused as exc:
        raise Unsupported(str(exc)) from exc
    return images


def _decoded(file: Element) -> tuple[str, bytes]:
    name = file.get("name", "")
    if file.get("encoding", "base64") != "base64":
        raise Unsupported(f"file {name}: only base64 encoding is read")
    try:
        data = base64.b64decode("".join((file.text or "").split()), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise Unsupported(f"file {name}: not valid base64") from exc
    try:
        checked_image(name, data)
    except AssetRefused as exc:
        raise Unsupported(str(exc)) from exc
    return name, data


def with_pluginfile_references(content: dict[str, Any]) -> dict[str, Any]:
    """`content` with its asset URLs written as Moodle's `@@PLUGINFILE@@/name`."""
    names = {digest: name for name, digest in content.get("assets", {}).items()}

    def to_reference(match: re.Match[str]) -> str:
        name = names.get(match[1])
        return PLUGINFILE + quote(name) if name else match[0]

    return {
        key: value
        if key in _NOT_TEXT
        else map_texts(value, lambda t: ASSET_URL_RE.sub(to_reference, t))
        for key, value in content.items()
    }


def write_files(parent: Element, assets: dict[str, str], images: dict[str, bytes]) -> None:
    """A base64 `<file>` for each asset, as Moodle embeds one in a text."""
    for name, digest in assets.items():
        file = SubElement(parent, "file", {"name": name, "path": "/", "encoding": "base64"})
        file.text = base64.b64encode(images[digest]).decode()
