"""A cluster worker's consumer group, assigned while its topic was missing from the brokers' metadata (a broker
started again and still loading, a topic not created yet), gets its partitions within seconds of the topic's return.

faust's group leader assigns only the topics its metadata shows, and the group joins again only when a refresh
shows a change: at faust's default refresh of 5 minutes, a mailer stood idle that long after a broker restart
(mail queued after the restart waited), and a ledger worker would have refused lookups as long."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from kafka import KafkaProducer
from support import wait_until

from bemtevi.infra.kafka import ensure_topic

pytestmark = pytest.mark.process

PROBE = Path(__file__).resolve().parent.parent / "probe_worker.py"


def test_a_worker_assigned_while_its_topic_was_missing_takes_it_within_seconds_of_its_return(
    kafka_broker: str, tmp_path: Path
) -> None:
    topic = f"probe-{uuid.uuid4().hex[:8]}"
    out, log = tmp_path / "records", tmp_path / "worker.log"
    with log.open("w") as written:
        worker = subprocess.Popen(
            [sys.executable, str(PROBE), kafka_broker, topic, str(out), str(tmp_path / "var")],
            stdout=written,
            stderr=written,
        )
    try:
        wait_until(lambda: "Ignoring missing topic" in log.read_text(), 90, "the group assigned without its topic")
        wait_until(lambda: "newly assigned partitions" in log.read_text(), 30, "the worker's (empty) assignment")
        ensure_topic(kafka_broker, topic, 3)
        producer = KafkaProducer(bootstrap_servers=kafka_broker)
        try:
            producer.send(topic, b"queued after the topic came back", partition=0).get(30)
        finally:
            producer.close()
        began = time.monotonic()
        # A generous bound for a busy machine; the refresh every 5 s makes it seconds, faust's default minutes.
        # A whole line: the worker creates the file, then writes it.
        wait_until(
            lambda: out.exists() and out.read_bytes().endswith(b"\n"),
            60,
            "the worker never took the topic that came back",
        )
        print(f"taken {time.monotonic() - began:.1f} s after the topic came back")
        assert out.read_bytes() == b"queued after the topic came back\n"
    finally:
        worker.terminate()
        try:
            worker.wait(20)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait(5)
