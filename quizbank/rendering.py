"""Markdown to safe HTML: CommonMark with tables, Pygments code, math left for KaTeX.

Authors may write raw HTML in Markdown; everything that comes out is passed
through nh3 with an allow-list, so scripts, event handlers and `javascript:`
links never reach a page.
"""

from __future__ import annotations

import re
from functools import lru_cache
from html import escape, unescape
from typing import Any

import nh3
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.token import STANDARD_TYPES
from pygments.util import ClassNotFound

_TAGS = set(
    """
    a abbr b blockquote br code dd del div dl dt em h1 h2 h3 h4 h5 h6 hr i img kbd li ol
    p pre s span strong sub sup table tbody td th thead tr ul
""".split()
)
_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title"},
    "ol": {"start"},
    "th": {"style"},
    "td": {"style"},
}
_TOKEN_CLASSES = {name for name in STANDARD_TYPES.values() if name}
_CLASSES = {
    "span": {"math", "inline", *_TOKEN_CLASSES},
    "div": {"math", "block"},
    "pre": {"highlight"},
    "code": {"math"},
}
_SCHEMES = {"http", "https", "mailto"}
# A choice sits inside its <label>, which holds phrasing content only: raw block markup in it
# (an import's `<p>yes</p>`, a `<div>`) is reduced to its text, each block's edge a space.
_PHRASING_TAGS = {"a", "abbr", "b", "br", "code", "del", "em", "i", "img", "kbd", "s", "span"}
_PHRASING_TAGS |= {"strong", "sub", "sup"}
_BLOCK_EDGE = re.compile(
    r"</?(?:address|article|aside|blockquote|dd|details|div|dl|dt|figcaption|figure|footer"
    r"|form|h[1-6]|header|hr|li|main|nav|ol|p|pre|section|summary|table|tbody|td|tfoot|th"
    r"|thead|tr|ul)\b[^>]*>",
    re.IGNORECASE,
)
# Elements whose content an HTML parser reads as plain text up to their end tag: one left
# open would turn the rest of the prompt into escaped markup. Their tags are dropped before
# sanitizing, so what follows renders as it would without them (script and style, with
# their content, are nh3's to remove).
_RAW_TEXT_TAG = re.compile(
    r"</?(?:iframe|noembed|noframes|noscript|plaintext|textarea|title|xmp)\b[^>]*(?:>|$)",
    re.IGNORECASE,
)


def _highlight(code: str, lang: str, _attrs: Any) -> str:
    try:
        lexer = get_lexer_by_name(lang) if lang else None
    except ClassNotFound:
        lexer = None
    if lexer is None:
        return f'<pre class="highlight"><code>{escape(code)}</code></pre>'
    body = highlight(code, lexer, HtmlFormatter(nowrap=True))
    return f'<pre class="highlight"><code>{body}</code></pre>'


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": True, "highlight": _highlight})
    parser.enable("table")
    # Math is kept as escaped TeX in span.math / div.math for KaTeX in the browser.
    parser.use(dollarmath_plugin, allow_digits=False)
    return parser


@lru_cache(maxsize=1)
def _inline_parser() -> MarkdownIt:
    """The parser for choices: `$$x$$` is a formula inside the phrase too (set inline, as a
    choice sits in its label), not a `$` either side of `$x$`."""
    parser = MarkdownIt("commonmark", {"html": True})
    parser.use(dollarmath_plugin, allow_digits=False, double_inline=True)
    parser.add_render_rule("math_inline_double", _math_inline)
    return parser


def _math_inline(_renderer: Any, tokens: Any, idx: int, _options: Any, _env: Any) -> str:
    return f'<span class="math inline">{escape(tokens[idx].content)}</span>'


def render_markdown(text: str) -> str:
    """Sanitized HTML for an author's Markdown (prompts, feedback, model answers)."""
    return _sanitized(_parser().render(text or ""))


def render_inline_markdown(text: str) -> str:
    """Sanitized HTML for a choice's Markdown: inline marks only (emphasis, code, math,
    links), as a choice is a phrase inside its label; one written "#", "-" or "1. yes" shows
    as typed instead of as an empty heading or a list."""
    html = _BLOCK_EDGE.sub(" ", _inline_parser().renderInline(text or ""))
    return _sanitized(html, tags=_PHRASING_TAGS).strip()


# An image the page can load: sanitizing drops a `src` it does not allow (a data: URL, say),
# leaving an empty <img>.
_IMAGE_WITH_SOURCE = re.compile(r'<img\b[^>]*\ssrc="[^"]')


def shows_nothing(html: str) -> bool:
    """Whether rendered HTML holds nothing a reader sees: no text, image or formula (all of
    its source was markup that sanitizing removes, such as `<script>...</script>`, or an
    image whose source it removes)."""
    return not plain_text(html) and not _IMAGE_WITH_SOURCE.search(html)


def _sanitized(html: str, tags: set[str] = _TAGS) -> str:
    return str(
        nh3.clean(
            _RAW_TEXT_TAG.sub("", html),
            tags=tags,
            attributes=_ATTRIBUTES,
            allowed_classes=_CLASSES,
            url_schemes=_SCHEMES,
            filter_style_properties={"text-align"},
            link_rel="noopener noreferrer",
        )
    )


def plain_text(html: str) -> str:
    """Rendered HTML as plain text: tags dropped, entities read, math left as its TeX. For
    places that cannot show the rendered form (an accessible name, a chart's label)."""
    return " ".join(unescape(nh3.clean(html or "", tags=set())).split())


def markdown_as_text(text: str) -> str:
    """An author's Markdown without its marks (`w2` for `` `w2` ``, bold for **bold**)."""
    return plain_text(render_markdown(text))


@lru_cache(maxsize=1)
def pygments_css() -> str:
    """The stylesheet for highlighted code blocks (`pre.highlight`)."""
    return str(HtmlFormatter().get_style_defs("pre.highlight"))  # type: ignore[no-untyped-call]  # untyped in types-pygments
