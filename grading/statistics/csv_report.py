"""The per-question statistics as CSV text (one row per question)."""

from typing import Any

from grading.services.export_csv import csv_text

COLUMNS = [
    "question", "title", "type", "responses", "mean_time_s", "facility", "discrimination_index",
    "item_total_correlation", "choice_rates", "marker_pairs", "marker_kappa", "most_disputed",
]  # fmt: skip


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


def _row(item: dict[str, Any]) -> list[str]:
    agreement = item.get("agreement") or {}
    criteria = agreement.get("criteria") or []
    rates = "; ".join(f"{c['choice']}:{c['rate']:.4f}" for c in item.get("choices", []))
    return [
        str(item["question"]), item["title"], item["type"], str(item["responses"]),
        _number(item["mean_time_s"]), _number(item["facility"]),
        _number(item["discrimination_index"]), _number(item["item_total_correlation"]), rates,
        str(agreement.get("pairs", "")), _number(agreement.get("kappa")),
        criteria[0]["criterion"] if criteria else "",
    ]  # fmt: skip


def statistics_csv(report: dict[str, Any]) -> str:
    """CSV of `quiz_statistics(...)["questions"]`, with a header row."""
    return csv_text(COLUMNS, [_row(item) for item in report["questions"]])
