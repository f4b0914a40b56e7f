"""Images a question shows (quizbank.assets): bytes stored once per sha256, named per question."""

from __future__ import annotations

from django.db import models

from quizbank.models.bank import Question


class AssetBlob(models.Model):
    """The bytes of one image, whichever questions and versions show it."""

    sha256 = models.CharField(max_length=64, primary_key=True)
    content_type = models.CharField(max_length=32)
    size = models.PositiveIntegerField()
    data = models.BinaryField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.sha256[:12]} ({self.content_type}, {self.size} bytes)"


class QuestionAsset(models.Model):
    """An image of a question's current content, under the name its text refers to."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="assets")
    name = models.CharField(max_length=120)
    # Versions keep naming a blob after the question drops it, so a blob is never deleted.
    blob = models.ForeignKey(AssetBlob, on_delete=models.PROTECT, related_name="uses")

    class Meta:
        ordering = ["question_id", "name"]
        constraints = [
            models.UniqueConstraint(fields=["question", "name"], name="unique_question_asset_name"),
        ]

    def __str__(self) -> str:
        return self.name
