"""Sign in, sign out and change password: Django's auth views on the session, with sign-in
throttled exactly as the API token endpoint and the admin login are (config/signin.py)."""

import functools
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render, resolve_url
from django.urls import reverse, reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from config.signin import client_address, signin_begin, signin_end

SIGNIN_TEMPLATE = "web/signin.html"


class _SignInView(auth_views.LoginView):
    """Django's LoginView, except that a `next` naming the sign-in page itself (the header's
    "Sign in" link followed from this page, a bookmark) goes to the dashboard: Django raises
    "Redirection loop" (a 500) when a signed-in visitor would be sent back to it."""

    def get_success_url(self) -> str:
        url = super().get_success_url()
        if urlsplit(url).path == reverse("web:signin"):
            return resolve_url(settings.LOGIN_REDIRECT_URL)
        return url


_sign_in_form = _SignInView.as_view(template_name=SIGNIN_TEMPLATE, redirect_authenticated_user=True)


def _locked(request: HttpRequest, seconds: int) -> HttpResponse:
    context = {"locked_for": seconds, "next": request.POST.get("next", "")}
    reply = render(request, SIGNIN_TEMPLATE, context, status=429)
    reply["Retry-After"] = str(seconds)
    return reply


@require_http_methods(["GET", "HEAD", "POST"])
def sign_in(request: HttpRequest) -> HttpResponseBase:
    """The sign-in page; a POST that does not sign in counts as a failure, and while the
    username or the address is locked every POST is a 429 with Retry-After."""
    if request.method != "POST":
        return _sign_in_form(request)
    username, address = str(request.POST.get("username", "")), client_address(request)
    seconds = signin_begin(username=username, address=address)
    if seconds:
        return _locked(request, seconds)
    reply = _sign_in_form(request)
    succeeded = reply.status_code == 302 and request.user.is_authenticated
    signin_end(username=username, address=address, succeeded=succeeded)
    return reply


sign_out = auth_views.LogoutView.as_view()

# Class-based views also answer PUT (as a POST) and OPTIONS unless told otherwise.
_FORM_METHODS = ["get", "head", "post"]

password_change = auth_views.PasswordChangeView.as_view(
    http_method_names=_FORM_METHODS,
    template_name="web/password_change.html",
    success_url=reverse_lazy("web:password-change-done"),
)

password_change_done = auth_views.PasswordChangeDoneView.as_view(
    http_method_names=["get", "head"], template_name="web/password_change_done.html"
)


def _same_site_path(request: HttpRequest, url: str) -> str:
    """The path of `url` when it is an address of this site, else ""."""
    allowed = url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return urlsplit(url).path if url and allowed else ""


def form_action_login_required(
    view: Callable[..., HttpResponseBase],
) -> Callable[..., HttpResponseBase]:
    """`login_required` for an address that only answers a form's POST: a visitor whose
    session ended meanwhile signs in and comes back to the page the form was on, not to this
    address, which is no page."""

    @functools.wraps(view)
    def signed_in(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if request.user.is_authenticated:
            return view(request, *args, **kwargs)
        page = _same_site_path(request, request.META.get("HTTP_REFERER", ""))
        return redirect_to_login(page or resolve_url(settings.LOGIN_REDIRECT_URL))

    return signed_in


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponseBase:
    """A form sent from a page opened before its visitor signed in or out (a second tab, a
    page left open): already signed in, a sign-in goes on to where it was headed; any other
    form is refused with what to do."""
    if request.path == reverse("web:signin") and request.user.is_authenticated:
        headed = _same_site_path(request, str(request.POST.get("next", "")))
        return redirect(headed or settings.LOGIN_REDIRECT_URL)
    return render(request, "403_csrf.html", status=403)
