"""Storing and reading the bytes of question assets (quizbank.assets), once per sha256."""

from __future__ import annotations

from collections.abc import Iterable

from quizbank.assets import sniff_image
from quizbank.models import AssetBlob


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


def asset_blobs_missing(digests: Iterable[str]) -> set[str]:
    """The digests among `digests` whose bytes the bank does not hold."""
    wanted = set(digests)
    return wanted - set(AssetBlob.objects.filter(pk__in=wanted).values_list("pk", flat=True))


def asset_images(digests: Iterable[str]) -> dict[str, bytes]:
    """The bytes of the given assets, by sha256."""
    blobs = AssetBlob.objects.filter(pk__in=set(digests))
    return {blob.sha256: bytes(blob.data) for blob in blobs}
