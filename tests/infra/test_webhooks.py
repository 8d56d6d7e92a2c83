"""A batch's webhook against a real HTTP server (aiohttp) on loopback: signed, retried 3 times, never raised."""

from __future__ import annotations

import hashlib
import hmac

from support import free_port
from webhook_receiver import receiver

from bemtevi.infra.webhooks import WebhookSender


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
