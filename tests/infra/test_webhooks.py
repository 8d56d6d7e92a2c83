"""A batch's webhook against a real HTTP server (aiohttp) on loopback: signed, retried 3 times, never raised."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import socket
import urllib.parse
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import free_port
from webhook_receiver import receiver

from bemtevi.infra.webhooks import WebhookAddressNotAllowed, WebhookSender, address_refused, require_public_host


def test_the_webhook_is_signed_with_the_batch_secret_over_the_raw_body() -> None:
    with receiver() as got:
        outcome = WebhookSender(backoff=0.01, allow_private=True).send(
            got.url, "s3cret", {"id": "b1", "status": "available", "found": 7}
        )
    assert outcome.delivered and outcome.attempts == 1 and outcome.status == 200
    [body] = got.bodies
    expected = "sha256=" + hmac.new(b"s3cret", body, hashlib.sha256).hexdigest()
    assert got.signatures == [expected]
    assert b'"found":7' in body


def test_the_webhook_headers_name_no_product() -> None:
    """A white-label's customer receives the call: the signature travels as the neutral X-Signature."""
    with receiver() as got:
        WebhookSender(backoff=0.01, allow_private=True).send(got.url, "s3cret", {"id": "b1"})
    [headers] = got.headers
    assert headers["X-Signature"].startswith("sha256=")
    assert not [f"{k}: {v}" for k, v in headers.items() if "bemtevi" in f"{k} {v}".lower()]


def test_a_failing_endpoint_is_tried_again_up_to_three_times() -> None:
    with receiver(failures_first=2) as got:
        outcome = WebhookSender(backoff=0.01, allow_private=True).send(got.url, "k", {"id": "b2"})
    assert outcome.delivered and outcome.attempts == 3
    assert len(got.bodies) == 3 and len(set(got.signatures)) == 1  # the same signed body each time

    with receiver(failures_first=10) as got:
        outcome = WebhookSender(backoff=0.01, allow_private=True).send(got.url, "k", {"id": "b3"})
    assert not outcome.delivered and outcome.attempts == 4 and outcome.status == 503
    assert len(got.bodies) == 4  # the first try and 3 retries, then given up without raising


def test_an_endpoint_that_is_down_is_an_outcome_not_an_error() -> None:
    outcome = WebhookSender(backoff=0.01, timeout=1, allow_private=True).send(
        f"http://127.0.0.1:{free_port()}/hook", None, {"id": "b4"}
    )
    assert not outcome.delivered and outcome.attempts == 4 and outcome.status is None and outcome.error


def test_a_webhook_to_the_deployments_own_network_is_not_sent() -> None:
    # A customer's URL must not reach loopback or private addresses (the database, the broker, metadata
    # services): refused before any connection, and not tried again.
    with receiver() as got:
        outcome = WebhookSender(backoff=0.01).send(got.url, "k", {"id": "b5"})
    assert not outcome.delivered and outcome.attempts == 1 and outcome.status is None
    assert got.bodies == []
    assert outcome.error is not None and "not a public address" in outcome.error
    for url in ("http://10.1.2.3/hook", "http://169.254.169.254/latest", "http://[::1]:8080/x", "ftp://example.org/"):
        assert not WebhookSender(backoff=0.01, timeout=1).send(url, None, {"id": "b6"}).delivered


# The IPv4 ranges a webhook may never reach (loopback, private, shared, link-local with the cloud metadata
# service, documentation, benchmarking, reserved, multicast, broadcast).
_REFUSED_V4 = [
    ipaddress.IPv4Network(n)
    for n in (
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
        "192.0.0.0/24", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24",
        "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4", "255.255.255.255/32",
    )
]  # fmt: skip

refused_v4 = st.sampled_from(_REFUSED_V4).flatmap(
    lambda net: st.integers(int(net.network_address), int(net.broadcast_address)).map(ipaddress.IPv4Address)
)
# Public: global, unicast and in none of the ranges above (Python before 3.11.10 calls 192.0.0.9 and .10 global,
# which the IANA registry does not: drawn once in a while, they were refused as they should be).
public_v4 = (
    st.integers(0, 2**32 - 1)
    .map(ipaddress.IPv4Address)
    .filter(lambda a: a.is_global and not a.is_multicast and not any(a in net for net in _REFUSED_V4))
)


def _forms(v4: ipaddress.IPv4Address, low: int) -> dict[str, ipaddress.IPv6Address]:
    """Each IPv6 form that carries ``v4`` (``low``: the bits an embedding leaves free)."""
    n = int(v4)
    return {
        "mapped": ipaddress.IPv6Address(0xFFFF << 32 | n),
        "compatible": ipaddress.IPv6Address(n),
        "nat64": ipaddress.IPv6Address(int(ipaddress.IPv6Address("64:ff9b::")) | n),
        "nat64-local": ipaddress.IPv6Address(int(ipaddress.IPv6Address("64:ff9b:1::")) | (low & 0xFFFF) << 32 | n),
        "6to4": ipaddress.IPv6Address(0x2002 << 112 | n << 80 | (low & (2**80 - 1))),
        "teredo-server": ipaddress.IPv6Address(0x20010000 << 96 | n << 64 | (low & (2**64 - 1))),
        "teredo-client": ipaddress.IPv6Address(0x20010000 << 96 | (low & (2**64 - 1)) << 32 | (~n & 0xFFFFFFFF)),
    }


def test_the_cloud_metadata_address_is_refused_in_every_ipv6_form() -> None:
    for form in ("64:ff9b::a9fe:a9fe", "::a9fe:a9fe", "2002:a9fe:a9fe::1", "::ffff:169.254.169.254"):
        assert address_refused(ipaddress.ip_address(form)), form
        with pytest.raises(WebhookAddressNotAllowed):
            require_public_host(f"http://[{form}]/hook")


@given(refused_v4, st.integers(0, 2**80 - 1))
def test_a_refused_ipv4_address_is_refused_in_every_ipv6_form(v4: ipaddress.IPv4Address, low: int) -> None:
    assert address_refused(v4)
    for name, v6 in _forms(v4, low).items():
        assert address_refused(v6), (name, v6)


@given(public_v4, st.integers(0, 2**80 - 1))
def test_a_public_ipv4_address_through_nat64_or_6to4_is_judged_as_itself(v4: ipaddress.IPv4Address, low: int) -> None:
    forms = _forms(v4, low)
    assert not address_refused(v4)
    for name in ("mapped", "nat64", "6to4"):
        assert not address_refused(forms[name]), (name, forms[name])


def test_a_name_that_answers_a_public_address_then_a_private_one_is_refused_at_connect(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # DNS rebinding: the check before the try sees a public address, the connection would see loopback.
    # The address is checked on the answer the connection itself uses, so nothing reaches the receiver.
    real = socket.getaddrinfo
    asked: list[str] = []

    def rebinding(host: str, port: object, *args: object, **kwargs: object) -> list[Any]:
        if host != "hook.example":
            return real(host, port, *args, **kwargs)  # type: ignore[arg-type]
        asked.append(host)
        answer = "93.184.215.14" if len(asked) == 1 else "127.0.0.1"
        return real(answer, port, *args, **kwargs)  # type: ignore[arg-type]

    with receiver() as got:
        port = urllib.parse.urlsplit(got.url).port
        monkeypatch.setattr(socket, "getaddrinfo", rebinding)
        outcome = WebhookSender(backoff=0.01, timeout=2).send(f"http://hook.example:{port}/hook", "k", {"id": "b7"})
        monkeypatch.undo()
    assert got.bodies == []
    assert not outcome.delivered and outcome.error is not None and "not a public address" in outcome.error
    assert len(asked) >= 2  # checked before the try, and again on the connection's own answer
