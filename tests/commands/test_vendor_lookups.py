"""Lookups that reach the HTTP suppliers (the real adapter against the simulator on loopback):
order, charging, failure releasing the credit, kept results reopened and answered from cache."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import pytest
import support
from support import KNOWN_CPF, new_tenant, simulated_vendor, super_admin

from bemtevi.bootstrap import Platform
from bemtevi.commands.consultations import CACHE_SUPPLIER
from bemtevi.domain.consultations import Consultation, ConsultationStatus
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.errors import SupplierFailed
from bemtevi.domain.query_types import Category
from bemtevi.domain.vendors import VendorForm
from bemtevi.infra.suppliers.simulator import SimulatorConfig, SimulatorServer


def unknown_cpfs(platform: Platform, count: int) -> list[str]:
    return support.unknown_cpfs(platform.supplier, count)


def form(port: int, **changes: Any) -> VendorForm:
    return simulated_vendor(port, **changes)


@pytest.fixture
def simulator() -> Iterator[SimulatorServer]:
    with SimulatorServer(SimulatorConfig(expected_authorization="Bearer tok-123")) as server:
        yield server


def available(platform: Platform, group_id: UUID) -> int:
    return platform.app.get(credit_account_id(group_id, Category.UNIT), CreditAccount).available


def test_a_document_unknown_locally_is_answered_by_the_vendor_charged_and_kept(
    sqlite_platform: Platform, simulator: SimulatorServer
) -> None:
    platform = sqlite_platform
    platform.vendors.register(super_admin(platform), form(simulator.port))
    principal = new_tenant(platform, "Empresa Vendor", limit=5)
    (cpf,) = unknown_cpfs(platform, 1)

    outcome = platform.consultations.run_unit_query(principal, cpf)
    assert outcome.status == ConsultationStatus.DONE and outcome.supplier == "Simulado"
    assert outcome.result is not None and outcome.result["cpf"] == cpf and outcome.result["name"]
    assert available(platform, principal.group_id) == 4
    assert platform.app.get(outcome.consultation_id, Consultation).supplier == "Simulado"
    kept = platform.kept_results.get(outcome.consultation_id)
    assert kept is not None and kept.result == outcome.result and kept.group_id == principal.group_id

    # A repeat within the cache days: the kept result, no vendor call, charged like any found result.
    requests = simulator.app.stats["requests"]
    again = platform.consultations.run_unit_query(principal, cpf)
    assert again.status == ConsultationStatus.DONE and again.supplier == CACHE_SUPPLIER
    assert again.result == outcome.result
    assert simulator.app.stats["requests"] == requests
    assert available(platform, principal.group_id) == 3


def test_the_local_dataset_answers_first_and_its_result_is_not_copied(
    sqlite_platform: Platform, simulator: SimulatorServer
) -> None:
    platform = sqlite_platform
    platform.vendors.register(super_admin(platform), form(simulator.port))
    principal = new_tenant(platform, "Empresa Local", limit=5)
    outcome = platform.consultations.run_unit_query(principal, KNOWN_CPF)
    assert outcome.supplier == "local" and simulator.app.stats["requests"] == 0
    assert platform.kept_results.flush()
    # The platform's own data is read again from the dataset when reopened (tests/api/test_suppliers_api.py).
    assert platform.kept_results.get(outcome.consultation_id) is None


def test_a_failing_vendor_releases_the_credit_and_answers_a_clear_error(
    sqlite_platform: Platform, simulator: SimulatorServer
) -> None:
    platform = sqlite_platform
    platform.vendors.register(super_admin(platform), form(simulator.port))
    principal = new_tenant(platform, "Empresa Falha", limit=5)
    (cpf,) = unknown_cpfs(platform, 1)
    simulator.config.error_rate = 1.0
    with pytest.raises(SupplierFailed) as failed:
        platform.consultations.run_unit_query(principal, cpf)
    assert failed.value.code == "supplier_failed" and "No credit was charged" in failed.value.message
    account = platform.app.get(credit_account_id(principal.group_id, Category.UNIT), CreditAccount)
    assert (account.used, account.reserved, account.available) == (0, 0, 5)
    simulator.config.error_rate = 0.0
    simulator.config.malformed_rate = 1.0
    with pytest.raises(SupplierFailed):
        platform.consultations.run_unit_query(principal, cpf)
    assert available(platform, principal.group_id) == 5


def test_vendors_are_tried_in_order_skipping_inactive_and_not_allowed(
    sqlite_platform: Platform, simulator: SimulatorServer
) -> None:
    platform = sqlite_platform
    admin = super_admin(platform)
    with SimulatorServer(SimulatorConfig(expected_authorization="Bearer tok-123")) as second:
        only_cnpj = platform.vendors.register(
            admin, form(second.port, name="Só CNPJ", allowed_query_types=("cnpj-complete",))
        )
        first = platform.vendors.register(admin, form(simulator.port, name="Primeiro"))
        platform.vendors.register(admin, form(second.port, name="Segundo"))
        principal = new_tenant(platform, "Empresa Ordem", limit=10)
        cpf_a, cpf_b = unknown_cpfs(platform, 2)

        simulator.config.not_found = [cpf_a]
        outcome = platform.consultations.run_unit_query(principal, cpf_a)
        assert outcome.supplier == "Segundo"
        assert simulator.app.stats["not_found"] == 1 and second.app.stats["ok"] == 1

        platform.vendors.set_active(admin, first.vendor_id, False)
        outcome = platform.consultations.run_unit_query(principal, cpf_b)
        assert outcome.supplier == "Segundo" and simulator.app.stats["requests"] == 1
        assert only_cnpj.vendor_id != first.vendor_id


def test_a_result_past_its_validity_is_gone(sqlite_platform: Platform, simulator: SimulatorServer) -> None:
    platform = sqlite_platform
    platform.vendors.register(super_admin(platform), form(simulator.port, cache_days=0, validity_days=1))
    principal = new_tenant(platform, "Empresa Validade", limit=5)
    (cpf,) = unknown_cpfs(platform, 1)
    outcome = platform.consultations.run_unit_query(principal, cpf)
    assert platform.kept_results.flush()
    kept = platform.kept_results.get(outcome.consultation_id)
    assert kept is not None and kept.valid_until - kept.created_at == pytest.approx(86_400, abs=1)
    # Cache days 0: the next lookup asks the vendor again.
    platform.consultations.run_unit_query(principal, cpf)
    assert simulator.app.stats["ok"] == 2
    assert platform.kept_results.flush()
    later = time.time() + 2 * 86_400
    assert platform.kept_results.get(outcome.consultation_id, now=later) is None
    assert platform.kept_results.purge(now=later) == 2
    assert platform.kept_results.get(outcome.consultation_id) is None


def test_a_vendors_redirect_is_not_followed_nor_charged(sqlite_platform: Platform, simulator: SimulatorServer) -> None:
    # A 302 to another loopback server answered that server's data as the vendor's, and charged it.
    platform = sqlite_platform
    platform.vendors.register(super_admin(platform), form(simulator.port))
    principal = new_tenant(platform, "Empresa Redireciona", limit=5)
    (cpf,) = unknown_cpfs(platform, 1)
    with SimulatorServer(SimulatorConfig(expected_authorization="Bearer tok-123")) as elsewhere:
        simulator.config.redirect_to = f"http://127.0.0.1:{elsewhere.port}/v1/pessoas/{cpf}"
        with pytest.raises(SupplierFailed) as failed:
            platform.consultations.run_unit_query(principal, cpf)
        assert failed.value.code == "supplier_failed"
        assert elsewhere.app.stats["requests"] == 0 and simulator.app.stats["redirect"] == 1
    account = platform.app.get(credit_account_id(principal.group_id, Category.UNIT), CreditAccount)
    assert (account.used, account.reserved, account.available) == (0, 0, 5)
