"""Server-rendered SVG charts for the quiz report (no JavaScript chart library).

Each chart carries a <title> and <desc> for screen readers and labels its marks with
text and shape, so colour is never the only signal; the same figures are in the
report's tables and CSV."""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby
from operator import attrgetter
from typing import Any

from django.template.defaultfilters import pluralize
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from quizbank.rendering import markdown_as_text

WIDTH, HEIGHT, PAD = 480, 240, 36
BAR_COLOUR = "#2f6690"


def _svg(
    label: str,
    desc: str,
    body: Iterable[str],
    *,
    height: float = HEIGHT,
    described_by: str | None = None,
) -> SafeString:
    described = f' aria-describedby="{escape(described_by)}"' if described_by else ""
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height:.0f}" role="img" '
        f'aria-label="{escape(label)}"{described} class="chart"><title>{escape(label)}</title>'
        f"<desc>{escape(desc)}</desc>"
    )
    # Every interpolated text above and in `body` is escaped or numeric.
    return mark_safe(head + "".join(body) + "</svg>")  # noqa: S308


def _bar(x: float, y: float, width: float, height: float, fill: str, title: str) -> str:
    """A rectangle with its figure as a tooltip (`fill` is a colour or a pattern url)."""
    return (
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="{height:.1f}" '
        f'fill="{fill}" stroke="{BAR_COLOUR}"><title>{escape(title)}</title></rect>'
    )


def _text(x: float, y: float, text: str, *, size: int = 11, anchor: str = "start") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}">'
        f"{escape(text)}</text>"
    )


def _stripes(pattern_id: str) -> str:
    """A striped fill: the second kind of bar differs by pattern as well as by its label."""
    return (
        f'<defs><pattern id="{pattern_id}" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff"/>'
        f'<rect width="3" height="6" fill="{BAR_COLOUR}"/></pattern></defs>'
    )


def _short(text: str, chars: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= chars else flat[: chars - 1] + "…"


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
        label = f"{band['from']}–{band['to']}%: {band['count']}"
        bars.append(_bar(x + 2, y, span - 4, h, BAR_COLOUR, label))
        bars.append(_text(x + span / 2, y - 4, str(band["count"]), anchor="middle"))
        bars.append(
            _text(x + span / 2, HEIGHT - PAD + 14, str(band["from"]), size=10, anchor="middle")
        )
    total = sum(b["count"] for b in bins)
    return _svg(
        "Score distribution",
        f"{total} graded attempt{'' if total == 1 else 's'} by score band, percent",
        bars,
    )


def facility_discrimination_svg(
    items: Sequence[Mapping[str, Any]], *, described_by: str | None = None
) -> SafeString:
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
        )
        marks.append(_text(x + 7, y + 4, f"Q{number}"))
    desc = f"{plotted} questions: facility across (0 to 1), discrimination up (-1 to 1)"
    return _svg("Facility against discrimination", desc, marks, described_by=described_by)


@dataclass(frozen=True)
class OptionRow:
    """One option of a choice question, numbered Q1, Q2, … as in the scatter."""

    number: int
    question: str
    text: str
    correct: bool
    count: int
    rate: float
    letter: str  # A, B, C... within its question, in the chart and its table alike


@dataclass(frozen=True)
class CriterionRow:
    """Two markers on one criterion of a question: exact agreement and mean gap in levels."""

    number: int
    question: str
    criterion: str
    levels: int
    pairs: int
    exact_rate: float
    mean_gap: float
    kappa: float | None

    @property
    def gap_share(self) -> float:
        """The mean gap as a share of the widest gap the criterion allows."""
        return self.mean_gap / (self.levels - 1) if self.levels > 1 else 0.0


def option_rows(items: Sequence[Mapping[str, Any]]) -> list[OptionRow]:
    """The options of every choice question that has answers, in the report's order."""
    return [
        OptionRow(
            number,
            str(item["title"]),
            str(c["text"]),
            bool(c["correct"]),
            c["count"],
            c["rate"],
            _letter(index),
        )
        for number, item in enumerate(items, start=1)
        if item.get("responses")
        for index, c in enumerate(item.get("choices") or [])
    ]


def criterion_rows(items: Sequence[Mapping[str, Any]]) -> list[CriterionRow]:
    """Every double-marked criterion, question by question, most disputed first."""
    return [
        CriterionRow(
            number,
            str(item["title"]),
            str(c["criterion"]),
            c["levels"],
            c["pairs"],
            1 - c["disagreement_rate"],
            c["mean_abs_difference"],
            c["kappa"],
        )
        for number, item in enumerate(items, start=1)
        for c in (item.get("agreement") or {}).get("criteria", [])
    ]


LABEL_WIDTH, ROW, GAP = 170, 18, 8
PLOT_WIDTH = WIDTH - LABEL_WIDTH - 120  # room right of a full bar for its figure


def _question_heading(y: float, number: int, title: str) -> str:
    return _text(4, y + 13, f"Q{number} {_short(title, 60)}", size=12)


def _hbar(y: float, share: float, fill: str, figure: str, title: str) -> str:
    """A horizontal bar `share` of the plot long, its figure written after its end."""
    width = PLOT_WIDTH * min(max(share, 0.0), 1.0)
    bar = _bar(LABEL_WIDTH, y + 3, width, ROW - 6, fill, f"{title}: {figure}")
    return bar + _text(LABEL_WIDTH + width + 4, y + 13, figure)


def _letter(index: int) -> str:
    return chr(ord("A") + index) if index < 26 else str(index + 1)


def _option_text(markdown: str) -> str:
    # An SVG label cannot typeset TeX: a formula is named by its letter, the table shows it.
    if "$" in markdown:
        return "formula, see table"
    return _short(markdown_as_text(markdown), 19)


def distractor_rates_svg(
    rows: Sequence[OptionRow], *, described_by: str | None = None
) -> SafeString | None:
    """A bar per option, as long as the share of answers that picked it; the correct option
    is striped and says "(correct)". None when no choice question has answers yet."""
    if not rows:
        return None
    marks, y = [_stripes("correct-option")], 0.0
    for (number, title), options in groupby(rows, key=attrgetter("number", "question")):
        marks.append(_question_heading(y + GAP, number, title))
        y += GAP + ROW
        for row in options:
            label = f"{row.letter}. {_option_text(row.text)}" + (
                " (correct)" if row.correct else ""
            )
            fill = "url(#correct-option)" if row.correct else BAR_COLOUR
            marks.append(_text(12, y + 13, label))
            marks.append(_hbar(y, row.rate, fill, f"{row.rate:.0%} ({row.count})", label))
            y += ROW
    questions = len({row.number for row in rows})
    desc = (
        f"{questions} choice question{pluralize(questions)}: the share of answers that picked "
        "each option; the correct option is striped and marked (correct)"
    )
    return _svg("Option rates", desc, marks, height=y + GAP, described_by=described_by)


def marker_agreement_svg(
    rows: Sequence[CriterionRow], *, described_by: str | None = None
) -> SafeString | None:
    """Two bars per criterion: the share of answers both markers put on the same level
    (solid) and their mean gap as a share of the scale (striped). None without a pair."""
    if not rows:
        return None
    marks, y = [_stripes("mean-gap")], 0.0
    for (number, title), criteria in groupby(rows, key=attrgetter("number", "question")):
        marks.append(_question_heading(y + GAP, number, title))
        y += GAP + ROW
        for row in criteria:
            pairs = f"{row.pairs} pair{pluralize(row.pairs)}"
            marks.append(_text(12, y + 13, f"{_short(row.criterion, 20)} ({pairs})"))
            exact = f"exact {row.exact_rate:.0%}"
            marks.append(_hbar(y, row.exact_rate, BAR_COLOUR, exact, row.criterion))
            gap = f"mean gap {row.mean_gap:.2f} of {row.levels - 1}"
            marks.append(_hbar(y + ROW, row.gap_share, "url(#mean-gap)", gap, row.criterion))
            y += 2 * ROW + 2
    desc = (
        f"{len(rows)} {'criterion' if len(rows) == 1 else 'criteria'} marked by two examiners: "
        "a solid bar for the share of answers "
        "given the same level, a striped bar for the mean gap in levels out of the widest possible"
    )
    return _svg("Marker agreement", desc, marks, height=y + GAP, described_by=described_by)
