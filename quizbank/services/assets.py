"""Storing and reading the bytes of question assets (quizbank.assets), once per sha256."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import QuerySet

from quizbank.assets import sniff_image
from quizbank.models import AssetBlob, Course, QuestionAsset


def asset_blobs_store(*, images: dict[str, bytes]) -> None:
    """Store each image (by its sha256) that the bank does not hold yet."""
    held = set(AssetBlob.objects.filter(pk__in=list(images)).values_list("pk", flat=True))
    AssetBlob.objects.bulk_create(
        [
            AssetBlob(
                sha256=digest,
                content_type=sniff_image(data) or "application/octet-stream",
                size=len(data),
                data=data,
            )
            for digest, data in images.items()
            if digest not in held
        ],
        ignore_conflicts=True,
    )


def asset_blobs_missing(*, courses: QuerySet[Course] | None, digests: Iterable[str]) -> set[str]:
    """The digests among `digests` that no question of `courses` shows (of any course when
    None): a file may name an image by its sha256 alone only where its importer can see it
    already (whether another course holds it is neither told nor used)."""
    wanted = set(digests)
    held = QuestionAsset.objects.filter(blob_id__in=wanted)
    if courses is not None:
        held = held.filter(question__course__in=courses)
    return wanted - set(held.values_list("blob_id", flat=True))


def asset_images(digests: Iterable[str]) -> dict[str, bytes]:
    """The bytes of the given assets, by sha256."""
    blobs = AssetBlob.objects.filter(pk__in=set(digests))
    return {blob.sha256: bytes(blob.data) for blob in blobs}
