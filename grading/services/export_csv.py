"""CSV helpers shared by the exports."""

import csv
import io
from collections.abc import Iterable, Sequence
from decimal import Decimal

# A cell is text, a number or empty; only text can be read as a formula by a spreadsheet.
Cell = str | int | float | Decimal | None

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: Cell) -> str:
    """The cell as CSV text: numbers as they are (a negative number stays a number), empty
    for None, and text that a spreadsheet would run as a formula defused by a leading quote."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float, Decimal)):
        return str(value)
    return f"'{value}" if value.startswith(_FORMULA_STARTS) else value


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Cell]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([safe_cell(cell) for cell in header])
    writer.writerows([safe_cell(cell) for cell in row] for row in rows)
    return out.getvalue()
