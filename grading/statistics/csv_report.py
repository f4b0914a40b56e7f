"""The per-question statistics as CSV text (one row per question).

Figures are written as numbers (four decimals), so a spreadsheet reads a negative
discrimination or correlation as a number; only text cells are guarded.
"""

from decimal import Decimal
from typing import Any

from grading.services.exports import Cell, csv_text

COLUMNS = [
    "question",
    "title",
    "type",
    "responses",
    "mean_time_s",
    "facility",
    "discrimination_index",
    "item_total_correlation",
    "choice_rates",
    "marker_pairs",
    "marker_kappa",
    "most_disputed",
    "omitted",
    "marker_kappa_note",
]
_PLACES = Decimal("0.0001")


def _number(value: float | None) -> Decimal | None:
    # Adding zero turns a rounded -0.0000 into 0.0000.
    return None if value is None else Decimal(repr(value)).quantize(_PLACES) + 0


def _rates(choices: list[dict[str, Any]]) -> str:
    """`index:rate` for the newest version's options, `"text":rate` for older ones."""
    return "; ".join(
        f"{c['choice'] if c['choice'] is not None else repr(c['text'])}:{c['rate']:.4f}"
        for c in choices
    )


def _row(item: dict[str, Any]) -> list[Cell]:
    agreement = item.get("agreement") or {}
    criteria = agreement.get("criteria") or []
    return [
        item["question"],
        item["title"],
        item["type"],
        item["responses"],
        _number(item["mean_time_s"]),
        _number(item["facility"]),
        _number(item["discrimination_index"]),
        _number(item["item_total_correlation"]),
        _rates(item.get("choices", [])),
        agreement.get("pairs"),
        _number(agreement.get("kappa")),
        criteria[0]["criterion"] if criteria else "",
        item.get("omitted"),
        agreement.get("kappa_note"),
    ]


def statistics_csv(report: dict[str, Any]) -> str:
    """CSV of `quiz_statistics(...)["questions"]`, with a header row."""
    return csv_text(COLUMNS, [_row(item) for item in report["questions"]])
