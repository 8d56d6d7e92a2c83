"""A lease's tally: counted by its holder, closed by the ledger; both append to it, so the store orders them."""

from __future__ import annotations

from uuid import uuid4

import pytest
from eventsourcing.persistence import IntegrityError

from bemtevi.commands.application import BemteviApplication
from bemtevi.domain.audit import acting_as
from bemtevi.domain.leases import LeaseTally, lease_tally_id
from bemtevi.domain.principals import SYSTEM


def test_a_count_saved_against_a_tally_closed_meanwhile_is_refused_by_the_store() -> None:
    app = BemteviApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    lease_id, group_id = uuid4(), uuid4()
    with acting_as(SYSTEM):
        tally = LeaseTally(lease_id, group_id)
        app.save(tally)
        holders, ledgers = app.repository.get(tally.id), app.repository.get(tally.id)
        holders.count("consultation-1")
        app.save(holders)
        ledgers.close()  # decided on the tally as it was before the holder's count
        with pytest.raises(IntegrityError):
            app.save(ledgers)
        settled = app.repository.get(tally.id)  # decided again on the new tally: the count is in it
        assert settled.charged == ["consultation-1"]
        settled.close()
        app.save(settled)
        late = app.repository.get(tally.id)
    assert late.closed and late.id == lease_tally_id(lease_id)
