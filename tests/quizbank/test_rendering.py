"""Markdown rendering: sanitised HTML, math kept for KaTeX, code highlighted."""

from __future__ import annotations

import pytest

from quizbank.rendering import (
    pygments_css,
    render_inline_markdown,
    render_markdown,
    shows_nothing,
)


@pytest.mark.parametrize(
    "markdown",
    [
        "Before <script>alert('x')</script> after",
        "<SCRIPT SRC=https://evil.example/x.js></SCRIPT>",
        '<img src="x.png" onerror="alert(1)">',
        '<a href="javascript:alert(1)">click</a>',
        "[click](javascript:alert(1))",
        '<p onclick="alert(1)" style="position:fixed">text</p>',
        '<iframe src="https://evil.example"></iframe>',
        "<svg><script>alert(1)</script></svg>",
    ],
)
def test_dangerous_html_never_reaches_the_page(markdown: str) -> None:
    html = render_markdown(markdown).lower()
    for marker in ("<script", "onerror", "onclick", 'href="javascript', "<iframe", "position"):
        assert marker not in html


def test_it_keeps_text_around_removed_tags() -> None:
    assert render_markdown("Before <script>alert('x')</script> after") == "<p>Before  after</p>\n"


def test_inline_and_display_math_stay_as_escaped_tex() -> None:
    html = render_markdown("Let $x^2 < y$ hold.\n\n$$\n\\frac{dy}{dx} = 2x\n$$\n")
    assert '<span class="math inline">x^2 &lt; y</span>' in html
    assert '<div class="math block">' in html
    assert "\\frac{dy}{dx} = 2x" in html


def test_fenced_code_is_highlighted_with_classes() -> None:
    html = render_markdown("```python\nimport torch\n```\n")
    assert html.startswith('<pre class="highlight"><code>')
    assert '<span class="kn">import</span>' in html
    assert ".highlight .kn" in pygments_css() or "pre.highlight .kn" in pygments_css()


def test_code_in_an_unknown_language_is_escaped_not_dropped() -> None:
    html = render_markdown("```nolang\n<b>x</b>\n```\n")
    assert "&lt;b&gt;x&lt;/b&gt;" in html


def test_tables_safe_links_and_emphasis_survive() -> None:
    html = render_markdown("| a | b |\n|--:|---|\n| 1 | 2 |\n\n*see* [docs](https://pytorch.org)\n")
    assert '<th style="text-align:right">a</th>' in html
    assert '<a href="https://pytorch.org" rel="noopener noreferrer">docs</a>' in html
    assert "<em>see</em>" in html


@pytest.mark.parametrize(
    "markdown",
    [
        'Before\n\n<iframe src="https://example.org">\n\n**After**',
        "Before <noscript>\n\n**After**",
        'Before\n\n<iframe src="https://example.org"\n\n**After**',
    ],
)
def test_an_element_left_open_does_not_swallow_what_follows(markdown: str) -> None:
    html = render_markdown(markdown)
    assert "<strong>After</strong>" in html
    assert "&lt;" not in html
    assert "iframe" not in html


def test_an_open_textarea_keeps_what_follows_as_text() -> None:
    # CommonMark reads raw HTML from <textarea> to its end tag, so no Markdown there.
    html = render_markdown("Before\n\n<textarea>\n\n**After**")
    assert "**After**" in html
    assert "textarea" not in html
    assert "&lt;" not in html


@pytest.mark.parametrize("text", ["#", "-", "+", "1. yes", "> 0", "    x = 1", "==="])
def test_a_choice_is_a_phrase_shown_as_typed_not_a_heading_or_a_list(text: str) -> None:
    """As a block, "#" is an empty heading and "-" an empty list: a choice label of nothing."""
    html = render_inline_markdown(text)
    assert "<h1>" not in html
    assert "<li>" not in html
    assert not shows_nothing(html)
    assert shows_nothing(render_markdown("#"))


def test_a_choice_keeps_its_inline_marks_and_loses_what_is_unsafe() -> None:
    html = render_inline_markdown("**x** and `y` and $z^2$ <script>alert(1)</script>")
    assert "<strong>x</strong>" in html
    assert "<code>y</code>" in html
    assert 'class="math' in html
    assert "script" not in html
    assert shows_nothing(render_inline_markdown("<script>alert(4)</script>"))


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("<p>Yes</p>", "Yes"),
        ("<p>It <em>is</em></p><p>differentiable</p>", "It <em>is</em> differentiable"),
        ("<ul><li>one</li><li>two</li></ul>", "one two"),
        ('<div class="math block">x</div> <h2>heading</h2>', "x heading"),
    ],
)
def test_a_choice_written_as_raw_block_html_keeps_its_text_as_a_phrase(
    text: str, shown: str
) -> None:
    """A choice sits in its <label> (phrasing content only): an imported `<p>Yes</p>` must not
    put a paragraph, a list or a heading inside it."""
    assert " ".join(render_inline_markdown(text).split()) == shown


@pytest.mark.parametrize("text", ["$$\\frac{1}{2}$$", "about $$x^2$$ here"])
def test_a_choice_written_with_display_math_shows_a_formula_not_dollar_signs(text: str) -> None:
    """As a block, `$$...$$` is display math; inline, it read as `$` + `$...$` + `$`."""
    html = render_inline_markdown(text)
    assert '<span class="math inline">' in html
    assert "$" not in html


@pytest.mark.parametrize(
    ("text", "empty"),
    [
        ("![a cat](cat.png)", False),
        ('<img alt="" src="cat.png">', False),
        ('<img src="data:image/png;base64,iVBORw0KGgo=">', True),
        ('<img alt="a cat" src="javascript:alert(1)">', True),
    ],
)
def test_an_image_shows_something_only_with_a_source_the_page_keeps(text: str, empty: bool) -> None:
    """Sanitizing drops a data: or javascript: source, leaving an <img> that shows nothing."""
    assert shows_nothing(render_inline_markdown(text)) is empty
    assert shows_nothing(render_markdown(text)) is empty
