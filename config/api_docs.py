"""The API's docs page (Swagger UI over /api/schema/)."""

from drf_spectacular.views import SpectacularSwaggerView


class SwaggerDocsView(SpectacularSwaggerView):
    """The docs page, GET (and HEAD) only: DRF answers OPTIONS with its metadata, which the
    page's HTML template renderer cannot render (a 500); now a 405 like any other method."""

    http_method_names = ["get", "head"]
