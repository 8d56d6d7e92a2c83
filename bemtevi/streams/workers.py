"""The runtime every cluster worker shares (`bemtevi worker NAME`): a faust-streaming app and its process.

A worker is a faust app (consumer group ``bemtevi-<name>``: workers of one name share the partitions of
their topics, and a partition whose worker died moves to another after the broker's session timeout) with
the settings that work against the project's Kafka (docs/architecture.md, "Cluster mode: workers"):

- no faust state: ``store="memory://"`` and no tables; a worker keeps what it must remember in Bemtevi's
  own stores with tracking positions (the mailer: the event store's tracking table);
- topics created explicitly with their partition count (``infra.kafka.ensure_topic``; the broker creates
  none by itself, and faust's co-partitioning check fails on a broker's default count); faust declares
  only its own internal topics (``topic_allow_declare``) with the configured replication factor;
- ``consumer_auto_offset_reset="earliest"``: a new consumer group reads a topic from its first record;
- a broker session timeout of ``BEMTEVI_WORKER_SESSION_TIMEOUT_SECONDS`` (8 s; faust's 60 s made a
  worker wait half a minute to join, and a dead worker's partitions wait that long to move);
- topic metadata refreshed every 5 s (``METADATA_MAX_AGE_MS``): a group assigned while its topics were missing
  (a broker started again) joins again within seconds of their return, not minutes;
- faust's web server off, and bound to loopback on a free port should anything start it;
- faust's data folder (made even with no table) under ``<var>/workers/<name>``, not the working directory.

``run_worker`` runs one in the foreground: logs as JSON lines on stderr (``json_logging``), stops cleanly
on SIGTERM or SIGINT (faust leaves its consumer group, commits what was handled), then closes what the
worker opened (``StreamWorker.close``).
"""

from __future__ import annotations

import logging
import os
import socket
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import faust
import structlog

from bemtevi.infra.kafka import UNLIMITED_RETENTION, ensure_topic
from bemtevi.infra.settings import Settings

log = logging.getLogger(__name__)

# How often a worker's consumer asks the brokers for its topics even when nothing failed. A group's leader that
# assigns while its topics are missing from its metadata (a broker just started again, a topic not created yet)
# gives nobody their partitions, and the group joins again only once a refresh shows them: at faust's default of
# 5 minutes, a mailer or a ledger worker stood idle that long after a broker restart. One small request per 5 s.
METADATA_MAX_AGE_MS = 5_000


@dataclass(frozen=True)
class StreamWorker:
    """What ``bemtevi worker NAME`` runs: a faust app with its agents, and what to close once it stopped.

    ``stopping`` is called as soon as SIGTERM or SIGINT arrives, before faust waits for the records in hand
    (``stream_wait_empty``): work that waits (a retry pause) should end there, leaving its record unacked."""

    app: faust.App
    close: Callable[[], None]
    stopping: Callable[[], None] = lambda: None


def _free_loopback_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def broker_urls(bootstrap: str) -> str:
    """``host:port[,host:port]`` (``BEMTEVI_KAFKA_BOOTSTRAP``) as faust's broker setting."""
    return ";".join(f"kafka://{host.strip()}" for host in bootstrap.split(",") if host.strip())


def worker_app(
    name: str,
    settings: Settings,
    *,
    group: str | None = None,
    partitions: int | None = None,
    max_poll_interval: float | None = None,
) -> faust.App:
    """The faust app of the worker ``name`` (consumer group ``group``, else ``bemtevi-<name>``), with no agent yet.

    ``partitions``: the count faust gives topics it declares itself (its internal ones); the topics
    the agents read are created with ``raw_topic``. ``max_poll_interval``: how long the consumer may go without
    polling before the broker takes its partitions (1000 s, faust's default, unless given)."""
    if not settings.kafka_bootstrap:
        raise ValueError("BEMTEVI_KAFKA_BOOTSTRAP names no Kafka cluster for the worker to consume from")
    session = settings.worker_session_timeout_seconds
    datadir = settings.var_dir / "workers" / (group or name)
    datadir.mkdir(parents=True, exist_ok=True)  # faust makes only the last level
    return faust.App(
        group or f"bemtevi-{name}",
        broker=broker_urls(settings.kafka_bootstrap),
        store="memory://",
        # faust makes its data folder even with no table; under var/, not in the working directory.
        datadir=str(datadir),
        autodiscover=False,
        topic_partitions=partitions or settings.kafka_events_partitions,
        topic_replication_factor=settings.kafka_replication_factor,
        topic_allow_declare=True,
        consumer_auto_offset_reset="earliest",
        broker_session_timeout=session,
        broker_heartbeat_interval=max(0.5, session / 4),
        web_enabled=False,
        web_host="127.0.0.1",
        web_port=_free_loopback_port(),
        worker_redirect_stdouts=False,
        broker_max_poll_interval=max_poll_interval or 1000.0,
        consumer_metadata_max_age_ms=METADATA_MAX_AGE_MS,
    )


def raw_topic(
    app: faust.App, settings: Settings, name: str, partitions: int, configs: dict[str, str] | None = None
) -> faust.TopicT:
    """Topic ``name`` as the worker's agents read it (keys and values as bytes, nothing decoded by faust),
    created first with ``partitions`` (and ``configs``) when missing (left as it is when it exists)."""
    assert settings.kafka_bootstrap
    if ensure_topic(settings.kafka_bootstrap, name, partitions, settings.kafka_replication_factor, configs):
        log.info("created topic %s with %s partitions", name, partitions)
    return app.topic(
        name,
        key_type=bytes,
        value_type=bytes,
        key_serializer="raw",
        value_serializer="raw",
        partitions=partitions,
    )


def mail_topic(app: faust.App, settings: Settings) -> faust.TopicT:
    """The relay's topic of queued mails (``BEMTEVI_KAFKA_MAIL_TOPIC``), created as the relay creates it."""
    return raw_topic(app, settings, settings.kafka_mail_topic, settings.kafka_events_partitions, UNLIMITED_RETENTION)


def batch_topic(app: faust.App, settings: Settings) -> faust.TopicT:
    """The relay's topic of submitted batches (``BEMTEVI_KAFKA_BATCH_TOPIC``), created as the relay creates it."""
    return raw_topic(app, settings, settings.kafka_batch_topic, settings.kafka_events_partitions, UNLIMITED_RETENTION)


def header(headers: Mapping[str, bytes] | Sequence[tuple[str, bytes]] | None, name: str) -> bytes | None:
    """One header of a record as faust hands it over (a mapping or a sequence of pairs), or None."""
    if not headers:
        return None
    if isinstance(headers, Mapping):
        return headers.get(name)
    for key, value in headers:
        if key == name:
            return value
    return None


def json_logging(level: int | str = logging.INFO) -> None:
    """Every log record of the process as one JSON line on stderr, as the server's access log writes
    them (``event``, ``level``, ``timestamp`` in UTC ISO 8601, and ``logger``; ``exception`` with a
    traceback). aiokafka's group joins and partition assignments are kept; kafka-python's chatter is not."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[
                structlog.stdlib.add_log_level,
                structlog.stdlib.add_logger_name,
                structlog.processors.TimeStamper(fmt="iso", utc=True),
            ],
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                structlog.processors.JSONRenderer(),
            ],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    logging.getLogger("kafka").setLevel(logging.WARNING)  # kafka-python (the admin client): connection chatter


class _Worker(faust.Worker):
    """faust's worker, telling the ``StreamWorker`` first when a stop signal arrives."""

    def __init__(self, worker: StreamWorker, **options: Any) -> None:
        super().__init__(worker.app, **options)
        self._stream_worker = worker

    def _on_sigint(self) -> None:
        self._stream_worker.stopping()
        super()._on_sigint()

    def _on_sigterm(self) -> None:
        self._stream_worker.stopping()
        super()._on_sigterm()


def run_worker(worker: StreamWorker, loglevel: str = "info") -> None:
    """Run ``worker`` until SIGTERM or SIGINT, then close it. Logging is the caller's (``json_logging``);
    faust's own set-up and banner are off."""
    with open(os.devnull, "w") as nowhere:  # faust's terminal spinner writes there even when quiet
        runner = _Worker(worker, loglevel=loglevel, quiet=True, override_logging=False, stdout=nowhere)
        try:
            runner.execute_from_commandline()  # ends with SystemExit once stopped
        finally:
            worker.close()
