"""Images embedded in a Moodle question (`<file>` + `@@PLUGINFILE@@/name`) become question
assets: kept by their sniffed type, capped in size, served to the course's members only, and
written back as `<file>` elements on export. The third-party corpus holds no Moodle file with
embedded images, so these files are built here, as Moodle writes them."""

from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path

import pytest
from django.test import Client

from quizbank.assets import MAX_ASSET_BYTES, asset_digest
from quizbank.errors import BankInvalid, ExportImpossible
from quizbank.models import AssetBlob, Course, QuestionAsset, Role
from quizbank.rendering import render_markdown
from quizbank.services.bank_export import bank_export
from quizbank.services.bank_import import bank_import
from quizbank.services.interchange import interchange_export, interchange_import
from tests.quizbank.factories import make_course, make_membership, make_user
from tests.quizbank.interchange.helpers import skipped_reasons, stored

pytestmark = pytest.mark.django_db


def png(width: int = 1, height: int = 1) -> bytes:
    """A valid greyscale PNG of the given size."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    pixels = zlib.compress(b"".join(b"\x00" + b"\x80" * width for _ in range(height)))
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


GIF = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;"
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
HTML = b"<html><script>alert(document.cookie)</script></html>"


def moodle_file(files: dict[str, bytes], prompt: str, feedback: str = "") -> bytes:
    embedded = "".join(
        f'<file name="{name}" path="/" encoding="base64">{base64.b64encode(data).decode()}</file>'
        for name, data in files.items()
    )
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="truefalse">
    <name><text>Picture question</text></name>
    <questiontext format="html"><text><![CDATA[{prompt}]]></text>{embedded}</questiontext>
    <generalfeedback format="html"><text><![CDATA[{feedback}]]></text></generalfeedback>
    <answer fraction="100"><text>true</text><feedback><text></text></feedback></answer>
    <answer fraction="0"><text>false</text><feedback><text></text></feedback></answer>
  </question>
</quiz>""".encode()


@pytest.fixture
def course() -> Course:
    return make_course(slug="target")


def test_an_embedded_png_becomes_an_asset_and_the_prompt_points_at_it(course: Course) -> None:
    image = png(3, 2)
    data = moodle_file(
        {"graph one.png": image, "dot.gif": GIF},
        '<p><img src="@@PLUGINFILE@@/graph%20one.png" alt="graph"></p>',
        feedback='<img src="@@PLUGINFILE@@/dot.gif">',
    )
    report = interchange_import(course=course, fmt="moodle", data=data)
    assert report.skipped == []
    question = stored(course)["picture-question"]
    digest = asset_digest(image)
    assert question["assets"] == {"dot.gif": asset_digest(GIF), "graph one.png": digest}
    assert f'src="/question-assets/{digest}/graph%20one.png"' in question["prompt"]
    assert f"/question-assets/{asset_digest(GIF)}/dot.gif" in question["general_feedback"]
    assert "@@PLUGINFILE@@" not in str(question)
    blob = AssetBlob.objects.get(pk=digest)
    assert (bytes(blob.data), blob.content_type) == (image, "image/png")


def test_the_sanitizer_keeps_the_asset_url_of_an_imported_prompt(course: Course) -> None:
    data = moodle_file({"a.png": png()}, '<img src="@@PLUGINFILE@@/a.png" onerror="x()">')
    interchange_import(course=course, fmt="moodle", data=data)
    question = course.questions.get()
    assert question.current_version is not None
    html = question.current_version.prompt_html
    assert f'src="/question-assets/{asset_digest(png())}/a.png"' in html
    assert "onerror" not in html
    assert html == render_markdown(question.prompt)


@pytest.mark.parametrize(
    ("name", "data"),
    [("evil.png", HTML), ("logo.png", SVG), ("logo.svg", SVG), ("noise.gif", b"GIF8")],
)
def test_a_file_that_is_not_an_image_by_its_bytes_is_refused(
    course: Course, name: str, data: bytes
) -> None:
    report = interchange_import(
        course=course,
        fmt="moodle",
        data=moodle_file({name: data}, f'<img src="@@PLUGINFILE@@/{name}">'),
    )
    [reason] = skipped_reasons(report).values()
    assert f"file {name} is not a PNG, JPEG, GIF or WebP image" in reason
    assert not course.questions.exists()
    assert not AssetBlob.objects.exists()


def test_an_oversized_image_is_refused_with_its_size(course: Course) -> None:
    big = png() + b"\x00" * MAX_ASSET_BYTES
    report = interchange_import(
        course=course, fmt="moodle", data=moodle_file({"big.png": big}, "See the picture.")
    )
    [reason] = skipped_reasons(report).values()
    assert f"file big.png is {len(big)} bytes; an image may have {MAX_ASSET_BYTES}" in reason
    assert not AssetBlob.objects.exists()


def test_too_many_image_bytes_in_one_question_are_refused(course: Course) -> None:
    files = {f"part{n}.png": png() + bytes([n]) * (MAX_ASSET_BYTES - 100) for n in range(3)}
    report = interchange_import(course=course, fmt="moodle", data=moodle_file(files, "Three."))
    [reason] = skipped_reasons(report).values()
    assert "its images come to" in reason
    assert "a question may have" in reason


def test_a_reference_to_a_file_the_question_lacks_is_reported(course: Course) -> None:
    data = moodle_file({}, '<img src="@@PLUGINFILE@@/missing.png">')
    report = interchange_import(course=course, fmt="moodle", data=data)
    [reason] = skipped_reasons(report).values()
    assert reason == "@@PLUGINFILE@@/missing.png refers to a file the question does not carry"


def test_bad_base64_is_reported(course: Course) -> None:
    data = moodle_file({}, "x").replace(
        b"</text></questiontext>",
        b'</text><file name="a.png" path="/" encoding="base64">!!notbase64</file></questiontext>',
    )
    report = interchange_import(course=course, fmt="moodle", data=data)
    assert list(skipped_reasons(report).values()) == ["file a.png: not valid base64"]


def test_an_asset_is_served_to_the_course_members_only(course: Course) -> None:
    image = png(2, 2)
    interchange_import(
        course=course,
        fmt="moodle",
        data=moodle_file({"a.png": image}, '<img src="@@PLUGINFILE@@/a.png">'),
    )
    url = f"/question-assets/{asset_digest(image)}/a.png"
    student = make_user(username="student")
    make_membership(user=student, course=course, role=Role.STUDENT)
    outsider = make_user(username="outsider")
    make_membership(user=outsider, course=make_course(slug="other"), role=Role.AUTHOR)

    member_client = Client()
    member_client.force_login(student)
    response = member_client.get(url)
    assert response.status_code == 200
    assert response.content == image
    assert response["Content-Type"] == "image/png"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "immutable" in response["Cache-Control"]
    assert "private" in response["Cache-Control"]

    outsider_client = Client()
    outsider_client.force_login(outsider)
    assert outsider_client.get(url).status_code == 404
    assert Client().get(url).status_code == 404
    assert member_client.get(f"/question-assets/{'0' * 64}/a.png").status_code == 404


def test_moodle_export_writes_the_images_back_and_reimport_keeps_their_bytes(
    course: Course,
) -> None:
    image = png(4, 4)
    interchange_import(
        course=course,
        fmt="moodle",
        data=moodle_file(
            {"a.png": image, "b.gif": GIF},
            '<img src="@@PLUGINFILE@@/a.png">',
            feedback='<img src="@@PLUGINFILE@@/b.gif">',
        ),
    )
    exported = interchange_export(course=course, fmt="moodle")
    text = exported.data.decode()
    assert "@@PLUGINFILE@@/a.png" in text
    assert (
        f'<file name="a.png" path="/" encoding="base64">{base64.b64encode(image).decode()}' in text
    )
    assert "/question-assets/" not in text
    assert "<vivabank" not in text
    before = stored(course)
    QuestionAsset.objects.all().delete()
    AssetBlob.objects.all().delete()  # the bytes must come from the exported file

    fresh = make_course(slug="fresh")
    report = interchange_import(course=fresh, fmt="moodle", data=exported.data)
    assert report.skipped == []
    assert stored(fresh) == before
    question = fresh.questions.get()
    assert {a.name: bytes(a.blob.data) for a in question.assets.all()} == {
        "a.png": image,
        "b.gif": GIF,
    }


def test_a_bank_folder_export_keeps_the_images_and_imports_them_again(
    course: Course, tmp_path: Path
) -> None:
    image = png(5, 5)
    interchange_import(
        course=course,
        fmt="moodle",
        data=moodle_file({"a.png": image}, '<img src="@@PLUGINFILE@@/a.png">'),
    )
    bank_export(course=course, path=tmp_path / "bank")
    folder = tmp_path / "bank" / "imported" / "picture-question"
    assert (folder / "assets" / "a.png").read_bytes() == image
    assert "\nassets:" not in (folder / "question.yaml").read_text()
    before = stored(course)
    QuestionAsset.objects.all().delete()
    AssetBlob.objects.all().delete()  # the bytes must come from the folder

    bank_import(path=tmp_path / "bank", course_slug="again")
    assert stored(Course.objects.get(slug="again")) == before
    assert bytes(AssetBlob.objects.get().data) == image


def test_a_bank_folder_image_that_is_not_one_is_refused_with_its_path(
    course: Course, tmp_path: Path
) -> None:
    interchange_import(
        course=course,
        fmt="moodle",
        data=moodle_file({"a.png": png()}, '<img src="@@PLUGINFILE@@/a.png">'),
    )
    bank_export(course=course, path=tmp_path / "bank")
    evil = tmp_path / "bank" / "imported" / "picture-question" / "assets" / "a.png"
    evil.write_bytes(SVG)
    with pytest.raises(BankInvalid) as refused:
        bank_import(path=tmp_path / "bank", course_slug="again")
    assert refused.value.errors == [
        f"{evil}:1 (file): file a.png is not a PNG, JPEG, GIF or WebP image (judged by its "
        "bytes, not its name); only those are kept"
    ]
    assert not Course.objects.filter(slug="again").exists()


def test_qti_export_reports_a_question_with_images_instead_of_breaking_them(
    course: Course,
) -> None:
    data = moodle_file({"a.png": png()}, '<img src="@@PLUGINFILE@@/a.png">')
    interchange_import(course=course, fmt="moodle", data=data)
    with pytest.raises(ExportImpossible):
        interchange_export(course=course, fmt="qti")
    plain = moodle_file({}, "No picture.").replace(b"Picture question", b"Plain question")
    interchange_import(course=course, fmt="moodle", data=plain)
    exported = interchange_export(course=course, fmt="qti")
    assert [(item.location, item.reason) for item in exported.skipped] == [
        (
            "picture-question",
            "its images are not written into QTI packages; Moodle XML keeps them",
        )
    ]


def test_gift_keeps_the_asset_list_and_needs_the_bytes_in_the_bank(course: Course) -> None:
    data = moodle_file({"a.png": png()}, '<img src="@@PLUGINFILE@@/a.png">')
    interchange_import(course=course, fmt="moodle", data=data)
    gift = interchange_export(course=course, fmt="gift").data
    same_bank = make_course(slug="same-bank")
    interchange_import(course=same_bank, fmt="gift", data=gift)
    assert stored(same_bank) == stored(course)

    QuestionAsset.objects.all().delete()
    AssetBlob.objects.all().delete()
    report = interchange_import(course=make_course(slug="bare"), fmt="gift", data=gift)
    assert [item.reason for item in report.skipped] == [
        "assets.a.png: the image is neither in the file nor in this bank"
    ]


def test_an_image_named_by_sha256_alone_must_be_one_the_importer_can_see(course: Course) -> None:
    """Another course's image is not theirs to show: knowing its digest is not enough."""
    data = moodle_file({"a.png": png()}, '<img src="@@PLUGINFILE@@/a.png">')
    interchange_import(course=course, fmt="moodle", data=data)
    gift = interchange_export(course=course, fmt="gift").data
    other = make_course(slug="other")
    outsider = make_user(username="outsider")
    make_membership(course=other, user=outsider, role=Role.AUTHOR)
    report = interchange_import(course=other, fmt="gift", data=gift, user=outsider)
    assert [item.reason for item in report.skipped] == [
        "assets.a.png: the image is neither in the file nor in this bank"
    ]
    assert not QuestionAsset.objects.filter(question__course=other).exists()
    make_membership(course=course, user=outsider, role=Role.AUTHOR)  # an author of both
    report = interchange_import(course=other, fmt="gift", data=gift, user=outsider)
    assert report.skipped == []
    assert stored(other) == stored(course)
