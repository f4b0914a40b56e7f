"""Read a rendered admin form back into POST data, as a browser would submit it."""

from __future__ import annotations

from html.parser import HTMLParser


class _FormParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.data: dict[str, str] = {}
        self._textarea: str | None = None
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = {key: value or "" for key, value in attrs}
        name = attr.get("name")
        if tag == "input" and name and attr.get("type") not in ("submit", "button", "file"):
            if attr.get("type") in ("checkbox", "radio"):
                if "checked" in attr:
                    self.data[name] = attr.get("value", "on")
            else:
                self.data[name] = attr.get("value", "")
        elif tag == "textarea" and name:
            self._textarea = name
            self.data[name] = ""
        elif tag == "select" and name:
            self._select = name
            self.data.setdefault(name, "")
        elif tag == "option" and self._select and "selected" in attr:
            self.data[self._select] = attr.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "textarea":
            self._textarea = None
        elif tag == "select":
            self._select = None

    def handle_data(self, data: str) -> None:
        if self._textarea is not None:
            # Browsers drop the one newline that follows <textarea>.
            text = self.data[self._textarea] + data
            self.data[self._textarea] = text[1:] if text.startswith("\n") else text


def form_data(html: str) -> dict[str, str]:
    """Field values of the page's forms (the admin page has one editing form)."""
    parser = _FormParser()
    parser.feed(html)
    return {key: value for key, value in parser.data.items() if "__prefix__" not in key}
