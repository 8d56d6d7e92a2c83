"""How fast one mailer worker (`bemtevi worker mailer`, a faust agent) passes over the relay's topic.

The mailer handles only ``Mail.Queued`` (by the ``topic`` header, undecoded) and passes over anything else. It
used to read every record of ``bemtevi.events``, so its cost was that topic's whole rate, not the mail rate; this
is what made the relay publish queued mails to a topic of their own (``bemtevi.mail``). This bench writes ``--records``
records shaped as the relay writes them (key, ``notification_id`` and ``topic`` headers, a 400-byte value;
none a mail) to a fresh topic on the project's own broker, starts one worker process, and times it until
its consumer group has committed every offset; it reports records/s and the worker's CPU per record
(user + system, from /proc). Run: ``python bench/mail_worker.py [--records 200000] [--partitions 12]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from kafka import KafkaAdminClient
from kafka.errors import KafkaError

from bemtevi.infra.kafka import ensure_topic, idempotent_producer
from bemtevi.infra.local_services.kafka import KafkaBroker


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def committed(bootstrap: str, group: str, topic: str) -> int:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        offsets = admin.list_group_offsets(group).get(group, {})
    except KafkaError:  # the group is not there yet
        return 0
    finally:
        admin.close()
    return sum(meta.offset for tp, meta in offsets.items() if tp.topic == topic and meta.offset > 0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--partitions", type=int, default=12)
    args = parser.parse_args()
    topic = f"bench-events-{uuid.uuid4().hex[:8]}"
    with KafkaBroker() as broker, tempfile.TemporaryDirectory() as var:
        ensure_topic(broker.bootstrap, topic, args.partitions)
        producer = idempotent_producer(broker.bootstrap, "bench")
        value = b"x" * 400
        for n in range(1, args.records + 1):
            producer.send(
                topic,
                key=str(uuid.UUID(int=n % 5000)).encode(),
                value=value,
                headers=[
                    ("notification_id", str(n).encode()),
                    ("topic", b"bemtevi.domain.credits:CreditAccount.Settled"),
                ],
            )
        producer.flush()
        producer.close()
        env = {
            **os.environ,
            "BEMTEVI_VAR_DIR": var,
            "BEMTEVI_KAFKA_BOOTSTRAP": broker.bootstrap,
            "BEMTEVI_KAFKA_EVENTS_TOPIC": topic,
            "BEMTEVI_KAFKA_EVENTS_PARTITIONS": str(args.partitions),
        }
        env.pop("BEMTEVI_DATABASE_URL", None)
        with open(Path(var) / "worker.log", "w") as log:
            began = time.monotonic()
            worker = subprocess.Popen([sys.executable, "-m", "bemtevi.cli", "worker", "mailer"], env=env, stderr=log)
            try:
                first = None
                while True:
                    done = committed(broker.bootstrap, "bemtevi-mailer", topic)
                    if done and first is None:
                        first = (time.monotonic(), done, cpu_seconds(worker.pid))
                    if done >= args.records:
                        break
                    if worker.poll() is not None:
                        raise SystemExit(f"the worker ended: {(Path(var) / 'worker.log').read_text()[-2000:]}")
                    time.sleep(0.2)
                ended, cpu = time.monotonic(), cpu_seconds(worker.pid)
            finally:
                worker.terminate()
                worker.wait(30)
        assert first is not None
        t0, n0, cpu0 = first
        rate = (args.records - n0) / (ended - t0) if ended > t0 else float("nan")
        print(f"{args.records:,} records, {args.partitions} partitions, one mailer worker")
        print(f"first commit after {t0 - began:.1f} s (start and group join)")
        print(f"steady rate: {rate:,.0f} records/s; CPU {1e6 * (cpu - cpu0) / max(1, args.records - n0):.0f} µs/record")


if __name__ == "__main__":
    main()
