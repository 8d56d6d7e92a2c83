"""The API process's side of cluster mode's ledger: requests to Kafka, answers from a reply topic.

A request (``bemtevi.commands.ledger``) goes to the topic ``bemtevi.ledger`` keyed by its partition
key (the group whose accounts it decides), so one ledger worker owns each group's accounts; the
envelope names a correlation id and this process's reply topic. The worker answers there with the
decision's value (or refusal) and the position of its append. Callers wait, bounded
(``BEMTEVI_LEDGER_TIMEOUT_SECONDS``): a thread on an event, a coroutine on a future of its own loop.

The reply topic is this process's own (one partition, created at start, deleted at close), read by
one thread outside any consumer group from its first record. A request delivered twice (Kafka is at
least once) is answered twice: the second answer finds no caller waiting and is dropped.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from uuid import uuid4

import orjson
from kafka import KafkaAdminClient, KafkaConsumer, TopicPartition

from bemtevi.commands.group_commit import Outcome
from bemtevi.commands.ledger import Request, ReserveLookup, error_from_json, request_to_json
from bemtevi.infra.kafka import ensure_topic, idempotent_producer

log = logging.getLogger(__name__)


class LedgerUnavailable(TimeoutError):
    """No ledger worker answered in time."""


@dataclass(slots=True)
class _Pending:
    request: Request
    done: threading.Event | None = None
    future: asyncio.Future[None] | None = None
    answer: dict[str, Any] = field(default_factory=dict)

    def resolve(self, answer: dict[str, Any]) -> None:
        self.answer = answer
        if self.future is not None:
            self.future.get_loop().call_soon_threadsafe(_resolve, self.future)
        elif self.done is not None:
            self.done.set()


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def encode_envelope(correlation_id: str, reply_to: str, request: Request, deadline: float) -> bytes:
    """A request as the worker receives it: who waits for the answer, where, and until when (epoch
    seconds: a worker does not decide a request its caller has given up on)."""
    return orjson.dumps(
        {"id": correlation_id, "reply_to": reply_to, "deadline": deadline, "request": request_to_json(request)}
    )


class KafkaLedgerClient:
    """``LedgerClient`` over Kafka: ``submit`` / ``submit_async`` send a request and wait for its answer."""

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
        self._pending: dict[str, _Pending] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._consumer = KafkaConsumer(
            bootstrap_servers=bootstrap,
            group_id=None,
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            client_id="bemtevi-ledger-replies",
        )
        self._consumer.assign([TopicPartition(self.reply_topic, 0)])
        self._producer = idempotent_producer(bootstrap, "bemtevi-ledger-client", linger_ms=0)
        self._thread = threading.Thread(target=self._read_replies, name="bemtevi-ledger-replies", daemon=True)
        self._thread.start()

    # -- LedgerClient ----------------------------------------------------------------------------

    def try_draw(self, request: ReserveLookup) -> tuple[str, str | None] | None:
        return None  # every lookup's credit is the worker's to decide

    def submit(self, request: Request, *, timeout: float | None = None) -> Outcome[Any]:
        wait = self.timeout if timeout is None else timeout
        pending = _Pending(request, done=threading.Event())
        self._send(pending, wait)
        assert pending.done is not None
        if not pending.done.wait(wait):
            self._abandon(pending)
        return self._outcome(pending)

    async def submit_async(self, request: Request, *, timeout: float | None = None) -> Outcome[Any]:
        wait = self.timeout if timeout is None else timeout
        pending = _Pending(request, future=asyncio.get_running_loop().create_future())
        self._send(pending, wait)
        assert pending.future is not None
        try:
            async with asyncio.timeout(wait):
                await pending.future
        except TimeoutError:
            self._abandon(pending)
        return self._outcome(pending)

    def close(self) -> None:
        self._stopping.set()
        self._thread.join(timeout=5)
        self._producer.close(timeout=5)
        self._consumer.close()
        admin = KafkaAdminClient(bootstrap_servers=self.bootstrap, client_id="bemtevi-admin")
        try:
            admin.delete_topics([self.reply_topic])
        except Exception:
            log.warning("the ledger reply topic %s was not deleted", self.reply_topic, exc_info=True)
        finally:
            admin.close()

    # -- inside ------------------------------------------------------------------------------------

    def _send(self, pending: _Pending, wait: float) -> None:
        correlation_id = uuid4().hex
        with self._lock:
            self._pending[correlation_id] = pending
        key = pending.request.partition_key.bytes
        envelope = encode_envelope(correlation_id, self.reply_topic, pending.request, time.time() + wait)
        self._producer.send(self.topic, key=key, value=envelope)

    def _abandon(self, pending: _Pending) -> None:
        with self._lock:
            for correlation_id, waiting in list(self._pending.items()):
                if waiting is pending:
                    del self._pending[correlation_id]
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

    def _read_replies(self) -> None:
        while not self._stopping.is_set():
            try:
                polled = self._consumer.poll(timeout_ms=200)
            except Exception:
                if self._stopping.is_set():
                    return
                log.exception("reading ledger replies failed; reading on")
                continue
            for records in polled.values():
                for record in records:
                    answer = orjson.loads(record.value)
                    with self._lock:
                        pending = self._pending.pop(answer["id"], None)
                    if pending is not None:
                        pending.resolve(answer)
