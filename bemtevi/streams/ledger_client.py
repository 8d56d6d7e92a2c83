"""The API process's side of cluster mode's ledger: requests to Kafka, answers from a reply topic.

A request (``bemtevi.commands.ledger``) goes to the topic ``bemtevi.ledger`` in the partition of its
partition key (the group whose accounts it decides), so one ledger worker owns each group's accounts.
Requests travel in batches: one sender (a coroutine on the client's own aiokafka loop) takes every
request queued while its previous send was in flight and sends one record per partition (the
partition computed from the key as Kafka's default partitioner does), whose value names this
process's reply topic and lists the requests, each with its correlation id and its caller's
deadline. The worker answers a batch with one record per reply topic: the list of answers (each
request's value or refusal, and the position of its append). Callers wait, bounded
(``BEMTEVI_LEDGER_TIMEOUT_SECONDS``), on a future of their own loop (a thread with none on one of its own,
``bemtevi.infra.blocking``).

The reply topic is this process's own (one partition, created at start, deleted at close), read on
the same loop outside any consumer group from its first record. A request delivered twice (Kafka is
at least once) is answered twice: the second answer finds no caller waiting and is dropped. aiokafka
rather than kafka-python's I/O threads: a produce round costs about a third of the CPU
(docs/architecture.md, "Cluster mode: the ledger").
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from uuid import uuid4

import orjson
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from kafka import KafkaAdminClient
from kafka.partitioner.default import murmur2

from bemtevi.commands import ledger
from bemtevi.commands.group_commit import Outcome
from bemtevi.commands.ledger import LedgerClient, Request, ReserveLookup, error_from_json, request_to_json
from bemtevi.infra.failure_log import RepeatedFailureLog
from bemtevi.infra.kafka import ensure_topic

log = logging.getLogger(__name__)


class LedgerUnavailable(ledger.LedgerUnavailable):
    """No ledger worker answered in time."""


@dataclass(slots=True)
class _Pending:
    request: Request
    correlation_id: int
    deadline: float
    future: asyncio.Future[None] | None = None
    answer: dict[str, Any] = field(default_factory=dict)


def _resolve_all(futures: list[asyncio.Future[None]]) -> None:
    for future in futures:
        if not future.done():
            future.set_result(None)


@lru_cache(maxsize=65_536)
def _key_hash(key: bytes) -> int:
    return int(murmur2(key) & 0x7FFFFFFF)


def partition_of(key: bytes, partitions: int) -> int:
    """The partition Kafka's default partitioner (Java's and kafka-python's) gives a record with this key."""
    return _key_hash(key) % partitions


def encode_batch(reply_to: str, requests: list[tuple[int, float, Request]]) -> bytes:
    """A record of requests as the worker receives it: where to answer, and each request with its
    correlation id and its caller's deadline (epoch seconds: a worker does not decide a request its
    caller has given up on)."""
    return orjson.dumps(
        {
            "reply_to": reply_to,
            "requests": [
                {"id": correlation_id, "deadline": deadline, "request": request_to_json(request)}
                for correlation_id, deadline, request in requests
            ],
        }
    )


class KafkaLedgerClient(LedgerClient):
    """``LedgerClient`` over Kafka: ``submit_async`` sends a request and waits for its answer (``submit``, the
    same from a thread with no event loop).

    Its Kafka side is aiokafka on one thread of its own running an asyncio loop: a producer of
    requests (idempotent, acks=all) and a consumer of the reply topic (assigned, no group). Callers on
    any event loop only queue their request and wait; the loop's sender takes what queued
    while its previous send was in flight, and its reader hands each answer to its caller."""

    transport = "kafka"

    def __init__(
        self,
        bootstrap: str,
        topic: str = "bemtevi.ledger",
        *,
        partitions: int = 12,
        replication_factor: int = 1,
        timeout: float = 30.0,
    ) -> None:
        self.bootstrap = bootstrap
        self.topic = topic
        self.timeout = timeout
        ensure_topic(bootstrap, topic, partitions, replication_factor)
        self.reply_topic = f"{topic}.replies.{uuid4().hex}"
        ensure_topic(bootstrap, self.reply_topic, 1, replication_factor)
        self._pending: dict[int, _Pending] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._outbox: list[_Pending] = []
        self.records_sent = 0
        self.requests_sent = 0
        self.partitions = partitions
        self._loop = asyncio.new_event_loop()
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._thread = threading.Thread(target=self._loop.run_forever, name="bemtevi-ledger-kafka", daemon=True)
        self._thread.start()
        try:
            asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=60)
        except BaseException:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5)
            raise

    # -- LedgerClient ----------------------------------------------------------------------------

    def try_draw(self, request: ReserveLookup) -> tuple[str, str | None] | None:
        return None  # every lookup's credit is the worker's to decide

    async def submit_async(self, request: Request, *, timeout: float | None = None) -> Outcome[Any]:
        wait = self.timeout if timeout is None else timeout
        pending = _Pending(
            request, next(self._ids), time.time() + wait, future=asyncio.get_running_loop().create_future()
        )
        self._queue(pending)
        assert pending.future is not None
        try:
            async with asyncio.timeout(wait):
                await pending.future
        except TimeoutError:
            self._abandon(pending)
        return self._outcome(pending)

    def close(self) -> None:
        if self._loop.is_running():
            try:
                asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(timeout=10)
            except Exception:
                log.warning("the ledger client's Kafka clients did not stop cleanly", exc_info=True)
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        if not self._thread.is_alive():
            self._loop.close()
        admin = KafkaAdminClient(bootstrap_servers=self.bootstrap, client_id="bemtevi-admin")
        try:
            admin.delete_topics([self.reply_topic])
        except Exception:
            log.warning("the ledger reply topic %s was not deleted", self.reply_topic, exc_info=True)
        finally:
            admin.close()

    # -- inside ------------------------------------------------------------------------------------

    async def _start(self) -> None:
        self._producer = AIOKafkaProducer(
            bootstrap_servers=self.bootstrap,
            client_id="bemtevi-ledger-client",
            enable_idempotence=True,
            acks="all",
            linger_ms=0,
        )
        self._consumer = AIOKafkaConsumer(
            bootstrap_servers=self.bootstrap,
            client_id="bemtevi-ledger-replies",
            group_id=None,
            enable_auto_commit=False,
            auto_offset_reset="earliest",
        )
        await self._producer.start()
        try:
            await self._consumer.start()
        except BaseException:
            await self._producer.stop()
            raise
        self._consumer.assign([TopicPartition(self.reply_topic, 0)])
        # The topic's own partition count (it may have been created elsewhere with another).
        self.partitions = len(await self._producer.partitions_for(self.topic))
        self._tasks = [
            asyncio.create_task(self._send_batches(), name="bemtevi-ledger-sender"),
            asyncio.create_task(self._read_replies(), name="bemtevi-ledger-replies"),
        ]

    async def _stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._producer.stop()
        await self._consumer.stop()

    def _queue(self, pending: _Pending) -> None:
        with self._lock:
            self._pending[pending.correlation_id] = pending
            self._outbox.append(pending)
            first = len(self._outbox) == 1
        if first:  # else the sender is woken already, or takes it after its send in flight
            self._loop.call_soon_threadsafe(self._wake.set)

    async def _send_batches(self) -> None:
        """The sender: every request queued meanwhile, one record per partition, then wait until the
        brokers have them (the next batch grows meanwhile)."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            with self._lock:
                batch, self._outbox = self._outbox, []
            if not batch:
                continue
            now = time.time()
            by_partition: defaultdict[int, list[tuple[int, float, Request]]] = defaultdict(list)
            for pending in batch:
                if pending.deadline > now:  # else its caller has given up (the brokers were away)
                    key = pending.request.partition_key.bytes
                    by_partition[partition_of(key, self.partitions)].append(
                        (pending.correlation_id, pending.deadline, pending.request)
                    )
            try:
                sent = []
                for partition, requests in by_partition.items():
                    value = encode_batch(self.reply_topic, requests)
                    sent.append(await self._producer.send(self.topic, value=value, partition=partition))
                    self.records_sent += 1
                    self.requests_sent += len(requests)
                for delivered in sent:
                    await delivered
            except asyncio.CancelledError:
                raise
            except Exception:
                # The brokers are away (no metadata or delivery within the producer's request
                # timeout): these callers are told no worker answered when their wait ends.
                log.exception("sending %d ledger requests failed", len(batch))

    def _abandon(self, pending: _Pending) -> None:
        with self._lock:
            self._pending.pop(pending.correlation_id, None)
        if pending.answer:
            return  # answered as the wait ended
        raise LedgerUnavailable(
            f"no ledger worker answered {type(pending.request).__name__} within {self.timeout:.0f} s "
            f"(are `bemtevi worker ledger` processes consuming {self.topic}?); a worker that takes it "
            "later does not decide it"
        )

    @staticmethod
    def _outcome(pending: _Pending) -> Outcome[Any]:
        answer = pending.answer
        if answer.get("error") is not None:
            raise error_from_json(answer["error"])
        return Outcome(pending.request.value_from_json(answer.get("value")), int(answer.get("position") or 0))

    async def _read_replies(self) -> None:
        # Written once, then at most every 30 s while every poll fails (ten a second).
        failures = RepeatedFailureLog(log, "the ledger's replies")
        while True:
            try:
                polled = await self._consumer.getmany(timeout_ms=1_000)
            except asyncio.CancelledError:
                raise
            except Exception:
                failures.failed("reading", "reading ledger replies failed; reading on")
                await asyncio.sleep(0.1)
                continue
            failures.worked("reading")
            # Coroutines' futures are resolved with one call into each loop per poll.
            futures: defaultdict[asyncio.AbstractEventLoop, list[asyncio.Future[None]]] = defaultdict(list)
            for records in polled.values():
                for record in records:
                    answers = orjson.loads(record.value)
                    with self._lock:
                        found = [(self._pending.pop(a["id"], None), a) for a in answers]
                    for pending, answer in found:
                        if pending is None:
                            continue  # a second answer, or its caller gave up
                        pending.answer = answer
                        if pending.future is not None:
                            futures[pending.future.get_loop()].append(pending.future)
            for loop, waiting in futures.items():
                with contextlib.suppress(RuntimeError):  # a closed loop: its callers are gone
                    loop.call_soon_threadsafe(_resolve_all, waiting)
