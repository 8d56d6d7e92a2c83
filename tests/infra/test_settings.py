"""Settings that would lose money are refused when a process starts, with what to change."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bemtevi.infra.settings import Settings


def test_an_abandon_time_a_live_lease_could_outlast_is_refused_at_start(monkeypatch: pytest.MonkeyPatch) -> None:
    # A lease is held up to twice its time; the ledger settles one held longer than the abandon time as a dead
    # process's, and what its live holder recorded after that would go uncharged.
    monkeypatch.setenv("BEMTEVI_LEDGER_LEASE_SECONDS", "2")
    monkeypatch.setenv("BEMTEVI_LEDGER_ABANDON_SECONDS", "5.5")
    with pytest.raises(ValidationError, match=r"BEMTEVI_LEDGER_ABANDON_SECONDS \(5.5\) must be at least twice"):
        Settings()

    monkeypatch.setenv("BEMTEVI_LEDGER_ABANDON_SECONDS", "6")
    assert Settings().ledger_abandon_seconds == 6


def test_without_leases_any_abandon_time_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BEMTEVI_LEDGER_LEASE_SECONDS", "0")
    monkeypatch.setenv("BEMTEVI_LEDGER_ABANDON_SECONDS", "1")
    assert Settings().ledger_abandon_seconds == 1
