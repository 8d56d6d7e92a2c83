"""The finance statement's reads leave no DuckDB transaction open: a result left after fetchone() kept its
cursor's transaction open, and the projector's next rewrites of a group (a customer inactivated and activated)
then stopped on "write-write conflict on key" for good, so every later write went unseen (screens stuck)."""

from __future__ import annotations

from uuid import UUID, uuid4

from support import customer_form

from bemtevi.bootstrap import Platform
from bemtevi.domain.principals import ROOT_GROUP_ID, Principal
from bemtevi.domain.users import Role
from bemtevi.projections.statements import group_name


def acting(group_id: UUID, role: Role = Role.SUPER_ADMIN) -> Principal:
    return Principal(user_id=uuid4(), group_id=group_id, role=role, session_id=uuid4())


def test_a_customer_toggled_after_its_statement_was_read_still_projects(platform: Platform) -> None:
    root = acting(ROOT_GROUP_ID)
    company = platform.customers.register(
        root, customer_form("Empresa Extrato", "11.444.777/0001-61", "dono@extrato.com.br", unit=4)
    )
    assert platform.projector.wait_for(company.position, 10), platform.projector.error
    # A request thread reads the statement and its group's name, then its cursor waits for the next request.
    reader = platform.store.cursor()
    assert group_name(reader, str(company.group_id)) == "Empresa Extrato"
    for n in range(4):
        position = platform.customers.set_status(root, company.group_id, n % 2 == 1)
        assert platform.projector.wait_for(position, 10), platform.projector.error
    assert platform.projector.error is None
