"""Who acts: the principal a request is made by, and the system acting for the root group.

Plain values every layer needs (the api's dependencies, the commands' checks, the ledger's system
movements), kept here so that none of them has to import the identity use cases to name a caller.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from bemtevi.domain.audit import Actor
from bemtevi.domain.customers import consults_protests, uses_default_query
from bemtevi.domain.users import Role

ROOT_GROUP_ID = uuid5(NAMESPACE_URL, "https://bemtevi.example/groups/root")
# The system itself (no user) acting for the root group: first start, seeds, sweeps, a lease settled from the log.
SYSTEM = Actor(user_id=None, tenant_id=ROOT_GROUP_ID)


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling, as established from a bearer token and an open session."""

    user_id: UUID
    group_id: UUID
    role: Role
    session_id: UUID
    # A user at first access: only choosing a password (and logout) is allowed.
    first_access: bool = False
    # The group's customer-form flags a lookup's answer obeys, read from the group where the caller is
    # checked (already loaded there), so a lookup reads no group again. A group without them (the root,
    # one registered before the form had them) keeps what it always had: both on.
    consults_protests: bool = True
    uses_default_query: bool = True

    @property
    def actor(self) -> Actor:
        return Actor(user_id=self.user_id, tenant_id=self.group_id)


def with_group_flags(principal: Principal, profile: dict[str, Any] | None) -> Principal:
    """``principal`` with its group's lookup flags (``profile``: the group's customer form)."""
    return replace(
        principal, consults_protests=consults_protests(profile), uses_default_query=uses_default_query(profile)
    )
