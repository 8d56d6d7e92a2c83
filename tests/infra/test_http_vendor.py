"""The HTTP vendor adapter against the vendor simulator on loopback (no mocks): mapping, retries,
timeouts, bad answers, the circuit breaker, the bound on calls in flight, authentication."""

from __future__ import annotations

import asyncio
import base64
import itertools
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any
from uuid import uuid4

import httpx
import pytest
from raw_vendor import RawVendor
from support import run_on_a_loop_of_its_own

from bemtevi.domain.vendors import VendorConfig
from bemtevi.infra.suppliers.call_policy import VendorLimits
from bemtevi.infra.suppliers.http import request_parts
from bemtevi.infra.suppliers.simulator import SimulatorConfig, SimulatorServer
from bemtevi.infra.suppliers.vendor_error import VendorError
from bemtevi.infra.suppliers.vendor_pool import VendorPool

CPF = "39053344705"
CNPJ = "11444777000161"


@pytest.fixture
def simulator() -> Iterator[SimulatorServer]:
    with SimulatorServer(SimulatorConfig()) as server:
        yield server


def vendor(port: int, **changes: Any) -> VendorConfig:
    config = VendorConfig(
        id=uuid4(),
        version=1,
        name="Simulado",
        url="http://vendor.example",
        server="127.0.0.1",
        port=port,
        route="/v1/consulta/{document}",
        http_method="GET",
        auth_method="bearer",
        input_type="both",
        username="",
        prefix="",
        embedded_in_url_base=False,
        base_complement="/api",
        request_body="",
        allowed_query_types=("cpf-complete",),
        cache_days=30,
        validity_days=90,
        token="tok-123",
    )
    return replace(config, **changes)


def pool(**limits: Any) -> VendorPool:
    return VendorPool(VendorLimits(**{"timeout": 2.0, "retries": 2, "backoff": 0.01, **limits}))


def stats(server: SimulatorServer) -> dict[str, int]:
    return dict(server.app.stats)


def test_person_and_company_are_mapped_to_the_report_sections(simulator: SimulatorServer) -> None:
    vendors = pool()
    try:
        person = vendors.lookup(vendor(simulator.port), "cpf", CPF)
        company = vendors.lookup(vendor(simulator.port), "cnpj", CNPJ)
    finally:
        vendors.close()
    assert person is not None and person["kind"] == "person" and person["cpf"] == CPF
    assert person["name"] and person["birth_date"] and len(person["birth_date"]) == 10
    assert isinstance(person["age"], int) and person["age"] >= 18
    assert person["addresses"][0]["city"] and person["phones"][0]["number"]
    assert person["phones"][0]["type"] == "mobile" and company["phones"][0]["type"] == "landline"
    assert person["death"] is None and person["protests"] == []
    assert company is not None and company["kind"] == "company" and company["cnpj"] == CNPJ
    assert company["company_name"].endswith("Ltda") and company["address"]["state"]
    assert company["main_activity"]["code"] == "4751-2/01" and company["partners"][0]["role"]


def test_loops_that_ended_leave_nothing_behind_in_the_pool(simulator: SimulatorServer) -> None:
    # A batch asks its suppliers once per chunk, each time on a loop of its own (asyncio.run): a
    # long-running server must not keep one closed session per chunk it ever ran.
    vendors = pool()
    config = vendor(simulator.port)
    answers: list[object] = []

    def one_chunk() -> None:  # in a thread of its own, as the runner's: no loop of the test's around it
        answers.append(asyncio.run(vendors.lookup_async(config, "cpf", CPF)))

    try:
        for _ in range(5):
            chunk = threading.Thread(target=one_chunk)
            chunk.start()
            chunk.join(timeout=10)
        assert len(answers) == 5 and all(answer is not None for answer in answers)
        assert len(vendors._loops) <= 1
    finally:
        vendors.close()


def test_unknown_document_is_not_found(simulator: SimulatorServer) -> None:
    simulator.config.not_found = [CPF]
    vendors = pool()
    try:
        assert vendors.lookup(vendor(simulator.port), "cpf", CPF) is None
    finally:
        vendors.close()


def test_server_errors_are_retried_with_back_off_then_given_up(simulator: SimulatorServer) -> None:
    vendors = pool(retries=2, backoff=0.05)
    try:
        simulator.config.fail_next = 2
        assert vendors.lookup(vendor(simulator.port), "cpf", CPF) is not None
        assert stats(simulator)["requests"] == 3
        simulator.config.error_rate = 1.0
        started = time.monotonic()
        with pytest.raises(VendorError) as failed:
            vendors.lookup(vendor(simulator.port), "cpf", CPF)
        assert failed.value.reason == "server_error"
        assert stats(simulator)["requests"] == 6  # one try and two retries
        assert time.monotonic() - started >= 0.05  # paused between tries
    finally:
        vendors.close()


def test_a_vendor_that_hangs_fails_at_the_deadline(simulator: SimulatorServer) -> None:
    simulator.config.timeout_rate = 1.0
    simulator.config.hang_seconds = 5
    vendors = pool(timeout=0.4)
    try:
        started = time.monotonic()
        with pytest.raises(VendorError) as failed:
            vendors.lookup(vendor(simulator.port), "cpf", CPF)
        assert failed.value.reason == "timeout"
        assert time.monotonic() - started < 2.5  # the 5 s hang is not waited for (slack for a loaded machine)
    finally:
        vendors.close()


def test_malformed_json_is_a_bad_answer_not_retried(simulator: SimulatorServer) -> None:
    simulator.config.malformed_rate = 1.0
    vendors = pool()
    try:
        with pytest.raises(VendorError) as failed:
            vendors.lookup(vendor(simulator.port), "cpf", CPF)
        assert failed.value.reason == "bad_answer"
        assert stats(simulator)["requests"] == 1
    finally:
        vendors.close()


def test_partial_json_gives_the_sections_it_has(simulator: SimulatorServer) -> None:
    simulator.config.partial_rate = 1.0
    vendors = pool()
    try:
        person = vendors.lookup(vendor(simulator.port), "cpf", CPF)
    finally:
        vendors.close()
    assert person is not None and person["name"] and person["cpf"] == CPF
    assert person["phones"] == [] and person["addresses"] == [] and person["birth_date"] is None
    assert person["age"] is None and person["death"] is None


def test_slow_bodies_are_read_within_the_deadline_and_cut_beyond_it(simulator: SimulatorServer) -> None:
    simulator.config.slow_body_rate = 1.0
    simulator.config.slow_body_ms = 50
    vendors = pool(timeout=2.0)
    try:
        assert vendors.lookup(vendor(simulator.port), "cpf", CPF) is not None
    finally:
        vendors.close()
    simulator.config.slow_body_ms = 400
    vendors = pool(timeout=0.5, retries=0)
    try:
        with pytest.raises(VendorError) as failed:
            vendors.lookup(vendor(simulator.port), "cpf", CPF)
        assert failed.value.reason == "timeout"
    finally:
        vendors.close()


def test_the_breaker_opens_after_failures_and_closes_after_a_good_trial(simulator: SimulatorServer) -> None:
    simulator.config.error_rate = 1.0
    vendors = pool(retries=0, breaker_failures=2, open_seconds=0.5)
    config = vendor(simulator.port)
    try:
        for _ in range(2):
            with pytest.raises(VendorError):
                vendors.lookup(config, "cpf", CPF)
        assert vendors.breaker_state(config.id) == "open"
        with pytest.raises(VendorError) as failed:
            vendors.lookup(config, "cpf", CPF)
        assert failed.value.reason == "circuit_open"
        assert stats(simulator)["requests"] == 2  # the open circuit called nobody
        simulator.config.error_rate = 0.0
        time.sleep(0.6)
        assert vendors.breaker_state(config.id) == "half-open"
        assert vendors.lookup(config, "cpf", CPF) is not None
        assert vendors.breaker_state(config.id) == "closed"
    finally:
        vendors.close()


def test_calls_in_flight_per_vendor_are_bounded(simulator: SimulatorServer) -> None:
    simulator.config.latency_ms = 100
    vendors = pool(max_in_flight=2)
    config = vendor(simulator.port)

    async def many() -> list[Any]:
        return await asyncio.gather(*(vendors.lookup_async(config, "cpf", CPF) for _ in range(6)))

    try:
        started = time.monotonic()
        answers = run_on_a_loop_of_its_own(many())
        elapsed = time.monotonic() - started
    finally:
        vendors.close()
    assert all(a is not None for a in answers)
    assert stats(simulator)["in_flight_max"] == 2
    assert elapsed >= 0.3  # three waves of two


def test_a_slow_vendor_never_blocks_the_callers_event_loop(simulator: SimulatorServer) -> None:
    simulator.config.latency_ms = 600
    vendors = pool()
    config = vendor(simulator.port)

    async def lookup_while_ticking() -> tuple[Any, list[float]]:
        ticks: list[float] = []

        async def ticker() -> None:
            while True:
                ticks.append(time.monotonic())
                await asyncio.sleep(0.01)

        task = asyncio.create_task(ticker())
        answer = await vendors.lookup_async(config, "cpf", CPF)
        ticks.append(time.monotonic())
        task.cancel()
        return answer, ticks

    try:
        answer, ticks = run_on_a_loop_of_its_own(lookup_while_ticking())
    finally:
        vendors.close()
    assert answer is not None
    # The loop ran on while the vendor took 600 ms: never held for anything near it (a busy machine may make
    # each 10 ms sleep last longer, so the count of ticks says less than the longest gap between them).
    gaps = [later - earlier for earlier, later in itertools.pairwise(ticks)]
    assert len(ticks) >= 5 and max(gaps) < 0.4, (len(ticks), max(gaps))


@pytest.mark.parametrize(
    ("auth", "expected"),
    [
        ({"auth_method": "bearer", "token": "tok-1"}, "Bearer tok-1"),
        ({"auth_method": "token", "token": "tok-2"}, "tok-2"),
        ({"auth_method": "prefix", "prefix": "Chave", "token": "tok-3"}, "Chave tok-3"),
        (
            {"auth_method": "basic", "username": "ana", "password": "s3nha"},
            "Basic " + base64.b64encode(b"ana:s3nha").decode(),
        ),
        ({"auth_method": "token", "token": "tok-4", "embedded_in_url_base": True}, "tok-4"),
    ],
)
def test_each_authentication_reaches_the_vendor(
    simulator: SimulatorServer, auth: dict[str, Any], expected: str
) -> None:
    simulator.config.expected_authorization = expected
    vendors = pool()
    try:
        assert vendors.lookup(vendor(simulator.port, **auth), "cpf", CPF) is not None
        with pytest.raises(VendorError) as refused:
            vendors.lookup(vendor(simulator.port, **{**auth, "token": "wrong", "password": "wrong"}), "cpf", CPF)
        assert refused.value.reason == "client_error"
    finally:
        vendors.close()


def test_post_body_template_and_url_parts(simulator: SimulatorServer) -> None:
    config = vendor(
        simulator.port, http_method="POST", request_body='{"documento": "{document}", "produto": "completo"}'
    )
    url, headers, body = request_parts(config, CPF)
    assert url == f"http://127.0.0.1:{simulator.port}/api/v1/consulta/{CPF}"
    assert body == f'{{"documento": "{CPF}", "produto": "completo"}}'.encode()
    assert headers["authorization"] == "Bearer tok-123"
    vendors = pool()
    try:
        assert vendors.lookup(config, "cpf", CPF) is not None
    finally:
        vendors.close()
    with httpx.Client() as client:
        assert client.get(f"http://127.0.0.1:{simulator.port}/__stats").json()["ok"] == 1


def test_the_deadline_bounds_the_whole_call_retries_included() -> None:
    # A vendor that accepts and never answers: the per-try timeout and the whole call's deadline ran out
    # together, and when the per-try one won, retries followed (one lookup in 16 took three deadlines).
    deadline = 1.5
    vendors = pool(timeout=deadline, retries=2, backoff=0.05, breaker_failures=1000)

    async def one(config: VendorConfig) -> tuple[float, str]:
        started = time.monotonic()
        try:
            await vendors.lookup_async(config, "cpf", CPF)
        except VendorError as e:
            return time.monotonic() - started, e.reason
        return time.monotonic() - started, "answered"

    async def many(config: VendorConfig) -> list[tuple[float, str]]:
        return await asyncio.gather(*(one(config) for _ in range(32)))

    try:
        with RawVendor() as silent:
            ended = run_on_a_loop_of_its_own(many(vendor(silent.port)))
    finally:
        vendors.close()
    assert {reason for _, reason in ended} == {"timeout"}
    assert max(took for took, _ in ended) < deadline + 1.0, sorted(took for took, _ in ended)[-3:]


MB = 1024 * 1024


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_a_body_past_the_cap_is_refused_and_not_read(chunked: bool) -> None:
    # A 50 MB answer was read and parsed whole (+166 MB at its peak). Now: refused at the cap (1 MB by
    # default), declared or not, and the rest is never read: the vendor cannot even send it.
    vendors = pool()
    try:
        with RawVendor(body_size=50 * MB, chunked=chunked) as huge:
            with pytest.raises(VendorError) as refused:
                vendors.lookup(vendor(huge.port), "cpf", CPF)
            assert refused.value.reason == "too_large"
            assert huge.connections == 1  # not retried
            assert huge.finished == 0 and huge.sent < 20 * MB  # the socket buffers' worth, at most
    finally:
        vendors.close()


def test_the_cap_is_the_suppliers_setting() -> None:
    vendors = pool()
    try:
        with RawVendor(body_size=3000, chunked=True) as vendor_3kb:
            with pytest.raises(VendorError) as refused:
                vendors.lookup(vendor(vendor_3kb.port, max_body_kb=2), "cpf", CPF)
            assert refused.value.reason == "too_large"
            answer = vendors.lookup(vendor(vendor_3kb.port, max_body_kb=4), "cpf", CPF)
            assert answer is not None and answer["name"] == "a" * 3000
    finally:
        vendors.close()


def test_a_redirect_is_not_followed(simulator: SimulatorServer) -> None:
    # A vendor's 302 to another address (another loopback port, this server's own API) made this server
    # call it and return its answer as the vendor's.
    vendors = pool()
    with SimulatorServer(SimulatorConfig()) as elsewhere:
        simulator.config.redirect_to = f"http://127.0.0.1:{elsewhere.port}/v1/consulta/{CPF}"
        try:
            with pytest.raises(VendorError) as refused:
                vendors.lookup(vendor(simulator.port), "cpf", CPF)
        finally:
            vendors.close()
        assert refused.value.reason == "redirect"
        assert stats(simulator)["redirect"] == 1 and stats(elsewhere).get("requests", 0) == 0
