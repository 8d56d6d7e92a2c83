"""`bemtevi worker ledger`: cluster mode's ledger, a faust-streaming agent over the topic ``bemtevi.ledger``.

Each worker is a member of the consumer group ``bemtevi-ledger`` (``consumer_group``); Kafka gives each partition (and
each group's credit accounts, the requests' key) to one worker at a time. Each record holds a batch of
one API process's requests for one partition (``bemtevi.streams.ledger_client``). The agent takes
records in batches (those queued, then those arriving within 5 ms more; acked by hand once answered),
decides all their requests on its group commit
(``Ledger`` on a ``GroupCommit``: one append per batch), and answers with one record per reply topic,
the list of its callers' answers (each the decision's value or refusal and the position of the
append), once that append is in the store. The records' offsets
are committed after their answers are flushed, so a worker that dies (kill -9 included) leaves its
uncommitted requests to the partition's next owner, which decides them again: every request is
idempotent (``bemtevi.commands.ledger``), and a caller still waiting gets the next owner's answer.

Rebalances: on partitions revoked or assigned the worker forgets every aggregate it keeps in memory
(its group commit's and its ledger's): a partition's new owner starts from the event store, never from
memory. Two workers deciding on one account meanwhile (the old owner finishing a batch) collide on the
event store's version check, and the later batch is decided again on the new state.

State lives in Bemtevi's own stores (the event store), not in faust tables; faust brings the consumer
group, partition assignment, batching and offsets.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
import time
from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import Any
from uuid import UUID

import orjson
from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaError

from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.group_commit import GroupCommit
from bemtevi.commands.ledger import (
    Ledger,
    RecordLookup,
    ReserveLookup,
    StoredLeaseLog,
    error_to_json,
    request_from_json,
    value_to_json,
)
from bemtevi.commands.query_types import StoredQueryTypes
from bemtevi.infra.kafka import ensure_topic
from bemtevi.infra.settings import Settings
from bemtevi.streams.workers import worker_app

log = logging.getLogger(__name__)


def consumer_group(topic: str) -> str:
    """The ledger workers' consumer group (and faust app id) of a request topic: ``bemtevi-ledger``."""
    return topic.replace(".", "-")


def recorded_consultations(app: BemteviApplication, consultation_ids: Iterable[UUID]) -> set[UUID]:
    """Which of these consultations are recorded in the event store already (one query on PostgreSQL):
    a lookup's reservation delivered again after its finish must not reserve a second time."""
    ids = list(dict.fromkeys(consultation_ids))
    if not ids:
        return set()
    recorder: Any = app.recorder
    datastore = getattr(recorder, "datastore", None)
    if datastore is not None and hasattr(datastore, "schema"):
        with datastore.get_connection() as conn:
            rows = conn.execute(
                f"SELECT DISTINCT originator_id FROM {recorder.events_table_name} "
                "WHERE originator_id = ANY(%s) AND originator_version = 1",
                (ids,),
            ).fetchall()
        return {row["originator_id"] if isinstance(row, dict) else row[0] for row in rows}
    return {i for i in ids if recorder.select_events(i, limit=1)}


class LedgerWorker:
    """One ledger worker: the faust app, its agent, and the ledger it decides on."""

    def __init__(self, settings: Settings, *, take: int = 512, within: float = 0.005) -> None:
        if not settings.kafka_bootstrap:
            raise ValueError("BEMTEVI_KAFKA_BOOTSTRAP names no Kafka cluster to take ledger requests from")
        self.settings = settings
        self.take = take
        self.within = within
        bootstrap = settings.kafka_bootstrap
        ensure_topic(
            bootstrap, settings.kafka_ledger_topic, settings.kafka_ledger_partitions, settings.kafka_replication_factor
        )
        self.app = BemteviApplication(env=settings.event_store_env())
        self.writer = GroupCommit(self.app, max_batch=settings.write_batch_max)
        self.ledger = Ledger(
            # Query types read from the store, kept a second: an inactivation stops lookups here within it.
            catalogue=StoredQueryTypes(self.app),
            abandon_after=settings.ledger_abandon_seconds,
            stale_after=settings.ledger_stale_seconds,
            release_on_stop=False,
            lease_log=StoredLeaseLog(self.app),
        )
        self.writer.add_chore(self.ledger.chore)
        self.writer.note_position(self.app.max_position())
        # Answers go with a plain producer (acks=1, no idempotence; measured: answering 3.2-3.6 ms per
        # request instead of 4.1-6.8 ms): an answer sent twice finds no caller the second time, and an
        # answer lost (a leader that failed before replicating it) only makes its caller time out, as a
        # worker killed before answering does; the decision itself is in the event store once.
        # aiokafka on faust's own loop (started with the first batch): a produce round costs about a
        # third of kafka-python's CPU, and no I/O thread of its own.
        self.producer: AIOKafkaProducer | None = None
        self.batches = 0
        self.records = 0
        self.requests = 0
        self.expired = 0
        # Where a request's time goes: waiting for the agent, deciding and appending, answering.
        self.queued_seconds = 0.0
        self.decided_seconds = 0.0
        self.answered_seconds = 0.0
        self.faust = worker_app(
            "ledger",
            settings,
            group=consumer_group(settings.kafka_ledger_topic),
            partitions=settings.kafka_ledger_partitions,
        )
        topic = self.faust.topic(
            settings.kafka_ledger_topic,
            key_serializer="raw",
            value_serializer="raw",
            partitions=settings.kafka_ledger_partitions,
        )
        self.faust.agent(topic, name="bemtevi.ledger")(self._agent)
        handlers: Any = (self._on_revoked, self._on_assigned, self._on_shutdown)  # faust's signals, loosely typed
        self.faust.on_partitions_revoked.connect(handlers[0])
        self.faust.on_partitions_assigned.connect(handlers[1])
        self.faust.on_before_shutdown.connect(handlers[2])

    # -- rebalances --------------------------------------------------------------------------------

    def _forget(self) -> None:
        self.writer.forget_all()
        self.ledger.forget()

    async def _on_revoked(self, sender: Any, revoked: Any, **kwargs: Any) -> None:
        log.info("ledger partitions revoked: %s", sorted(tp.partition for tp in revoked))
        self._forget()

    async def _on_assigned(self, sender: Any, assigned: Any, **kwargs: Any) -> None:
        log.info("ledger partitions assigned: %s", sorted(tp.partition for tp in assigned))
        self._forget()

    async def _on_shutdown(self, sender: Any, **kwargs: Any) -> None:
        if self.producer is not None:
            await self.producer.stop()
        await asyncio.to_thread(self.close)

    # -- the agent -------------------------------------------------------------------------------

    async def _agent(self, stream: Any) -> Any:
        # One batch at a time, acked by hand once answered: a batch's records (their offsets may then be
        # committed) only after its answers are flushed. (Two or three batches in flight were measured: no
        # faster on this machine, and a crash could then commit offsets of requests decided but not answered.)
        # A batch: the records queued in the agent's channel, then, once it is empty, those that arrive within
        # ``within`` more (one sleep per batch), up to ``take``. faust's ``take_events(take, within)`` batched
        # alike, but waited on a timer of its own (mode's ``wait_for_stopped``: tasks and futures each time)
        # every 5 ms, idle or not, and acked a batch's records in its ``finally``, also when the agent was
        # cancelled mid-batch (a worker stopping), committing requests it had not answered. Measured with
        # ``bench/ledger.py --workers 2``: 14,596 requests decided in 12 s against 9,532, 14 ms waiting for the
        # agent against 22-24 (docs/architecture.md, "the whole deployment against embedded").
        channel = stream.channel
        taken: list[Any] = []
        waited = False
        async for event in stream.noack().events():
            taken.append(event)
            if len(taken) < self.take and not channel.empty():
                continue
            if len(taken) < self.take and not waited:
                waited = True
                await asyncio.sleep(self.within)
                if not channel.empty():
                    continue
            events, taken, waited = taken, [], False
            await self._take(events)
            for event in events:
                event.ack()

    async def _take(self, events: list[Any]) -> None:
        """Decide and answer one batch of records (each a batch of one API process's requests)."""
        now = time.time()
        batch: list[tuple[str, dict[str, Any]]] = []
        for event in events:
            try:
                record = orjson.loads(event.value)
                reply_to = record["reply_to"]
                envelopes = record["requests"]
            except Exception:
                log.exception("a ledger record that cannot be read was skipped: %r", event.value[:200])
                continue
            # How long the record's requests waited between their producer and this agent.
            self.queued_seconds += (now - event.message.timestamp) * len(envelopes)
            self.records += 1
            batch.extend((reply_to, envelope) for envelope in envelopes)
        await self.decide(batch)

    async def decide(self, batch: list[tuple[str, dict[str, Any]]]) -> None:
        """Decide one batch of requests (each with the reply topic of its caller) on the group commit
        and answer every caller: one record per reply topic, the list of its answers."""
        envelopes: list[tuple[str, dict[str, Any], Any]] = []
        now = time.time()
        for reply_to, envelope in batch:
            try:
                request = request_from_json(envelope["request"])
            except Exception:
                log.exception("a ledger request that cannot be read was skipped: %r", envelope)
                continue
            if envelope.get("deadline", now) < now:
                # Its caller gave up (and was told nothing was decided): a redelivery long after a
                # crash, or a backlog older than the callers' wait. Not decided, not answered.
                self.expired += 1
                continue
            envelopes.append((reply_to, envelope, request))
        if not envelopes:
            return
        lookups = [r.consultation_id for _, _, r in envelopes if isinstance(r, ReserveLookup | RecordLookup)]
        recorded = await asyncio.to_thread(recorded_consultations, self.app, lookups) if lookups else set()
        began = time.perf_counter()
        loop = asyncio.get_running_loop()
        all_decided: asyncio.Future[None] = loop.create_future()
        replies: dict[str, list[dict[str, Any]]] = {}
        answered = 0
        lock = threading.Lock()

        def decided(reply_to: str, envelope: dict[str, Any], request: Any) -> None:  # on the writer, after the append
            nonlocal answered
            reply = {
                "id": envelope["id"],
                "position": request.position,
                "value": None if request.error is not None else value_to_json(request.result),
                "error": None if request.error is None else error_to_json(request.error),
            }
            with lock:
                replies.setdefault(reply_to, []).append(reply)
                answered += 1
                last = answered == len(envelopes)
            if last:
                loop.call_soon_threadsafe(_resolve, all_decided)

        self.writer.enqueue_batch(
            [
                (
                    self.ledger.decide(
                        request,
                        recorded=isinstance(request, ReserveLookup | RecordLookup)
                        and request.consultation_id in recorded,
                    ),
                    partial(decided, reply_to, envelope),
                )
                for reply_to, envelope, request in envelopes
            ]
        )
        await all_decided
        decided_at = time.perf_counter()
        self.decided_seconds += (decided_at - began) * len(envelopes)
        # Sent (and flushed: the answers are out before these records' offsets can be committed) on
        # faust's loop, while the writer thread goes on with the next batch.
        await self._reply(replies)
        self.answered_seconds += (time.perf_counter() - decided_at) * len(envelopes)
        self.batches += 1
        self.requests += len(envelopes)

    async def _reply(self, replies: dict[str, list[dict[str, Any]]]) -> None:
        producer = self.producer
        if producer is None:
            producer = self.producer = AIOKafkaProducer(
                bootstrap_servers=self.settings.kafka_bootstrap, client_id="bemtevi-ledger-worker", acks=1, linger_ms=0
            )
            await producer.start()
        sent = []
        for topic, answers in replies.items():
            try:
                if not await self._reply_topic_exists(producer, topic):
                    log.warning(
                        "%d ledger answers to %s were dropped: its caller's process is gone", len(answers), topic
                    )
                    continue
                sent.append(await producer.send(topic, value=orjson.dumps(answers), partition=0))
            except KafkaError as e:
                log.warning("%d ledger answers to %s were dropped: %r", len(answers), topic, e)
        for delivered in sent:
            try:
                await delivered
            except KafkaError as e:
                log.warning("ledger answers were not delivered: %r", e)

    @staticmethod
    async def _reply_topic_exists(producer: AIOKafkaProducer, topic: str) -> bool:
        """Whether a reply topic is there, asked of the brokers once for a topic not seen yet. A gone one (its
        API process closed) would hold the batch for the producer's request timeout; an answer is never dropped
        on a clock, as a busy machine can take more than any short bound to fetch a live topic's metadata."""
        if producer.client.cluster.partitions_for_topic(topic) is not None:
            return True
        cluster = await producer.client.fetch_all_metadata()
        return topic in cluster.topics()

    # -- lifecycle -------------------------------------------------------------------------------

    def close(self) -> None:
        # One line an operator (and bench/ledger.py) reads: how big the batches were.
        print(
            f"ledger worker stopped: {self.requests} requests in {self.records} records, {self.batches} batches "
            f"({self.expired} past their caller's wait skipped), "
            f"{self.writer.batches} group-commit rounds; per request: "
            f"{self._ms(self.queued_seconds)} ms waiting for the agent, "
            f"{self._ms(self.decided_seconds)} ms deciding and appending, "
            f"{self._ms(self.answered_seconds)} ms answering; CPU seconds by thread: {thread_cpu()}",
            file=sys.stderr,
            flush=True,
        )
        self.writer.stop()
        self.app.close()

    def _ms(self, seconds: float) -> str:
        return f"{seconds / max(self.requests, 1) * 1000:.1f}"

    def run(self) -> None:
        """Run until SIGINT or SIGTERM (faust's worker handles both)."""
        import faust

        worker = faust.Worker(self.faust, loglevel="warning", quiet=True)
        worker.execute_from_commandline()


def thread_cpu() -> str:
    """CPU seconds of each of this process's threads, by name (Linux): where a worker's CPU went
    (the event loop, faust's consumer thread, the group commit's writer)."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    tick = os.sysconf("SC_CLK_TCK")
    spent = []
    try:
        for task in os.listdir("/proc/self/task"):
            fields = Path(f"/proc/self/task/{task}/stat").read_text().rsplit(") ", 1)[1].split()
            seconds = (int(fields[11]) + int(fields[12])) / tick
            if seconds >= 0.01:
                spent.append(f"{names.get(int(task), 'other')} {seconds:.2f}")
    except OSError:
        return "unknown"
    return ", ".join(spent)


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
