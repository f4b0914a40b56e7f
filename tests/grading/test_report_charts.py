"""The report's SVG charts: labelled for screen readers, escaped, one mark per figure."""

from typing import Any
from xml.etree import ElementTree

from grading.charts import facility_discrimination_svg, score_histogram_svg

NS = "{http://www.w3.org/2000/svg}"


def _parse(svg: object) -> ElementTree.Element:
    return ElementTree.fromstring(str(svg))  # noqa: S314  (our own output, not untrusted input)


def test_the_histogram_has_one_labelled_bar_per_band() -> None:
    bins = [{"from": 0, "to": 50, "count": 2}, {"from": 50, "to": 100, "count": 6}]
    svg = _parse(score_histogram_svg(bins))
    bars = svg.findall(f"{NS}rect")
    assert [bar.findtext(f"{NS}title") for bar in bars] == ["0–50%: 2", "50–100%: 6"]
    assert float(bars[1].get("height", 0)) > float(bars[0].get("height", 0))
    assert svg.get("role") == "img"
    assert "8 graded attempts" in svg.findtext(f"{NS}desc", "")


def test_the_scatter_skips_questions_without_figures_and_escapes_titles() -> None:
    items: list[dict[str, Any]] = [
        {"title": "<b>x</b>", "facility": 0.5, "discrimination_index": 0.0},
        {"title": "none yet", "facility": None, "discrimination_index": None},
    ]
    text = str(facility_discrimination_svg(items))
    svg = _parse(text)
    assert len(svg.findall(f"{NS}circle")) == 1
    assert "<b>" not in text
    assert "Q1" in text
    assert "Q2" not in text


def test_empty_reports_still_draw_valid_charts() -> None:
    assert _parse(score_histogram_svg([])).findtext(f"{NS}title") == "Score distribution"
    assert not _parse(facility_discrimination_svg([])).findall(f"{NS}circle")
