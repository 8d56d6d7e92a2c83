"""Cluster mode's mailer (`bemtevi worker mailer`) against the real broker, PostgreSQL and a real SMTP server.

What an operator sees: a mail queued anywhere is delivered once by the worker, through the relay's topic;
a worker killed with SIGKILL and started again delivers what was left and sends nothing twice that was
recorded as sent; SIGTERM stops it cleanly, and it logs JSON lines.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from support import SmtpSink, free_port, make_settings, wait_until

from bemtevi.bootstrap import build_platform
from bemtevi.bootstrap.workers import build_relay
from bemtevi.commands.application import BemteviApplication
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.mail import Mail
from bemtevi.domain.principals import ROOT_GROUP_ID
from bemtevi.infra.settings import Settings
from bemtevi.streams.mail_worker import tracking_name
from bemtevi.streams.mailer import QUEUED_TOPIC
from bemtevi.streams.relay import Relay


class SlowSmtpSink(SmtpSink):
    """Takes a moment to accept each message (as a real server does), so that a worker can die mid-conversation."""

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        answer = await super().handle_DATA(server, session, envelope)
        await asyncio.sleep(0.05)
        return answer


@pytest.fixture
def smtp() -> Iterator[SlowSmtpSink]:
    with SlowSmtpSink() as sink:
        yield sink


@pytest.fixture
def cluster_env(postgres_database: str, kafka_broker: str, smtp: SmtpSink, tmp_path: Path) -> dict[str, str]:
    return {
        "BEMTEVI_DATABASE_URL": postgres_database,
        "BEMTEVI_KAFKA_BOOTSTRAP": kafka_broker,
        "BEMTEVI_KAFKA_EVENTS_TOPIC": f"events-{uuid.uuid4().hex[:8]}",
        "BEMTEVI_KAFKA_MAIL_TOPIC": f"mail-{uuid.uuid4().hex[:8]}",
        "BEMTEVI_KAFKA_EVENTS_PARTITIONS": "4",
        "BEMTEVI_VAR_DIR": str(tmp_path / "var"),
        "BEMTEVI_MAIL_RETRY_SECONDS": "0.2",
        **smtp.env(),
    }


@pytest.fixture
def app(cluster_env: dict[str, str]) -> Iterator[BemteviApplication]:
    app = BemteviApplication(env=Settings(database_url=cluster_env["BEMTEVI_DATABASE_URL"]).event_store_env())
    yield app
    app.close()


@pytest.fixture
def relay(app: BemteviApplication, cluster_env: dict[str, str]) -> Iterator[Relay]:
    settings = Settings(
        database_url=cluster_env["BEMTEVI_DATABASE_URL"],
        kafka_bootstrap=cluster_env["BEMTEVI_KAFKA_BOOTSTRAP"],
        kafka_events_topic=cluster_env["BEMTEVI_KAFKA_EVENTS_TOPIC"],
        kafka_mail_topic=cluster_env["BEMTEVI_KAFKA_MAIL_TOPIC"],
        kafka_events_partitions=4,
    )
    relay = build_relay(settings, app)
    relay.start()
    yield relay
    relay.stop()


@contextmanager
def mail_worker(env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """`bemtevi worker mailer` in a subprocess; SIGKILLed on the way out if still alive."""
    with log.open("ab") as out:
        worker = subprocess.Popen(
            [sys.executable, "-m", "bemtevi.cli", "worker", "mailer"],
            env={**os.environ, **env},
            stdout=out,
            stderr=out,
        )
    try:
        yield worker
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait(timeout=10)


def queue_mails(app: BemteviApplication, addresses: list[str]) -> list[uuid.UUID]:
    """Mails queued in one append, as a command queues them beside the change that calls for them."""
    with acting_as(Actor(user_id=None, tenant_id=ROOT_GROUP_ID)):
        mails = [Mail.queue(to, "Assunto", f"Olá {to}", reason="test") for to in addresses]
    app.save(*mails)
    return [m.id for m in mails]


def given_partitions(log: Path, topic: str) -> bool:
    """Whether the worker logging to ``log`` was given partitions of ``topic`` (by its last assignment)."""
    assignments = [
        entry["event"]
        for entry in (json.loads(line) for line in log.read_text().splitlines() if line.startswith("{"))
        if "newly assigned partitions" in entry["event"]
    ]
    return bool(assignments) and topic in assignments[-1]


def stacks(worker: subprocess.Popen[bytes], log: Path) -> str:
    """What ``worker`` writes to its log when asked for its stacks (SIGUSR1: faust's handler writes every thread's
    stack and the event loop's tasks)."""
    before = log.stat().st_size
    worker.send_signal(signal.SIGUSR1)
    wait_until(lambda: "TASKS" in log.read_text(errors="replace")[before:], timeout=10, message="no stacks written")
    time.sleep(0.5)  # the tasks' part is written last, task by task
    return log.read_text(errors="replace")[before:]


def stalled(dump: str) -> str:
    """The mail thread's stack and the first tasks of a ``stacks`` dump: where a worker that stopped waits."""
    lines = dump.splitlines()
    mailer = next((i for i, line in enumerate(lines) if line.startswith("THREAD bemtevi-mailer")), 0)
    tasks = next((i for i, line in enumerate(lines) if line == "TASKS"), len(lines))
    return "\n".join(lines[mailer : mailer + 20] + lines[tasks : tasks + 120])


def received(smtp: SmtpSink) -> Counter[str]:
    return Counter(str(m["To"]) for m in list(smtp.messages))


def statuses(app: BemteviApplication, mail_ids: list[uuid.UUID]) -> Counter[str]:
    return Counter(app.repository.get(mail_id).status for mail_id in mail_ids)


def test_with_the_mailer_in_workers_a_server_delivers_no_mail(tmp_path: Path, dataset_path: Path) -> None:
    settings = make_settings(tmp_path / "var", dataset_path).model_copy(update={"mailer": "worker"})
    platform = build_platform(settings)
    try:
        assert platform.mailer is None
        [mail_id] = queue_mails(platform.app, ["ana@empresa.com.br"])
        platform.projector.wait_for(platform.app.max_position(), timeout=10)
        time.sleep(1.0)  # the embedded mailer would have kept it within a second
        assert statuses(platform.app, [mail_id]) == Counter(queued=1)
    finally:
        platform.close()


def test_a_queued_mail_is_delivered_once_and_sigterm_stops_the_worker(
    app: BemteviApplication, relay: Relay, smtp: SmtpSink, cluster_env: dict[str, str], tmp_path: Path
) -> None:
    log = tmp_path / "worker.log"
    with mail_worker(cluster_env, log) as worker:
        [first] = queue_mails(app, ["ana@empresa.com.br"])
        wait_until(lambda: smtp.texts_to("ana@empresa.com.br"), timeout=60, message="the mail never arrived")
        wait_until(lambda: statuses(app, [first]) == Counter(sent=1), message="Mail.Sent never recorded")
        # Another mail later: the worker is still following, and the first is not sent again.
        [second] = queue_mails(app, ["bia@empresa.com.br"])
        wait_until(lambda: smtp.texts_to("bia@empresa.com.br"), timeout=30)
        wait_until(lambda: statuses(app, [first, second]) == Counter(sent=2))
        assert received(smtp) == Counter({"ana@empresa.com.br": 1, "bia@empresa.com.br": 1})
        # Its positions are in the event store's tracking table, one row per partition it delivered from.
        tracking = app.factory.tracking_recorder()
        topic = cluster_env["BEMTEVI_KAFKA_MAIL_TOPIC"]
        marks = [tracking.max_tracking_id(tracking_name(topic, p)) or 0 for p in range(4)]
        queued = [n.id for n in app.recorder.select_notifications(0, 1000, topics=[QUEUED_TOPIC])]
        assert len(queued) == 2 and max(marks) == queued[-1]
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=30) == 0
    lines = [line for line in log.read_text().splitlines() if line.strip()]
    assert lines, "the worker logged nothing"
    for line in lines:
        entry = json.loads(line)  # every line is a JSON object
        assert {"event", "level", "timestamp"} <= entry.keys()
    errors = [e for e in map(json.loads, lines) if e["level"] in {"error", "critical"}]
    assert not [e for e in errors if e["logger"].startswith("bemtevi")], errors


def test_a_worker_killed_mid_load_and_started_again_delivers_the_rest_and_nothing_recorded_twice(
    app: BemteviApplication, relay: Relay, smtp: SmtpSink, cluster_env: dict[str, str], tmp_path: Path
) -> None:
    before = [f"antes{i}@empresa.com.br" for i in range(40)]
    during = [f"durante{i}@empresa.com.br" for i in range(10)]
    log = tmp_path / "worker.log"
    with mail_worker(cluster_env, log) as worker:
        mail_ids = queue_mails(app, before)
        wait_until(lambda: len(smtp.messages) >= 5, timeout=60, message="the worker delivered nothing")
        worker.kill()  # SIGKILL, in the middle of the 40
        worker.wait(timeout=10)
    delivered_by_the_first = received(smtp)
    assert sum(delivered_by_the_first.values()) < len(before), "killed too late to leave anything"
    mail_ids += queue_mails(app, during)  # queued while no mailer runs
    sent_before_restart = {mail.to for mail in (app.repository.get(i) for i in mail_ids) if mail.status == "sent"}
    with mail_worker(cluster_env, log):
        wait_until(lambda: set(received(smtp)) == set(before + during), timeout=90, message="mails left undelivered")
        wait_until(lambda: statuses(app, mail_ids) == Counter(sent=len(mail_ids)), timeout=30)
    counts = received(smtp)
    twice = {to for to, n in counts.items() if n > 1}
    # A mail recorded as sent is never sent again; at most the one in flight at the kill (accepted by the
    # SMTP server, its Mail.Sent not yet appended) is sent a second time.
    assert not twice & sent_before_restart
    assert len(twice) <= 1 and all(counts[to] == 2 for to in twice)
    assert all(app.repository.get(i).attempts == 1 for i in mail_ids)


def test_two_workers_share_the_partitions_and_the_survivor_takes_a_killed_ones(
    app: BemteviApplication, relay: Relay, smtp: SmtpSink, cluster_env: dict[str, str], tmp_path: Path
) -> None:
    first_batch = [f"lote1-{i}@empresa.com.br" for i in range(20)]
    second_batch = [f"lote2-{i}@empresa.com.br" for i in range(20)]
    with (
        mail_worker(cluster_env, tmp_path / "a.log") as a,
        mail_worker(cluster_env, tmp_path / "b.log") as b,
    ):
        mail_ids = queue_mails(app, first_batch)
        wait_until(lambda: set(received(smtp)) == set(first_batch), timeout=90, message="first batch not delivered")
        # They share the topic: each was given some of its partitions (their logs say which).
        topic = cluster_env["BEMTEVI_KAFKA_MAIL_TOPIC"]
        for log in (tmp_path / "a.log", tmp_path / "b.log"):
            wait_until(lambda log=log: given_partitions(log, topic), message=f"{log.name} was given no partition")
        # Every outcome recorded before the kill: nothing is in flight, so nothing may be sent twice.
        wait_until(lambda: statuses(app, mail_ids) == Counter(sent=len(mail_ids)), timeout=30)
        a.kill()  # SIGKILL: the broker moves its partitions to b after the session timeout
        a.wait(timeout=10)
        mail_ids += queue_mails(app, second_batch)
        try:
            wait_until(lambda: set(received(smtp)) == set(first_batch + second_batch), timeout=90)
        except AssertionError:
            # What the survivor was doing, for the failure's report (the test's folder does not outlive the run).
            missing = sorted(set(second_batch) - set(received(smtp)))
            raise AssertionError(
                f"the survivor did not deliver the killed worker's mails: {len(missing)} missing, "
                f"statuses {dict(statuses(app, mail_ids))}\n{stalled(stacks(b, tmp_path / 'b.log'))}"
            ) from None
        wait_until(lambda: statuses(app, mail_ids) == Counter(sent=len(mail_ids)), timeout=30)
        # An operator asking a worker what it is doing (`kill -USR1`) gets every thread's stack, and it goes on.
        assert "THREAD bemtevi-mailer" in stacks(b, tmp_path / "b.log")
        assert b.poll() is None
    counts = received(smtp)
    assert all(n == 1 for n in counts.values()), {to: n for to, n in counts.items() if n > 1}


def test_a_worker_stopped_while_a_mail_waits_for_its_retry_leaves_it_to_the_next_worker(
    app: BemteviApplication, relay: Relay, smtp: SmtpSink, cluster_env: dict[str, str], tmp_path: Path
) -> None:
    unreachable = {**cluster_env, "BEMTEVI_SMTP_PORT": str(free_port()), "BEMTEVI_MAIL_RETRY_SECONDS": "60"}
    with mail_worker(unreachable, tmp_path / "a.log") as worker:
        [mail_id] = queue_mails(app, ["ana@empresa.com.br"])
        # The first try failed and is recorded; the worker now waits a minute before the next.
        wait_until(lambda: app.repository.get(mail_id).attempts == 1, timeout=60, message="no failed try recorded")
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=30) == 0
    assert statuses(app, [mail_id]) == Counter(queued=1)
    # The record was not committed as handled: the next worker (SMTP back) delivers it.
    with mail_worker(cluster_env, tmp_path / "b.log"):
        wait_until(lambda: smtp.texts_to("ana@empresa.com.br"), timeout=60, message="the mail was left behind")
        wait_until(lambda: statuses(app, [mail_id]) == Counter(sent=1))
    assert received(smtp) == Counter({"ana@empresa.com.br": 1})


@pytest.mark.process
def test_the_worker_command_needs_a_kafka_cluster(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BEMTEVI_")}
    env["BEMTEVI_VAR_DIR"] = str(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "bemtevi.cli", "worker", "mailer"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "BEMTEVI_KAFKA_BOOTSTRAP" in done.stderr
