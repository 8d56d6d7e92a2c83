"""A consultation's purpose through the commands: the text recorded (any text: blanks folded, bounded), carried by
the ledger's requests (older requests without it still read), and a group's requirement enforced wherever a lookup
is decided, also when its unit comes from a lease of the API process (which skips the ledger)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from uuid import uuid4

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import KNOWN_CPF, lookup_record, new_tenant, super_admin
from test_leases import leasing, look_up_until_leased, worker  # noqa: F401 (fixtures)

from bemtevi.bootstrap import Platform
from bemtevi.commands.ledger import LeasingLedger
from bemtevi.commands.ledger.codec import decode_request, encode_request
from bemtevi.domain.consultations import PURPOSE_MAX, Consultation, ConsultationStatus, purpose_of
from bemtevi.domain.errors import PurposeRequired, TextTooLong
from bemtevi.domain.groups import Group


@given(st.text())
def test_a_purpose_is_recorded_as_its_words_or_refused_past_its_limit(text: str) -> None:
    words = text.split()
    folded = " ".join(words)
    if len(folded) > PURPOSE_MAX:
        with pytest.raises(TextTooLong) as refused:
            purpose_of(text)
        assert (refused.value.code, refused.value.limit, refused.value.field) == (
            "text_too_long",
            PURPOSE_MAX,
            "purpose",
        )
        return
    recorded = purpose_of(text)
    if not words:
        assert recorded is None  # only blanks: nothing was said
    else:
        assert recorded == folded and recorded.split() == words
        assert purpose_of(recorded) == recorded  # recording it again changes nothing


def test_lookup_requests_carry_the_purpose_and_older_ones_read_without_it() -> None:
    request = lookup_record(uuid4()).request
    said = replace(request, purpose="Análise de crédito")
    for each in (
        said,
        said.answered(ConsultationStatus.DONE),
        said.finished("cpf-simples", None, ConsultationStatus.DONE),
    ):
        assert decode_request(encode_request(each)) == each
        assert each.purpose == "Análise de crédito"
        older = orjson.loads(encode_request(each))
        del older["purpose"]
        assert decode_request(orjson.dumps(older)).purpose is None  # type: ignore[union-attr]


def test_a_group_requires_no_purpose_until_it_says_so(platform: Platform) -> None:
    principal = new_tenant(platform, "Empresa Nova", 5)
    group = platform.app.get(principal.group_id, Group)
    # Never set (as a group registered, or snapshotted, before the setting existed): not required.
    assert not hasattr(group, "purpose_required") and group.requires_purpose() is False
    outcome = platform.consultations.run_unit_query(principal, KNOWN_CPF)
    assert platform.app.get(outcome.consultation_id, Consultation).purpose is None


def test_a_required_purpose_is_enforced_also_for_lookups_drawn_from_a_lease(
    platform: Platform,
    leasing: Callable[..., LeasingLedger],  # noqa: F811
) -> None:
    principal = new_tenant(platform, "Empresa Ocupada", 5_000)
    client = leasing(lease_seconds=5)
    look_up_until_leased(platform, client, principal, [KNOWN_CPF])
    platform.customers.require_purpose(super_admin(platform), principal.group_id, True)

    deadline = time.monotonic() + 20
    while True:
        outcome = platform.consultations.run_unit_query(principal, KNOWN_CPF, purpose="Prevenção à fraude")
        consultation = platform.app.get(outcome.consultation_id, Consultation)
        assert consultation.purpose == "Prevenção à fraude"
        if consultation.lease_id is not None:
            break  # a lease of the account is open: the next lookup would draw from it
        assert time.monotonic() < deadline, "no lookup was drawn from a lease"
    recorded = client.recorded
    with pytest.raises(PurposeRequired):
        platform.consultations.run_unit_query(principal, KNOWN_CPF)
    assert client.recorded == recorded  # nothing recorded under the lease for it
