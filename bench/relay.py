"""The relay from PostgreSQL to Kafka: events relayed per second, and append-to-consumed latency.

    python bench/relay.py [--events 100000] [--rate 200] [--seconds 10] [--partitions 12]

Uses the Kafka broker BEMTEVI_KAFKA_BOOTSTRAP names, else starts the project's own, and a fresh
database on the PostgreSQL server BEMTEVI_TEST_POSTGRES_URL names, else the project's own.

1. Catch-up: ``--events`` events of realistic lookup histories are appended first, then one relay
   publishes them all; the figure is events per second until the brokers acknowledged the last
   page and its position was stored. A reader then reads them back (and checks the count).
2. Steady load: ``bemtevi relay`` in a process of its own (woken by PostgreSQL's NOTIFY) while
   this process appends ``--rate`` single-event saves per second for ``--seconds`` and reads
   the topic; the figure is the time from a save's commit to its record reaching the reader.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import describe_ms, postgres_database
from event_store import consultation
from projector import seed

from bemtevi.commands.application import BemteviApplication
from bemtevi.infra.kafka import ensure_topic, topic_reader
from bemtevi.infra.local_services.kafka import KafkaBroker
from bemtevi.infra.settings import Settings
from bemtevi.streams.relay import Deduplicator, Relay, notification_id_of, tracking_name


def read_back(bootstrap: str, topic: str, count: int) -> float:
    """Seconds to read ``count`` distinct events of ``topic`` from its start."""
    reader = topic_reader(bootstrap, topic)
    dedup = Deduplicator()
    seen = 0
    started = time.perf_counter()
    try:
        while seen < count:
            for records in reader.poll(timeout_ms=1000, max_records=5000).values():
                seen += sum(1 for r in records if dedup.is_new(r.partition, notification_id_of(r)))
    finally:
        reader.close()
    return time.perf_counter() - started


def catch_up(url: str, bootstrap: str, events: int, partitions: int) -> None:
    app = BemteviApplication(env=Settings(database_url=url).event_store_env())
    try:
        began = time.perf_counter()
        seed(app, events)
        total = app.max_position()
        print(f"seeded {total:,} events in {time.perf_counter() - began:.1f} s")
        topic = f"bench-{uuid.uuid4().hex[:8]}"
        ensure_topic(bootstrap, topic, partitions)  # not part of the figure
        relay = Relay(app, bootstrap, topic, partitions=partitions)
        began = time.perf_counter()
        relayed = relay.catch_up()
        seconds = time.perf_counter() - began
        relay.stop()
        assert relayed == total and relay.position == total
        print(f"catch-up: {relayed:,} events relayed in {seconds:.1f} s: {relayed / seconds:,.0f} events/s")
        reading = read_back(bootstrap, topic, total)
        print(f"read back: {total:,} events in {reading:.1f} s: {total / reading:,.0f} events/s (one reader)")
    finally:
        app.close()


def steady(url: str, bootstrap: str, rate: float, seconds: float, partitions: int) -> None:
    topic = f"bench-live-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "BEMTEVI_DATABASE_URL": url,
        "BEMTEVI_KAFKA_BOOTSTRAP": bootstrap,
        "BEMTEVI_KAFKA_EVENTS_TOPIC": topic,
        "BEMTEVI_KAFKA_EVENTS_PARTITIONS": str(partitions),
    }
    app = BemteviApplication(env=Settings(database_url=url).event_store_env())
    relay = subprocess.Popen(
        [sys.executable, "-m", "bemtevi.cli", "relay"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    appended: dict[int, float] = {}
    received: dict[int, float] = {}
    stop_reading = threading.Event()
    try:
        # The relay has created the topic once its position moves past the events already there.
        start = app.max_position()
        tracking = app.factory.tracking_recorder()
        deadline = time.monotonic() + 60
        while (tracking.max_tracking_id(tracking_name(topic)) or 0) < start:
            assert relay.poll() is None and time.monotonic() < deadline, "the relay did not start"
            time.sleep(0.1)

        def read() -> None:
            reader = topic_reader(bootstrap, topic)
            try:
                while not stop_reading.is_set():
                    for records in reader.poll(timeout_ms=100).values():
                        now = time.monotonic()
                        for record in records:
                            received.setdefault(notification_id_of(record), now)
            finally:
                reader.close()

        reader = threading.Thread(target=read)
        reader.start()
        time.sleep(2)  # the reader has its partitions
        interval = 1 / rate
        next_at = time.monotonic()
        end = next_at + seconds
        while next_at < end:
            time.sleep(max(0.0, next_at - time.monotonic()))
            recordings = app.save(consultation())
            appended[recordings[-1].notification.id] = time.monotonic()
            next_at += interval
        wait_until = time.monotonic() + 30
        while not appended.keys() <= received.keys() and time.monotonic() < wait_until:
            time.sleep(0.05)
        stop_reading.set()
        reader.join()
        missing = len(appended.keys() - received.keys())
        latencies = [received[i] - t for i, t in appended.items() if i in received]
        achieved = len(appended) / seconds
        print(f"steady load: {achieved:,.0f} saves/s for {seconds:.0f} s; append -> consumed {describe_ms(latencies)}")
        if missing:
            print(f"  {missing} events not consumed within 30 s")
    finally:
        stop_reading.set()
        relay.send_signal(signal.SIGTERM)
        try:
            relay.wait(timeout=30)
        except subprocess.TimeoutExpired:
            relay.kill()
        app.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--rate", type=float, default=200.0, help="single-event saves per second (steady load)")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--partitions", type=int, default=12)
    args = parser.parse_args()
    with ExitStack() as stack:
        bootstrap = os.environ.get("BEMTEVI_KAFKA_BOOTSTRAP")
        if not bootstrap:
            broker = stack.enter_context(KafkaBroker())
            bootstrap = broker.bootstrap
            print(f"Kafka broker started in {broker.started_seconds:.1f} s at {bootstrap}")
        url = stack.enter_context(postgres_database())
        catch_up(url, bootstrap, args.events, args.partitions)
        steady(url, bootstrap, args.rate, args.seconds, args.partitions)


if __name__ == "__main__":
    main()
