"""Refusing hostile files before any converter reads them: size caps, XML bombs and external
entities, zip bombs and paths outside a package. Every refusal is an InterchangeRefused."""

from __future__ import annotations

import io
import lzma
import posixpath
import re
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import Any
from xml.etree.ElementTree import Element, ParseError, TreeBuilder

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser
from django.conf import settings

from quizbank.errors import FileTooLarge, InterchangeRefused

MAX_ZIP_MEMBERS = 1000
# What zipfile raises on a damaged package or member: a bad CRC, header or central directory
# (BadZipFile; NotImplementedError for a version or method it cannot read; ValueError for an
# offset before the start), encryption (RuntimeError), a stream that ends early, corrupt
# compressed bytes (zlib's and lzma's own errors; bz2's are OSErrors).
_DAMAGED_ZIP = (
    zipfile.BadZipFile,
    NotImplementedError,
    RuntimeError,
    ValueError,
    OSError,
    EOFError,
    zlib.error,
    lzma.LZMAError,
)
# Far deeper than any question; shallow enough that walking a tree never hits the recursion limit.
MAX_XML_DEPTH = 200
MAX_COMPRESSION_RATIO = 100
_CHUNK = 64 * 1024
# Characters XML 1.0 cannot hold at all, raw or written as a reference such as &#1;
# (every C0 control but tab, LF, CR).
NOT_IN_XML = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_CHARACTER_REFERENCE = re.compile(rb"&#(?:x([0-9a-fA-F]{1,8})|([0-9]{1,10}));")
_XML_CONTROLS = frozenset([*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20)])
# How much of the line around a character an error shows.
_EXCERPT = 30


def max_file_bytes() -> int:
    return int(settings.INTERCHANGE_MAX_FILE_BYTES)


def check_size(data: bytes, what: str = "the file") -> None:
    """Refuse `data` over INTERCHANGE_MAX_FILE_BYTES."""
    if len(data) > max_file_bytes():
        raise FileTooLarge(
            f"{what} is {len(data)} bytes; the limit is {max_file_bytes()} bytes "
            "(INTERCHANGE_MAX_FILE_BYTES)"
        )


@dataclass
class XmlDoc:
    """A parsed document and the line each element starts on."""

    root: Element
    lines: dict[int, int] = field(default_factory=dict)

    def line(self, element: Element) -> int:
        return self.lines.get(id(element), 0)


class _LineBuilder(TreeBuilder):
    def __init__(self, lines: dict[int, int]) -> None:
        super().__init__()
        self.lines = lines
        self.expat: Any = None
        self.depth = 0

    def end(self, tag: str) -> Element:
        self.depth -= 1
        return super().end(tag)

    def start(self, tag: str, attrs: dict[str, str]) -> Element:
        self.depth += 1
        if self.depth > MAX_XML_DEPTH:
            raise InterchangeRefused(f"the XML nests deeper than {MAX_XML_DEPTH} elements")
        element = super().start(tag, attrs)
        self.lines[id(element)] = int(self.expat.CurrentLineNumber) if self.expat else 0
        return element


def parse_xml(data: bytes, what: str = "the file") -> XmlDoc:
    """Parse XML with no DTD, no entity declarations and no external references."""
    check_size(data, what)
    lines: dict[int, int] = {}
    builder = _LineBuilder(lines)
    parser = DefusedXMLParser(target=builder, forbid_dtd=True)
    builder.expat = parser.parser
    try:
        parser.feed(data)
        root = parser.close()
    except DefusedXmlException as exc:
        raise InterchangeRefused(
            f"{what} declares a DTD, entities or external references ({type(exc).__name__}); "
            "they are refused, as they allow entity expansion bombs and reading local files"
        ) from exc
    except ParseError as exc:
        if _utf16(data):
            raise InterchangeRefused(
                f"{what} is not well-formed XML: {exc} (it is UTF-16 text: save it as UTF-8)"
            ) from exc
        control = _control_character_at(data, exc.position[0])
        if control is not None:
            raise InterchangeRefused(f"{what} is not well-formed XML: {control}") from exc
        hint = (
            ""
            if _looks_like_xml(data)
            else (
                " (it does not begin with <, as XML does: is it in another format, such as GIFT? "
                "Choose the format the file is in)"
            )
        )
        raise InterchangeRefused(f"{what} is not well-formed XML: {exc}{hint}") from exc
    except (LookupError, ValueError, UnicodeError) as exc:
        # The XML declaration names an encoding expat cannot read (shift_jis, utf-32, base64,
        # a name Python does not know).
        raise InterchangeRefused(
            f"{what} declares an encoding that cannot be read ({exc}); save it as UTF-8"
        ) from exc
    return XmlDoc(root=root, lines=lines)


def _control_character_at(data: bytes, line: int) -> str | None:
    """Where on `line` (counted from 1) a UTF-8 document holds a control character XML
    cannot hold, raw or as a reference, with the text around it; None when it holds none
    there (the parser failed for another reason)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None  # another encoding, where these bytes may be part of a character
    lines = text.splitlines() if line >= 1 else []
    if line > len(lines):
        return None
    here = lines[line - 1].encode()
    found = [(match.start(), match.group()[0]) for match in NOT_IN_XML.finditer(here)]
    for match in _CHARACTER_REFERENCE.finditer(here):
        code = int(match[1], 16) if match[1] else int(match[2])
        if code in _XML_CONTROLS:
            found.append((match.start(), code))
    if not found:
        return None
    start, code = min(found)
    column = len(here[:start].decode()) + 1
    shown = here.decode()
    excerpt = shown[max(0, column - 1 - _EXCERPT) : column - 1 + _EXCERPT]
    return (
        f"line {line}, column {column} holds the control character U+{code:04X} "
        f"({excerpt!r}), which XML cannot hold, not even written as &#{code};: remove it "
        "from the file (Moodle and QTI files are XML)"
    )


def _utf16(data: bytes) -> bool:
    """A UTF-16 byte order mark, or a first < written in two bytes (UTF-16 with none)."""
    return data.startswith((b"\xff\xfe", b"\xfe\xff", b"<\x00", b"\x00<"))


def _looks_like_xml(data: bytes) -> bool:
    return data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<")


def safe_member_name(name: str) -> str:
    """The normalised path of a package member; refuses absolute paths and `..`."""
    if not name:
        raise InterchangeRefused("the package holds a file with no name")
    cleaned = posixpath.normpath(name.replace("\\", "/"))
    if (
        name.startswith(("/", "\\"))
        or cleaned.startswith("../")
        or cleaned == ".."
        or (len(name) > 1 and name[1] == ":")
    ):
        raise InterchangeRefused(f"the package holds a path outside itself: {name!r}")
    return cleaned


def read_zip(data: bytes) -> dict[str, bytes]:
    """Every file of a zip package by normalised path, refusing bombs and unsafe paths."""
    check_size(data, "the package")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except _DAMAGED_ZIP as exc:
        raise InterchangeRefused(f"the package is not a zip file, or a damaged one: {exc}") from exc
    with archive:
        # Not ZipInfo.is_dir(): it fails on a member with an empty name.
        members = [info for info in archive.infolist() if not info.filename.endswith("/")]
        if len(members) > MAX_ZIP_MEMBERS:
            raise InterchangeRefused(f"the package holds over {MAX_ZIP_MEMBERS} files")
        budget = int(settings.INTERCHANGE_MAX_UNPACKED_BYTES)
        files: dict[str, bytes] = {}
        for info in members:
            name = safe_member_name(info.filename)
            files[name] = _read_member(archive, info, budget - sum(map(len, files.values())))
    return files


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: int) -> bytes:
    ratio = info.file_size / max(info.compress_size, 1)
    if info.file_size > budget or (info.file_size > _CHUNK and ratio > MAX_COMPRESSION_RATIO):
        raise _bomb(info.filename)
    out = bytearray()
    try:
        with archive.open(info) as stream:
            # The header's sizes may lie: stop reading at the budget whatever they say.
            while chunk := stream.read(_CHUNK):
                out += chunk
                if len(out) > budget:
                    raise _bomb(info.filename)
    except _DAMAGED_ZIP as exc:
        raise InterchangeRefused(
            f"the package member {info.filename} is unreadable: {exc}"
        ) from exc
    return bytes(out)


def _bomb(name: str) -> InterchangeRefused:
    return InterchangeRefused(
        f"the package member {name} unpacks past the limit (INTERCHANGE_MAX_UNPACKED_BYTES "
        f"or a compression ratio over {MAX_COMPRESSION_RATIO}); it looks like a zip bomb"
    )
