"""The Apache Kafka broker: its pinned jars (``ensure_kafka_jars``) and ``KafkaBroker``, one KRaft node."""

from __future__ import annotations

import base64
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from bemtevi.infra.local_services import REPO_ROOT, LocalServiceError, file_lock, services_dir

KAFKA_POM = REPO_ROOT / "ops" / "kafka" / "pom.xml"


def _pom_property(name: str) -> str:
    import xml.etree.ElementTree as ET

    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    value = ET.parse(KAFKA_POM).getroot().find(f"m:properties/m:{name}", ns)
    assert value is not None and value.text, f"{KAFKA_POM} names no {name}"
    return value.text


def kafka_version() -> str:
    return _pom_property("kafka.version")


def ensure_kafka_jars() -> Path:
    """The broker's class path folder, copied by Maven from the pinned pom on first use (Maven caches the
    downloads too, so a new folder after a pom change costs a copy, not a download)."""
    libs = services_dir() / f"kafka-{kafka_version()}-{_pom_digest()}" / "libs"
    done = libs.parent / "complete"
    if done.exists():
        return libs
    with file_lock(services_dir() / "kafka-jars.lock"):
        if done.exists():
            return libs
        if shutil.which("mvn") is None:
            raise LocalServiceError("Maven (mvn) is needed once to fetch the Kafka broker's jars")
        if libs.exists():
            shutil.rmtree(libs)
        result = subprocess.run(
            [
                "mvn", "-q", "-B", "-f", str(KAFKA_POM), "dependency:copy-dependencies",
                f"-DoutputDirectory={libs}", "-DincludeScope=runtime",
            ],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if result.returncode != 0:
            raise LocalServiceError(f"Maven could not fetch the Kafka broker's jars:\n{result.stdout}{result.stderr}")
        done.touch()
    return libs


def _pom_digest() -> str:
    import hashlib

    return hashlib.sha256(KAFKA_POM.read_bytes()).hexdigest()[:12]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


_LOG4J2 = """\
status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = {log}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = {level}
rootLogger.appenderRef.file.ref = file
"""


@dataclass
class KafkaBroker:
    """One Apache Kafka node in KRaft mode (broker and controller) on free loopback ports.

    `start()` answers once the broker answers metadata requests; `stop()` ends it (SIGTERM, then SIGKILL after
    `stop_timeout`) and removes its data folder; `restart()` (or `stop(keep_data=True)` then `start()`) brings it
    back on the same ports with the topics and records it had, as a restarted production broker would be."""

    port: int = 0
    controller_port: int = 0
    cluster_id: str = ""  # KRaft's cluster id (16 bytes, URL-safe base64); generated when empty
    heap: str = "512m"
    log_level: str = "WARN"
    stop_timeout: float = 30.0
    directory: Path | None = None
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    started_seconds: float = 0.0

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def log_file(self) -> Path:
        assert self.directory is not None
        return self.directory / "server.log"

    def start(self, timeout: float = 90.0) -> KafkaBroker:
        began = time.monotonic()
        libs = ensure_kafka_jars()
        java = shutil.which("java")
        if java is None:
            raise LocalServiceError("Java 17 or newer is needed to run the Kafka broker")
        self.port = self.port or free_port()
        self.controller_port = self.controller_port or free_port()
        if self.directory is None:
            self.directory = Path(tempfile.mkdtemp(prefix="bemtevi-kafka-"))
        self.directory.mkdir(parents=True, exist_ok=True)
        # A restart, or a broker kept under a folder of its own (`bemtevi cluster`), keeps its storage and id.
        formatted = (self.directory / "data" / "meta.properties").exists()
        properties = self.directory / "server.properties"
        properties.write_text(
            "\n".join(
                [
                    "process.roles=broker,controller",
                    "node.id=1",
                    f"controller.quorum.voters=1@127.0.0.1:{self.controller_port}",
                    f"listeners=PLAINTEXT://127.0.0.1:{self.port},CONTROLLER://127.0.0.1:{self.controller_port}",
                    f"advertised.listeners=PLAINTEXT://127.0.0.1:{self.port}",
                    "controller.listener.names=CONTROLLER",
                    "inter.broker.listener.name=PLAINTEXT",
                    "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                    f"log.dirs={self.directory / 'data'}",
                    "num.partitions=1",
                    # Topics are created explicitly with their partition counts (see docs/architecture.md).
                    "auto.create.topics.enable=false",
                    "offsets.topic.replication.factor=1",
                    "offsets.topic.num.partitions=4",
                    "transaction.state.log.replication.factor=1",
                    "transaction.state.log.min.isr=1",
                    "transaction.state.log.num.partitions=4",
                    "share.coordinator.state.topic.replication.factor=1",
                    "share.coordinator.state.topic.min.isr=1",
                    "group.initial.rebalance.delay.ms=0",
                    "",
                ]
            )
        )
        (self.directory / "log4j2.properties").write_text(_LOG4J2.format(log=self.log_file, level=self.log_level))
        env = {
            **os.environ,
            "CLASSPATH": f"{libs}/*",
            "KAFKA_HEAP_OPTS": f"-Xmx{self.heap}",
        }
        jvm = [
            java, f"-Xmx{self.heap}", "-Xms64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-Djava.awt.headless=true", f"-Dlog4j2.configurationFile={self.directory / 'log4j2.properties'}",
        ]  # fmt: skip
        if not formatted:  # a restart keeps the storage (and the cluster id) it had
            self.cluster_id = self.cluster_id or base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
            formatting = subprocess.run(
                # "--cluster-id=": a URL-safe base64 id starts with "-" one time in 64, which a separate
                # argument would make an option to the tool's parser.
                [*jvm, "kafka.tools.StorageTool", "format", f"--cluster-id={self.cluster_id}", "-c", str(properties)],
                env=env, capture_output=True, text=True, check=False,
            )  # fmt: skip
            if formatting.returncode != 0:
                self._remove_directory()
                raise LocalServiceError(f"kafka-storage format failed: {formatting.stdout}{formatting.stderr}")
        self.process = subprocess.Popen(
            [*jvm, "kafka.Kafka", str(properties)],
            env=env,
            stdout=open(self.directory / "stdout.log", "ab"),  # noqa: SIM115 - the child keeps it
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C in a terminal reaches the parent, which stops us in order
        )
        try:
            self._wait_ready(timeout)
        except BaseException:
            self.stop()
            raise
        self.started_seconds = time.monotonic() - began
        return self

    def _wait_ready(self, timeout: float) -> None:
        from kafka import KafkaAdminClient
        from kafka.errors import KafkaError

        deadline = time.monotonic() + timeout
        last: Exception | None = None
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise LocalServiceError(f"The Kafka broker exited ({self.process.returncode}); see {self.log_file}")
            try:
                # Until the port listens, a client would only log connection errors.
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                admin = KafkaAdminClient(bootstrap_servers=self.bootstrap, request_timeout_ms=3000)
                try:
                    if admin.describe_cluster().get("brokers"):
                        return
                finally:
                    admin.close()
            except (KafkaError, OSError) as e:
                last = e
            time.sleep(0.2)
        raise LocalServiceError(f"The Kafka broker did not answer within {timeout:.0f} s ({last}); see {self.log_file}")

    def memory_bytes(self) -> int:
        """Resident memory of the broker's JVM now (VmRSS)."""
        assert self.process is not None
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return 0

    def stop(self, keep_data: bool = False) -> None:
        """End the broker; its data folder is removed unless ``keep_data`` (for a ``start()`` again)."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(self.stop_timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if not keep_data:
            self._remove_directory()

    def restart(self, timeout: float = 90.0) -> KafkaBroker:
        """Stop the broker and start it again on the same ports, with the topics and records it had."""
        self.stop(keep_data=True)
        return self.start(timeout)

    def _remove_directory(self) -> None:
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = None

    def __enter__(self) -> KafkaBroker:
        return self.start() if self.process is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()
