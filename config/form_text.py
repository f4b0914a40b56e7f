"""The one text rule (config/text.py) for the browser pages' forms, which not every page
reads through a Django form: a POST field with a NUL character or a lone surrogate is
refused here with a 400 naming the field, before any view could try to store it. A form
over Django's size or field-count limits is refused here too, saying which, instead of as
a bare 400."""

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from config.http_errors import is_api_path
from config.text import TEXT_MESSAGE, is_storable


class StorableFormTextMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method == "POST" and not is_api_path(request):
            try:
                fields = list(request.POST.lists())
            except RequestDataTooBig:
                limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
                message = (
                    f"The form is larger than the {limit:,} bytes a page takes (files apart). "
                    "Go back, shorten what you typed and send it again."
                )
                return render(request, "400.html", {"message": message}, status=413)
            except TooManyFieldsSent:
                limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
                message = f"The form has more than {limit:,} fields, more than a page takes."
                return render(request, "400.html", {"message": message}, status=400)
            bad = sorted(
                {
                    name
                    for name, values in fields
                    for value in values
                    if not (is_storable(name) and is_storable(value))
                }
            )
            if bad:
                names = ", ".join(name.replace("\x00", "")[:40] for name in bad[:5])
                message = (
                    f"The field {names} holds a character that cannot be stored. "
                    f"{TEXT_MESSAGE} Go back, correct it and send the form again."
                )
                return render(request, "400.html", {"message": message}, status=400)
        return self.get_response(request)
