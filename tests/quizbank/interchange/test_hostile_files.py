"""Hostile files are refused whole, with a clear error, and nothing is written."""

from __future__ import annotations

import io
import struct
import zipfile

import pytest
from django.test import override_settings

from config.exceptions import DomainError
from quizbank.errors import FileTooLarge, InterchangeRefused
from quizbank.models import Course
from quizbank.services.interchange import interchange_import
from tests.quizbank.factories import make_course
from tests.quizbank.interchange.helpers import OWN

pytestmark = pytest.mark.django_db

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<quiz><question type="truefalse"><name><text>&lol3;</text></name></question></quiz>"""
EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE quiz [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<quiz><question type="essay"><name><text>&secret;</text></name></question></quiz>"""
CHOICE = (OWN / "qti3/choice-single.xml").read_bytes()


def zipped(members: dict[str, bytes], manifest: bytes | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        if manifest is not None:
            archive.writestr("imsmanifest.xml", manifest)
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def manifest_for(href: str) -> bytes:
    return (
        '<manifest xmlns="http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1"><resources>'
        f'<resource identifier="R" type="imsqti_item_xmlv3p0" href="{href}"/>'
        "</resources></manifest>"
    ).encode()


@pytest.fixture
def course() -> Course:
    return make_course(slug="target")


def refused(course: Course, fmt: str, data: bytes, error: type[DomainError]) -> str:
    with pytest.raises(error) as caught:
        interchange_import(course=course, fmt=fmt, data=data)
    assert not course.questions.exists()
    assert not course.topics.exists()
    return caught.value.message


def test_entity_expansion_is_refused(course: Course) -> None:
    message = refused(course, "moodle", BILLION_LAUGHS, InterchangeRefused)
    assert "declares a DTD" in message


def test_external_entities_are_refused(course: Course) -> None:
    assert "external references" in refused(course, "moodle", EXTERNAL_ENTITY, InterchangeRefused)


def test_entities_in_a_qti_item_are_refused(course: Course) -> None:
    refused(course, "qti", EXTERNAL_ENTITY, InterchangeRefused)


def test_a_zip_bomb_is_refused(course: Course) -> None:
    bomb = zipped({"items/a.xml": b"<" + b" " * (20 * 1024 * 1024)}, manifest_for("items/a.xml"))
    assert len(bomb) < 100_000
    assert "zip bomb" in refused(course, "qti", bomb, InterchangeRefused)


@override_settings(INTERCHANGE_MAX_UNPACKED_BYTES=50_000)
def test_a_package_over_the_unpacked_cap_is_refused(course: Course) -> None:
    members = {f"items/{n}.xml": bytes(range(256)) * 100 for n in range(3)}
    refused(course, "qti", zipped(members, manifest_for("items/0.xml")), InterchangeRefused)


@pytest.mark.parametrize("name", ["../evil.xml", "/etc/evil.xml", "a/../../evil.xml", "C:/x.xml"])
def test_paths_outside_the_package_are_refused(course: Course, name: str) -> None:
    package = zipped({name: CHOICE}, manifest_for("items/a.xml"))
    assert "outside itself" in refused(course, "qti", package, InterchangeRefused)


def test_a_manifest_pointing_outside_the_package_is_refused(course: Course) -> None:
    package = zipped({"items/a.xml": CHOICE}, manifest_for("../../etc/passwd"))
    assert "outside itself" in refused(course, "qti", package, InterchangeRefused)


@override_settings(INTERCHANGE_MAX_FILE_BYTES=1000)
@pytest.mark.parametrize("fmt", ["moodle", "gift", "qti"])
def test_files_over_the_size_cap_are_refused(course: Course, fmt: str) -> None:
    message = refused(course, fmt, b"x" * 1001, FileTooLarge)
    assert "INTERCHANGE_MAX_FILE_BYTES" in message


@pytest.mark.parametrize(
    ("fmt", "data", "name"),
    [
        ("moodle", b"<quiz/>", "Moodle XML"),
        (
            "moodle",
            b'<quiz><question type="category"><category><text>$course$/A</text>'
            b"</category></question></quiz>",
            "Moodle XML",
        ),
        ("gift", b"$CATEGORY: tensors\n\n// only a comment\n", "GIFT"),
    ],
)
def test_a_file_without_questions_is_refused_saying_so(
    course: Course, fmt: str, data: bytes, name: str
) -> None:
    message = refused(course, fmt, data, InterchangeRefused)
    assert f"the file holds no questions: is it a {name} file of questions?" in message
    assert not course.questions.exists()


@override_settings(INTERCHANGE_MAX_QUESTIONS=3)
def test_a_file_of_more_questions_than_one_import_takes_is_refused_whole(course: Course) -> None:
    question = (
        b'<question type="truefalse"><name><text>q</text></name><questiontext format="html">'
        b'<text>t</text></questiontext><answer fraction="100"><text>true</text></answer>'
        b'<answer fraction="0"><text>false</text></answer></question>'
    )
    assert "one import takes at most 3" in refused(
        course, "moodle", b"<quiz>" + question * 4 + b"</quiz>", InterchangeRefused
    )
    report = interchange_import(
        course=course, fmt="moodle", data=b"<quiz>" + question * 3 + b"</quiz>"
    )
    assert len(report.skipped) == 0


@pytest.mark.parametrize(
    ("fmt", "data", "expected"),
    [
        ("moodle", b"<quiz><question", "not well-formed XML"),
        ("moodle", b"::Q1:: 2 + 2? {=4 ~3}", "is it in another format, such as GIFT?"),
        ("moodle", b"<assessmentItem/>", "root element must be <quiz>"),
        ("gift", b"\xff\xfe\x00bad", "UTF-8"),
        ("qti", b"PK\x03\x04 not really a zip", "not a zip file"),
        ("qti", zipped({"a.xml": CHOICE}), "needs imsmanifest.xml"),
        *(
            ("moodle", f'<?xml version="1.0" encoding="{name}"?><quiz/>'.encode(), "UTF-8")
            for name in ("shift_jis", "utf-32", "UTFinf", "base64", "idna")
        ),
    ],
)
def test_malformed_files_are_refused_with_a_reason(
    course: Course, fmt: str, data: bytes, expected: str
) -> None:
    assert expected in refused(course, fmt, data, InterchangeRefused)


def test_nul_characters_skip_the_question_instead_of_failing_the_write(course: Course) -> None:
    report = interchange_import(course=course, fmt="gift", data=b"Bad\x00 {=yes}\n\nGood {=yes}\n")
    assert [q.slug for q in report.questions] == ["good"]
    assert "NUL" in report.skipped[0].reason


@pytest.mark.parametrize(("fmt", "root"), [("moodle", b"quiz"), ("qti", b"assessmentItem")])
def test_deeply_nested_xml_is_refused(course: Course, fmt: str, root: bytes) -> None:
    body = b"<div>" * 5000 + b"<choiceInteraction/>" + b"</div>" * 5000
    deep = b"<%s><itemBody>%s</itemBody></%s>" % (root, body, root)
    assert "nests deeper" in refused(course, fmt, deep, InterchangeRefused)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (b"Q {~%1.2.3%a =b}", "weight '1.2.3' is not a number"),
        (b"Q {#=%x5%3}", "weight 'x5' is not a number"),
        (b"Q {bare =a}", "must start with = or ~"),
        (b"// @vivabank " + b"[" * 100_000 + b"\nQ {=a}", "nests too deeply"),
        (b'// @vivabank {"files": ["x"]}\nQ {=a}', "files: must map file names to text"),
        (b'// @vivabank {"type": "code"}\nQ {=a}', "entry_point"),
        (b"::Q1:: 2 + 2? {=4 ~3\n::Q2:: Next {#1}", "a second { before the answer part's"),
        (b"::Q1:: 2 + 2? {=4 ~3}\n::Q2:: Next {#1}", "two answer parts {...} in one question"),
        (b"::Q1:: 2 + 2? {=4 ~3", "the answer part's { is never closed by a }"),
    ],
)
def test_odd_gift_skips_the_question_with_a_reason(
    course: Course, text: bytes, reason: str
) -> None:
    report = interchange_import(course=course, fmt="gift", data=text)
    assert report.questions == []
    assert reason in report.skipped[0].reason
    assert not course.questions.exists()


def test_a_gift_file_that_is_not_utf8_is_refused_at_its_line(course: Course) -> None:
    latin1 = "Q1 {=yes}\n\n// Latin-1\nCafé? {=oui}\n".encode("latin-1")
    message = refused(course, "gift", latin1, InterchangeRefused)
    assert message.startswith("a GIFT file must be UTF-8 text: line 4 is not UTF-8 text")


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_xml_saved_as_utf16_is_refused_saying_so(course: Course, encoding: str) -> None:
    text = '<?xml version="1.0" encoding="UTF-8"?>\n<quiz/>\n'
    message = refused(course, "moodle", text.encode(encoding), InterchangeRefused)
    assert "it is UTF-16 text: save it as UTF-8" in message
    assert "such as GIFT" not in message


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_LZMA])
def test_a_package_member_whose_compressed_bytes_are_corrupt_is_refused(
    course: Course, method: int
) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        archive.writestr("imsmanifest.xml", manifest_for("item.xml"))
        archive.writestr("item.xml", CHOICE)
    data = bytearray(buffer.getvalue())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        info = archive.getinfo("item.xml")
    # The member's compressed bytes start after its local header (30 bytes, name, extra).
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    for offset in range(start + 2, start + info.compress_size - 2, 7):
        data[offset] ^= 0x5A
    message = refused(course, "qti", bytes(data), InterchangeRefused)
    assert "item.xml is unreadable" in message


def _directory_changed(record: bytes, offset: int, change: int) -> bytes:
    """The package of one item with a 4-byte number of its first `record` (a zip directory
    record, by its signature) changed by `change`."""
    data = bytearray(zipped({"item.xml": CHOICE}, manifest_for("item.xml")))
    at = data.index(record) + offset
    (number,) = struct.unpack("<I", data[at : at + 4])
    data[at : at + 4] = struct.pack("<I", (number + change) % 2**32)
    return bytes(data)


@pytest.mark.parametrize(
    ("record", "offset", "change"),
    [(b"PK\x01\x02", 4, 100 << 16), (b"PK\x05\x06", 16, 10)],
    ids=["a zip version no reader knows", "members before the start of the file"],
)
def test_a_package_whose_directory_is_damaged_is_refused(
    course: Course, record: bytes, offset: int, change: int
) -> None:
    data = _directory_changed(record, offset, change)
    message = refused(course, "qti", data, InterchangeRefused)
    assert "damaged" in message or "unreadable" in message


def test_a_package_member_with_no_name_is_refused(course: Course) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("imsmanifest.xml", manifest_for("item.xml"))
        archive.writestr("item.xml", CHOICE)
        archive.writestr(zipfile.ZipInfo(""), b"x")
    message = refused(course, "qti", buffer.getvalue(), InterchangeRefused)
    assert message == "the package holds a file with no name"


@pytest.mark.parametrize(
    ("extension", "reason"),
    [
        (b'{"slug": "t",', "is not valid JSON"),
        (b'["t"]', "must be a JSON object"),
        (b"[" * 100_000, "nests too deeply"),
    ],
)
def test_a_broken_topic_extension_refuses_the_file_naming_its_category(
    course: Course, extension: bytes, reason: str
) -> None:
    text = b"// @vivabank-topic " + extension + b"\n\n$CATEGORY: $course$/Tensors\n\nQ {=a}\n"
    message = refused(course, "gift", text, InterchangeRefused)
    assert message.startswith("the category at line 3: ")
    assert reason in message
