"""Server-rendered SVG charts for the quiz report (no JavaScript chart library).

Each chart carries a <title> and <desc> for screen readers and labels its marks with
text and shape, so colour is never the only signal; the same figures are in the
report's tables and CSV."""

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

WIDTH, HEIGHT, PAD = 480, 240, 36


def _svg(label: str, desc: str, body: Iterable[str]) -> SafeString:
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(label)}" class="chart"><title>{escape(label)}</title>'
        f"<desc>{escape(desc)}</desc>"
    )
    # Every interpolated text above and in `body` is escaped or numeric.
    return mark_safe(head + "".join(body) + "</svg>")  # noqa: S308


def _axes() -> str:
    bottom, right = HEIGHT - PAD, WIDTH - PAD / 2
    return (
        f'<line x1="{PAD}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="currentColor"/>'
        f'<line x1="{PAD}" y1="{PAD / 2}" x2="{PAD}" y2="{bottom}" stroke="currentColor"/>'
    )


def score_histogram_svg(bins: Sequence[Mapping[str, int]]) -> SafeString:
    """Bars of attempts per score band (`from`, `to` in percent, `count`), each labelled."""
    top = max((b["count"] for b in bins), default=0) or 1
    span = (WIDTH - 1.5 * PAD) / max(len(bins), 1)
    bars = [_axes()]
    for i, band in enumerate(bins):
        h = (HEIGHT - 2 * PAD) * band["count"] / top
        x, y = PAD + i * span, HEIGHT - PAD - h
        bars.append(
            f'<rect x="{x + 2:.1f}" y="{y:.1f}" width="{span - 4:.1f}" height="{h:.1f}" '
            f'fill="#2f6690"><title>{band["from"]}–{band["to"]}%: {band["count"]}</title></rect>'
            f'<text x="{x + span / 2:.1f}" y="{y - 4:.1f}" text-anchor="middle" '
            f'font-size="11">{band["count"]}</text>'
            f'<text x="{x + span / 2:.1f}" y="{HEIGHT - PAD + 14}" text-anchor="middle" '
            f'font-size="10">{band["from"]}</text>'
        )
    total = sum(b["count"] for b in bins)
    return _svg("Score distribution", f"{total} graded attempts by score band, percent", bars)


def facility_discrimination_svg(items: Sequence[Mapping[str, Any]]) -> SafeString:
    """One numbered point per question: facility (0–1) across, discrimination (−1–1) up."""
    marks = [_axes()]
    plotted = 0
    for number, item in enumerate(items, start=1):
        fac, disc = item.get("facility"), item.get("discrimination_index")
        if fac is None or disc is None:
            continue
        plotted += 1
        x = PAD + (WIDTH - 1.5 * PAD) * float(fac)
        y = HEIGHT - PAD - (HEIGHT - 1.5 * PAD) * (float(disc) + 1) / 2
        name = escape(str(item.get("title", "")))
        marks.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="#c0392b"><title>Q{number} {name}: '
            f"facility {float(fac):.2f}, discrimination {float(disc):.2f}</title></circle>"
            f'<text x="{x + 7:.1f}" y="{y + 4:.1f}" font-size="11">Q{number}</text>'
        )
    desc = f"{plotted} questions: facility across (0 to 1), discrimination up (-1 to 1)"
    return _svg("Facility against discrimination", desc, marks)
