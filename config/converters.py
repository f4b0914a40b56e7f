"""`<id:name>` in the API's URLs: an id the database can hold, else no URL matches (404).

Importing this module registers the converter; every urls module that uses it imports it.
"""

from django.urls import register_converter

from config.fields import BIGINT_MAX


class IdConverter:
    """`<id:name>` in a URL: a non-negative id within BIGINT_MAX; anything else matches no
    URL, so it is a 404 like any id that names no row."""

    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if number > BIGINT_MAX:
            raise ValueError(f"{value} is out of range")
        return number

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")
