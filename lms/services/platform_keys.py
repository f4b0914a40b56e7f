"""A platform's public keys pasted at registration instead of a JWKS URL, for platforms
that publish none Vivabank can reach: a JWKS document (`{"keys": [...]}`, the id_token's
`kid` picks the key) or one PEM public key (used whatever the `kid`). RSA keys only, as
LTI 1.3 signs with RS256."""

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey, RSAPublicNumbers
from lti_tool.models import LtiRegistration

from config.exceptions import DomainError
from lms.models import LtiPlatformKeys

FIELD = "public_keys"
_HOW = 'Paste a JWKS document ({"keys": [...]}) or a PEM public key (-----BEGIN PUBLIC KEY-----).'


@dataclass(frozen=True)
class PlatformKeys:
    jwks: dict[str, Any] | None = None
    pem: str | None = None


def _refused(message: str) -> DomainError:
    return DomainError(message, fields={FIELD: [message]})


def _pem(text: str) -> PlatformKeys:
    if "PRIVATE KEY" in text:
        raise _refused("That is a private key: paste the platform's public key only.")
    try:
        key = serialization.load_pem_public_key(text.encode())
    except (ValueError, TypeError) as exc:
        raise _refused(f"The PEM public key cannot be read ({exc}).") from exc
    if not isinstance(key, RSAPublicKey):
        raise _refused("The PEM public key is not an RSA key (LTI 1.3 signs with RS256).")
    return PlatformKeys(pem=text)


def _number(key: dict[str, Any], name: str, where: str) -> int:
    value = key.get(name)
    if not isinstance(value, str) or not value:
        raise _refused(f"{where}: `{name}` is missing.")
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError) as exc:
        raise _refused(f"{where}: `{name}` is not base64url.") from exc
    return int.from_bytes(raw, "big")


def _jwk_check(key: Any, index: int) -> None:
    where = f"Key {index + 1} of the JWKS"
    if not isinstance(key, dict):
        raise _refused(f"{where} is not a JSON object.")
    if key.get("kty") != "RSA":
        raise _refused(f"{where} is not an RSA key (kty RSA; LTI 1.3 signs with RS256).")
    if not isinstance(key.get("kid"), str) or not key["kid"]:
        raise _refused(f"{where} has no `kid` (launches name their key by it).")
    if "d" in key:
        raise _refused(f"{where} is a private key: paste the platform's public keys only.")
    try:
        RSAPublicNumbers(_number(key, "e", where), _number(key, "n", where)).public_key()
    except ValueError as exc:
        raise _refused(f"{where} is not a valid RSA public key ({exc}).") from exc


def _jwks(text: str) -> PlatformKeys:
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise _refused(f"The JWKS is not valid JSON ({exc}).") from exc
    keys = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(keys, list) or not keys:
        raise _refused('The JWKS has no "keys" list with at least one key.')
    for index, key in enumerate(keys):
        _jwk_check(key, index)
    return PlatformKeys(jwks={"keys": keys})


def platform_keys_parse(text: str) -> PlatformKeys:
    """The pasted keys, checked; a DomainError on `public_keys` says what is wrong."""
    text = text.strip()
    if text.startswith("{"):
        return _jwks(text)
    if text.startswith("-----BEGIN"):
        return _pem(text)
    raise _refused(_HOW)


def platform_keys_text(registration: LtiRegistration) -> str:
    """What was pasted for the registration; empty when it has none."""
    found = LtiPlatformKeys.objects.filter(registration=registration).first()
    return "" if found is None else found.text


def platform_keys_of(registration: LtiRegistration) -> PlatformKeys | None:
    """The keys launches of this registration are verified with; None: its JWKS URL."""
    text = platform_keys_text(registration)
    return platform_keys_parse(text) if text else None


def platform_keys_set(*, registration: LtiRegistration, text: str) -> None:
    """Keep the pasted keys (checked), or drop them when `text` is empty."""
    text = text.strip()
    if not text:
        LtiPlatformKeys.objects.filter(registration=registration).delete()
        return
    platform_keys_parse(text)
    LtiPlatformKeys.objects.update_or_create(registration=registration, defaults={"text": text})
