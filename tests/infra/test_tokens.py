"""Bearer tokens: what a verified token gives back, and what is refused, first time or again."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from uuid import uuid4

import pytest

from bemtevi.domain.errors import ExpiredToken, Unauthorized
from bemtevi.infra import tokens as tokens_module
from bemtevi.infra.tokens import TokenClaims, TokenIssuer


def _claims() -> TokenClaims:
    return TokenClaims(session_id=uuid4(), user_id=uuid4(), group_id=uuid4(), role="admin")


def test_a_token_reads_back_its_claims_every_time() -> None:
    issuer = TokenIssuer("k" * 32)
    claims = _claims()
    token = issuer.issue(claims, datetime.now(UTC) + timedelta(hours=1))
    assert issuer.read(token) == claims
    assert issuer.read(token) == claims


def test_a_tampered_token_is_refused_even_after_the_genuine_one_was_read() -> None:
    issuer = TokenIssuer("k" * 32)
    token = issuer.issue(_claims(), datetime.now(UTC) + timedelta(hours=1))
    issuer.read(token)
    header, payload, signature = token.split(".")
    forged = f"{header}.{payload}.{signature[:-2]}{'AA' if signature[-2:] != 'AA' else 'BB'}"
    with pytest.raises(Unauthorized):
        issuer.read(forged)
    with pytest.raises(Unauthorized):
        TokenIssuer("another key of 32 characters....").read(token)


def test_an_expired_token_is_refused() -> None:
    issuer = TokenIssuer("k" * 32)
    token = issuer.issue(_claims(), datetime.now(UTC) - timedelta(seconds=1))
    with pytest.raises(ExpiredToken):
        issuer.read(token)


def test_a_token_read_before_it_expired_is_refused_once_it_has(monkeypatch: pytest.MonkeyPatch) -> None:
    issuer = TokenIssuer("k" * 32)
    token = issuer.issue(_claims(), datetime.now(UTC) + timedelta(seconds=60))
    issuer.read(token)
    later = time.time() + 61
    monkeypatch.setattr(tokens_module.time, "time", lambda: later)
    with pytest.raises(ExpiredToken):
        issuer.read(token)
