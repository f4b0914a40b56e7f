"""Sign in, sign out and change password: Django's auth views on the session, with sign-in
throttled exactly as the API token endpoint and the admin login are (config/signin.py)."""

from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.urls import reverse_lazy

from config.signin import client_address, signin_begin, signin_end

SIGNIN_TEMPLATE = "web/signin.html"

_sign_in_form = auth_views.LoginView.as_view(
    template_name=SIGNIN_TEMPLATE, redirect_authenticated_user=True
)


def _locked(request: HttpRequest, seconds: int) -> HttpResponse:
    context = {"locked_for": seconds, "next": request.POST.get("next", "")}
    reply = render(request, SIGNIN_TEMPLATE, context, status=429)
    reply["Retry-After"] = str(seconds)
    return reply


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

password_change = auth_views.PasswordChangeView.as_view(
    template_name="web/password_change.html",
    success_url=reverse_lazy("web:password-change-done"),
)

password_change_done = auth_views.PasswordChangeDoneView.as_view(
    template_name="web/password_change_done.html"
)
