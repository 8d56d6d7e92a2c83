"""When a lease stops lending units: the rule the lease keeper applies to every lease it is granted.

Were a lease's time counted from its grant, a lease asked for ahead (while the account's last one still lends)
would be drawn for only the second half of its time and go back half unused, and a steady account would cost the
ledger twice the leases; were it chained on the open ones without a bound, ends would drift past the ledger's
wait before it takes a lease for a dead process's.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bemtevi.commands.ledger.held_leases import next_lease_end

times = st.floats(min_value=0.0, max_value=1_000.0, allow_nan=False)
lease_seconds = st.floats(min_value=0.05, max_value=30.0, allow_nan=False)


@given(now=times, lease=lease_seconds, ahead=st.lists(st.floats(min_value=0.0, max_value=60.0), max_size=4))
def test_a_lease_starts_when_the_open_ones_end_but_at_most_one_lease_time_ahead(
    now: float, lease: float, ahead: list[float]
) -> None:
    open_ends = [now + a for a in ahead]
    end = next_lease_end(open_ends, now, lease)
    slack = 1e-9 * (1 + now)  # sums of floats in another order
    assert now + lease - slack <= end <= now + 2 * lease + slack  # never shorter than a lease, never two ahead
    last = max(open_ends, default=now)
    if last <= now + lease:  # the open ones end within a lease time: it starts as they end, wasting none of its time
        assert end == max(last, now) + lease


def test_a_lease_asked_for_ahead_is_not_counted_from_its_grant() -> None:
    # The account's last lease lends until 10.3; the next, granted at 10.1 with a lease time of 0.4, runs to 10.7.
    assert next_lease_end([10.3], 10.1, 0.4) == 10.3 + 0.4
