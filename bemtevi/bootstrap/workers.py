"""Cluster mode's processes other than the API's, built from settings: the relay (`bemtevi relay`) and the stream
workers (`bemtevi worker mailer|enrichment`). Each needs the event store and Kafka, and no read store."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from bemtevi.bootstrap import ledger_client, vendor_pool_of
from bemtevi.bootstrap.batches import batch_commands, batch_runner
from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.credits import CreditCommands
from bemtevi.commands.group_commit import GroupCommit
from bemtevi.commands.query_types import StoredQueryTypes
from bemtevi.commands.vendor_lookups import VendorLookups
from bemtevi.commands.vendors import VendorDirectory
from bemtevi.infra.kept_results import KeptResults
from bemtevi.infra.mail import sender_from_settings
from bemtevi.infra.secrets import SecretBox
from bemtevi.infra.settings import Settings
from bemtevi.streams.enrichment import (
    SUBMITTED_TOPIC,
)
from bemtevi.streams.mailer import QUEUED_TOPIC, MailDelivery
from bemtevi.streams.relay import Relay

if TYPE_CHECKING:  # faust (and aiohttp under it) imported by the two workers that run it, not by `bemtevi relay`
    from bemtevi.streams.workers import StreamWorker


def build_relay(settings: Settings, app: BemteviApplication | None = None) -> Relay:
    """The Kafka relay of cluster mode over the settings' event store (or ``app``'s), not started.

    It needs only the event store: no read store, supplier or writer (``bemtevi relay`` runs it
    in a process of its own, woken by PostgreSQL's NOTIFY of every append)."""
    if not settings.kafka_bootstrap:
        raise ValueError("BEMTEVI_KAFKA_BOOTSTRAP names no Kafka cluster to relay the event log to")
    return Relay(
        app or BemteviApplication(env=settings.event_store_env()),
        settings.kafka_bootstrap,
        settings.kafka_events_topic,
        partitions=settings.kafka_events_partitions,
        replication_factor=settings.kafka_replication_factor,
        page_size=settings.relay_page_size,
        gather_seconds=settings.relay_gather_seconds,
        routes={QUEUED_TOPIC: settings.kafka_mail_topic, SUBMITTED_TOPIC: settings.kafka_batch_topic},
    )


def build_mailer_worker(settings: Settings) -> StreamWorker:
    """`bemtevi worker mailer`: cluster mode's mailer, a faust agent over the relay's mail topic delivering the
    queued mails with the settings' SMTP server (``streams.mail_worker``); its positions are kept in the
    event store, so it needs the event store and Kafka, nothing else."""
    from bemtevi.streams.mail_worker import MailWorker
    from bemtevi.streams.workers import StreamWorker, mail_topic, worker_app

    app = BemteviApplication(env=settings.event_store_env())
    try:
        faust_app = worker_app("mailer", settings)
        stopping = threading.Event()
        delivery = MailDelivery(
            app,
            sender_from_settings(settings),
            stopping,
            attempts=settings.mail_attempts,
            retry_seconds=settings.mail_retry_seconds,
        )
        mails = MailWorker(app, delivery, stopping, settings.kafka_mail_topic)
        mails.attach(faust_app, mail_topic(faust_app, settings))
    except BaseException:
        app.close()
        raise

    def close() -> None:
        mails.close()
        app.close()

    return StreamWorker(faust_app, close, stopping=stopping.set)


def build_enrichment_worker(settings: Settings) -> StreamWorker:
    """`bemtevi worker enrichment`: cluster mode's enrichment processor, a faust agent over the relay's batch
    topic running each submitted batch to its end (``streams.enrichment_worker``). It needs the event store, the
    ledger (this process's group commit, or the ledger workers with BEMTEVI_LEDGER=kafka), Kafka, the dataset,
    the batches' folder and the HTTP suppliers; no read store."""
    from bemtevi.streams.enrichment_worker import EnrichmentWorker
    from bemtevi.streams.workers import StreamWorker, batch_topic, worker_app

    app = BemteviApplication(env=settings.event_store_env())
    writer = GroupCommit(app, max_batch=settings.write_batch_max)
    ledger = ledger_client(settings, app, writer)
    box = SecretBox(settings.vendor_secrets_key)
    pool = vendor_pool_of(settings)
    kept = KeptResults(settings.kept_results_path)
    stopping = threading.Event()

    def close_all() -> None:
        ledger.close()
        writer.stop()
        pool.close()
        kept.close()
        app.close()

    try:
        # A batch's record is held unacked for as long as the batch runs (up to its time limit): the consumer must
        # not be taken for stuck meanwhile.
        faust_app = worker_app(
            "enrichment", settings, max_poll_interval=max(1000.0, settings.batch_time_limit_seconds + 300)
        )
        batches = batch_commands(settings, app, CreditCommands(ledger), box)
        lookups = VendorLookups(VendorDirectory(app, box), pool, kept, StoredQueryTypes(app))
        runner = batch_runner(settings, app, batches, box, stopping, lookups)
        worker = EnrichmentWorker(app, runner, stopping, settings.kafka_batch_topic)
        worker.attach(faust_app, batch_topic(faust_app, settings))
    except BaseException:
        close_all()
        raise

    def close() -> None:
        worker.close()
        close_all()

    return StreamWorker(faust_app, close, stopping=stopping.set)
