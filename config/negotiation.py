"""Content negotiation that never refuses: the API speaks JSON to every client."""

from collections.abc import Iterable

from django.http import Http404
from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request


class LenientContentNegotiation(DefaultContentNegotiation):
    """DRF's negotiation, except that an Accept header or `?format=` no renderer offers
    gets the view's first renderer (JSON for the API) instead of a 406 or a 404."""

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        offered = list(renderers)
        try:
            renderer, media_type = super().select_renderer(request, offered, format_suffix)
        except (NotAcceptable, Http404):
            renderer = offered[0]
            media_type = str(renderer.media_type)
        return renderer, str(media_type)
