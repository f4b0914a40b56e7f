"""Where a webhook may be sent (no SSRF): an http(s) URL whose host resolves only to
public addresses, unless the host is in `settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS`.

An LTI platform's service URLs (AGS line items, NRPS memberships) come in its launches,
so they pass the same rule, with the hosts the site admin registered for that platform
trusted as well (a campus Moodle on a private network serves its services where its
token endpoint is).

The check runs when a URL is subscribed and again at every delivery (and every platform
service call), and the request connects to the very address that was checked, so a host
that re-resolves to an internal address between the check and the connection (DNS
rebinding) reaches nothing.
"""

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

import certifi
import urllib3
from django.conf import settings

from lms.errors import WebhookUrlRefused

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_SCHEMES = {"http": 80, "https": 443}
# IPv6 prefixes that carry an IPv4 address in their last 32 bits (NAT64, RFC 6052).
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


@dataclass(frozen=True)
class WebhookTarget:
    scheme: str
    host: str  # as written in the URL, for the Host header and TLS
    port: int
    path: str  # with the query
    address: str  # the checked address to connect to


def _refused(message: str) -> WebhookUrlRefused:
    return WebhookUrlRefused(message, fields={"url": [message]})


def _embedded_ipv4(ip: IpAddress) -> ipaddress.IPv4Address | None:
    if not isinstance(ip, ipaddress.IPv6Address):
        return None
    if ip.ipv4_mapped or ip.sixtofour:
        return ip.ipv4_mapped or ip.sixtofour
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def address_is_public(ip: IpAddress) -> bool:
    """Not loopback, private, link-local, multicast, reserved, unspecified or otherwise
    non-global; an IPv4 address inside an IPv6 one is judged as itself."""
    inner = _embedded_ipv4(ip)
    if inner is not None and not address_is_public(inner):
        return False
    internal = (
        ip.is_loopback,
        ip.is_private,
        ip.is_link_local,
        ip.is_multicast,
        ip.is_reserved,
        ip.is_unspecified,
        not ip.is_global,
    )
    return not any(internal)


def _resolve(host: str, port: int) -> list[IpAddress]:
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise _refused(f"The URL's host {host!r} does not resolve.") from exc
    # An IPv6 answer may carry a zone ("fe80::1%eth0"); the address is what comes before.
    return [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in found]


def _parts(url: str) -> tuple[str, str, int, str]:
    try:
        parts = urlsplit(url.strip())
    except ValueError as exc:  # an unclosed IPv6 bracket
        raise _refused(f"The URL is not a URL: {exc}.") from exc
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if scheme not in _SCHEMES:
        raise _refused("The URL must start with http:// or https://.")
    if not host:
        raise _refused("The URL has no host.")
    try:
        port = parts.port or _SCHEMES[scheme]
    except ValueError as exc:
        raise _refused("The URL's port is not a number from 0 to 65535.") from exc
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return scheme, host, port, path


def _host_and_port(url: str) -> tuple[str, int]:
    try:
        parts = urlsplit(url.strip())
        port = parts.port or _SCHEMES.get(parts.scheme.lower(), 0)
    except ValueError:
        return "", -1  # a registered URL with a broken port or host matches nothing
    return (parts.hostname or "").lower(), port


def platform_target(url: str, registered_urls: list[str]) -> WebhookTarget | None:
    """Where a service URL that an LTI platform's launch named may be called: None for a host
    and port of `registered_urls` (the admin's registration, reached by its name), else the
    checked target of `webhook_target` (a host in the allow-list, or one that resolves only
    to public addresses); WebhookUrlRefused otherwise."""
    _scheme, host, port, _path = _parts(url)
    if (host, port) in {_host_and_port(known) for known in registered_urls}:
        return None
    return webhook_target(url)


def platform_url_refusal(url: str, registered_urls: list[str]) -> str | None:
    """Why `platform_target` refuses `url` (None: it may be called)."""
    try:
        platform_target(url, registered_urls)
    except WebhookUrlRefused as refused:
        return platform_refusal(refused)
    return None


def platform_refusal(refused: WebhookUrlRefused) -> str:
    return f"the platform's service URL is refused: {refused.message}"


def webhook_target(url: str) -> WebhookTarget:
    """The URL's parts and the checked address to connect to; WebhookUrlRefused (naming
    the `url` field) for another scheme, a host that does not resolve, or one that
    resolves to any internal address and is not allowed by the settings."""
    scheme, host, port, path = _parts(url)
    addresses = _resolve(host, port)
    allowed = {name.lower() for name in settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS}
    if host not in allowed:
        internal = sorted({str(ip) for ip in addresses if not address_is_public(ip)})
        if internal or not addresses:
            raise _refused(
                f"The URL's host {host!r} resolves to an internal address "
                f"({', '.join(internal)}); only public addresses are reached."
            )
    return WebhookTarget(scheme, host, port, path, str(addresses[0]))


def host_header(target: WebhookTarget) -> str:
    """The Host header of a request to `target` (connected to by address)."""
    host = f"[{target.host}]" if ":" in target.host else target.host
    return host if target.port == _SCHEMES[target.scheme] else f"{host}:{target.port}"


def _pool(target: WebhookTarget, timeout_s: float) -> urllib3.HTTPConnectionPool:
    timeout = urllib3.Timeout(total=timeout_s)
    if target.scheme == "http":
        return urllib3.HTTPConnectionPool(target.address, target.port, timeout=timeout)
    # TLS names and verifies the host as written, over a connection to the checked address.
    return urllib3.HTTPSConnectionPool(
        target.address,
        target.port,
        timeout=timeout,
        server_hostname=target.host,
        assert_hostname=target.host,
        cert_reqs="CERT_REQUIRED",
        ca_certs=certifi.where(),
    )


def target_post(
    target: WebhookTarget, *, body: bytes, headers: dict[str, str], timeout_s: float
) -> int:
    """POST to the checked address (no retries, no redirects followed); the status code.
    urllib3's HTTPError when the receiver cannot be reached."""
    with _pool(target, timeout_s) as pool:
        reply = pool.urlopen(
            "POST",
            target.path,
            body=body,
            headers={**headers, "Host": host_header(target)},
            redirect=False,
            retries=False,
            preload_content=False,
        )
        reply.close()
        return reply.status
