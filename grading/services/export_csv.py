"""CSV helpers shared by the exports."""

import csv
import io
from collections.abc import Iterable, Sequence

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: str) -> str:
    """Text that a spreadsheet will not run as a formula (a leading quote defuses it)."""
    return f"'{value}" if value.startswith(_FORMULA_STARTS) else value


def csv_text(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([safe_cell(cell) for cell in header])
    writer.writerows([safe_cell(cell) for cell in row] for row in rows)
    return out.getvalue()
