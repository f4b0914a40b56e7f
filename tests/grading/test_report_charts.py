"""The report's SVG charts: labelled for screen readers, escaped, one mark per figure."""

from typing import Any
from xml.etree import ElementTree

from grading.charts import (
    criterion_rows,
    distractor_rates_svg,
    facility_discrimination_svg,
    marker_agreement_svg,
    option_rows,
    score_histogram_svg,
)

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
    one = _parse(score_histogram_svg([{"from": 0, "to": 100, "count": 1}]))
    assert "1 graded attempt by score band" in one.findtext(f"{NS}desc", "")


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


def test_option_rows_skip_unanswered_and_non_choice_questions_and_keep_q_numbers() -> None:
    choice = {"text": "<i>yes</i>", "correct": True, "count": 1, "rate": 1.0}
    items: list[dict[str, Any]] = [
        {"title": "viva", "responses": 2, "choices": []},
        {"title": "unanswered", "responses": 0, "choices": [{**choice, "count": 0, "rate": 0}]},
        {"title": "answered", "responses": 1, "choices": [choice]},
    ]
    rows = option_rows(items)
    assert [(row.number, row.text) for row in rows] == [(3, "<i>yes</i>")]
    text = str(distractor_rates_svg(rows))
    assert "<i>" not in text
    assert "Q3 answered" in text
    assert ">A. yes (correct)<" in text  # the author's markup is read, never drawn as tags


def test_option_labels_read_as_text_not_markdown() -> None:
    choice = {"text": "`w2` and **b**", "correct": False, "count": 1, "rate": 1.0}
    rows = option_rows([{"title": "q", "responses": 1, "choices": [choice]}])
    text = str(distractor_rates_svg(rows))
    assert "w2 and b" in text
    assert "`" not in text
    assert "**" not in text


def test_an_option_with_a_formula_is_named_by_its_letter_not_drawn_as_tex() -> None:
    choices = [
        {"text": "$(a - y)\\,a(1 - a)$", "correct": True, "count": 1, "rate": 0.5},
        {"text": "plain words", "correct": False, "count": 1, "rate": 0.5},
    ]
    rows = option_rows([{"title": "q", "responses": 2, "choices": choices}])
    assert [row.letter for row in rows] == ["A", "B"]
    text = str(distractor_rates_svg(rows))
    assert ">A. formula, see table (correct)<" in text
    assert ">B. plain words<" in text
    assert "\\," not in text


def test_charts_without_data_are_not_drawn() -> None:
    assert distractor_rates_svg(option_rows([])) is None
    assert marker_agreement_svg(criterion_rows([{"title": "t", "agreement": None}])) is None


def test_a_one_level_criterion_has_no_gap_bar_length() -> None:
    (row,) = criterion_rows(
        [
            {
                "title": "t",
                "agreement": {
                    "criteria": [
                        {
                            "criterion": "Only",
                            "levels": 1,
                            "pairs": 2,
                            "disagreement_rate": 0.0,
                            "mean_abs_difference": 0.0,
                            "kappa": None,
                        }
                    ]
                },
            }
        ]
    )
    assert (row.exact_rate, row.gap_share) == (1.0, 0.0)
    assert _parse(marker_agreement_svg([row])).get("role") == "img"
