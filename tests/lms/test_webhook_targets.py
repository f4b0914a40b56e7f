"""Webhooks reach no internal address (SSRF): a URL whose host resolves to one is refused
when subscribed and again when delivered, the delivery connects to the address that was
checked (a host re-resolving elsewhere changes nothing), and redirects are not followed;
hosts in WEBHOOK_ALLOWED_PRIVATE_HOSTS are let through."""

from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from config.exceptions import DomainError
from lms.errors import DeliveryFailed, WebhookUrlRefused
from lms.models import WebhookDelivery
from lms.services.webhook_targets import platform_url_refusal, webhook_target
from lms.services.webhooks import delivery_attempt, subscription_create
from quizbank.models import Quiz
from tests.grading.content import TRUE_FALSE
from tests.grading.factories import add_slots, member, new_quiz, question, submitted_attempt
from tests.lms.conftest import MakeClient
from tests.lms.receivers import serving

INTERNAL = [
    "http://169.254.169.254/latest/meta-data/",
    "http://127.0.0.1:6379/",
    "http://localhost/hook",
    "http://10.1.2.3/hook",
    "http://172.16.0.1/hook",
    "http://192.168.1.10/hook",
    "http://100.64.0.1/hook",
    "http://0.0.0.0/hook",
    "http://224.0.0.1/hook",
    "http://240.0.0.1/hook",
    "http://[::1]/hook",
    "http://[::]/hook",
    "http://[fe80::1]/hook",
    "http://[fc00::1]/hook",
    "http://[::ffff:127.0.0.1]/hook",
    "http://[::ffff:a9fe:a9fe]/hook",
    "http://[2002:7f00:1::]/hook",
    "http://[64:ff9b::a00:1]/hook",
]


def test_a_subscription_to_an_internal_address_is_refused_naming_the_url(
    make_client: MakeClient,
) -> None:
    _, api = make_client(scopes=["grades:read"])
    for url in INTERNAL:
        reply = api.post("/api/webhooks/", {"url": url, "events": ["mark.changed"]}, format="json")
        assert reply.status_code == 400, url
        error = reply.json()["error"]
        assert error["code"] == "webhook_url_refused", url
        assert "internal address" in error["fields"]["url"][0], url
    assert not api.get("/api/webhooks/").json()["results"]


@pytest.mark.parametrize(
    "spelling", ["2130706433", "017700000001", "0x7f000001", "0177.0.0.1", "127.1", "0x7f.1"]
)
def test_decimal_octal_and_hex_spellings_of_loopback_are_judged_by_their_address(
    spelling: str,
) -> None:
    with pytest.raises(WebhookUrlRefused, match="127.0.0.1"):
        webhook_target(f"http://{spelling}:8080/hook")


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ftp://93.184.216.34/hook", "http:// or https://"),
        ("file:///etc/passwd", "http:// or https://"),
        ("gopher://127.0.0.1:6379/_INFO", "http:// or https://"),
        ("http:///hook", "no host"),
        ("http://93.184.216.34:99999/hook", "port"),
        ("http://no-such-host.invalid/hook", "does not resolve"),
    ],
)
def test_other_schemes_and_broken_urls_are_refused(url: str, why: str) -> None:
    with pytest.raises(WebhookUrlRefused, match=why) as refused:
        webhook_target(url)
    assert isinstance(refused.value, DomainError)
    assert list(refused.value.fields) == ["url"]


def test_a_public_address_is_accepted_and_is_what_delivery_connects_to() -> None:
    target = webhook_target("https://93.184.216.34:8443/hook?team=7")
    assert (target.scheme, target.host, target.port) == ("https", "93.184.216.34", 8443)
    assert (target.path, target.address) == ("/hook?team=7", "93.184.216.34")


def test_a_host_in_the_allow_list_may_be_internal(settings: Any) -> None:
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["LOCALHOST"]
    assert webhook_target("http://localhost:9/hook").address in ("127.0.0.1", "::1")
    with pytest.raises(WebhookUrlRefused):
        webhook_target("http://127.0.0.1:9/hook")


class Hits:
    def __init__(self) -> None:
        self.paths: list[str] = []
        self.hosts: list[str] = []


@pytest.fixture
def redirecting_receiver() -> Iterator[tuple[Hits, int]]:
    """A receiver on 127.0.0.1 that answers /hook with a redirect to /elsewhere."""
    hits = Hits()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            hits.paths.append(self.path)
            hits.hosts.append(self.headers["Host"])
            if self.path == "/hook":
                self.send_response(307)
                self.send_header("Location", "/elsewhere")
            else:
                self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    with serving(Handler) as port:
        yield hits, port


def _subscribed_quiz(make_client: MakeClient, url: str) -> Quiz:
    client, _ = make_client(scopes=["grades:read"])
    quiz = new_quiz()
    add_slots(quiz, question(quiz.course, TRUE_FALSE))
    member(quiz.course, "examiner", client.user)
    subscription_create(client=client, url=url, events=["attempt.submitted"])
    return quiz


def _delivery_of_a_submission(quiz: Quiz) -> WebhookDelivery:
    submitted_attempt(quiz, member(quiz.course, "student"), {0: {"value": True}})
    return WebhookDelivery.objects.get()


def test_a_host_that_turns_internal_after_subscribing_gets_nothing(
    make_client: MakeClient,
    redirecting_receiver: tuple[Hits, int],
    fake_dns: dict[str, list[str]],
) -> None:
    hits, port = redirecting_receiver
    fake_dns["hooks.lms.test"] = ["93.184.216.34", "127.0.0.1"]
    quiz = _subscribed_quiz(make_client, f"http://hooks.lms.test:{port}/hook")
    delivery = _delivery_of_a_submission(quiz)
    with pytest.raises(DeliveryFailed, match="internal address"):
        delivery_attempt(delivery_pk=delivery.pk, now=delivery.created_at)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.tries) == ("pending", 1)
    assert "127.0.0.1" in delivery.last_error
    assert hits.paths == []


def test_delivery_connects_to_the_checked_address_and_follows_no_redirect(
    make_client: MakeClient,
    redirecting_receiver: tuple[Hits, int],
    fake_dns: dict[str, list[str]],
    settings: Any,
) -> None:
    hits, port = redirecting_receiver
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["hooks.lms.test"]
    # Subscribed and checked as 127.0.0.1; a further lookup (a connection resolving the
    # name again) would get an unroutable address and reach no receiver.
    fake_dns["hooks.lms.test"] = ["127.0.0.1", "127.0.0.1", "192.0.2.1"]
    quiz = _subscribed_quiz(make_client, f"http://hooks.lms.test:{port}/hook")
    delivery = _delivery_of_a_submission(quiz)
    with pytest.raises(DeliveryFailed, match="HTTP 307"):
        delivery_attempt(delivery_pk=delivery.pk, now=delivery.created_at)
    assert hits.paths == ["/hook"]
    assert hits.hosts == [f"hooks.lms.test:{port}"]


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("http://127.0.0.1:9/lineitems", True),  # the registered host and port
        ("http://127.0.0.1:6379/", False),  # the same host, another port: Redis
        ("https://127.0.0.1/", False),  # another scheme's default port
    ],
)
def test_a_platform_service_url_must_use_a_registered_host_and_port(
    url: str, allowed: bool
) -> None:
    refusal = platform_url_refusal(url, ["http://127.0.0.1:9/token"])
    assert (refusal is None) is allowed, refusal
