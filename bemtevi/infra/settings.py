"""Settings from ``BEMTEVI_*`` environment variables (and ``PORT``), embedded defaults otherwise."""

from __future__ import annotations

import os
import secrets
from functools import cached_property
from pathlib import Path
from typing import Literal
from urllib.parse import unquote, urlparse

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="BEMTEVI_", extra="ignore")

    var_dir: Path = Path("var")
    database_url: str | None = None  # postgresql://user:pass@host:port/dbname; SQLite file when unset
    host: str = "127.0.0.1"
    port: int = Field(default_factory=lambda: int(os.environ.get("PORT", "8000")))
    admin_email: str = "admin@bemtevi.local"
    admin_password: str | None = None
    secret_key: str | None = None
    # The key that seals suppliers' secrets (passwords, tokens) at rest: a Fernet key (32 bytes,
    # url-safe base64). Unset: generated once and kept under var/ (``vendor_secrets_key``). Every process
    # of one deployment needs the same key; losing it means typing the suppliers' secrets again.
    secrets_key: str | None = None
    # HTTP suppliers: the whole-call deadline, retries (after the first try) and the pause before the
    # first retry (doubling), how many calls one supplier has in flight at most, and the circuit
    # breaker (failures in a row that open it, seconds it stays open before one trial call).
    vendor_timeout_seconds: float = 5.0
    vendor_retries: int = 2
    vendor_retry_backoff_seconds: float = 0.05
    vendor_max_in_flight: int = 64
    vendor_breaker_failures: int = 5
    vendor_breaker_open_seconds: float = 30.0
    # Where the API's vendor calls run: on its own event loop (true), or handed over to the vendor pool's
    # loop thread (false; what a thread-run route would need; kept to measure the hand-over's cost).
    vendor_on_api_loop: bool = True
    token_ttl_hours: int = 12
    # The most an API token may be set to: requests per second and per day (a token's own limits are set
    # within these on the api-query screen).
    api_max_per_second: int = 50
    api_max_per_day: int = 100_000
    # Hosts that serve the product's own site (root path shows the public home there).
    main_domains: str = "localhost,127.0.0.1"
    demo_people: int = 100_000
    demo_companies: int = 20_000
    demo_seed: int = 20111
    dataset_path: Path | None = None
    webapp_dist: Path = Path(__file__).resolve().parents[2] / "webapp" / "dist"
    # Bounded wait of a query sent with a read-your-writes position.
    read_wait_seconds: float = 2.0
    projector_page_size: int = 1000
    # How long the projector lets concurrent saves gather before one write (readers waiting
    # for a position never wait for it).
    projector_coalesce_seconds: float = 0.5
    # How often each process reads the log to evict what other processes saved from its caches (a logout
    # or an inactivation elsewhere is obeyed here within about this long).
    cache_follow_seconds: float = 0.25
    # Most commands one group-commit append may carry; 1 gives one save per command (the
    # baseline bench/credits.py compares against).
    write_batch_max: int = 512
    # Where credit requests are decided (bemtevi.commands.ledger): "embedded", on this process's group
    # commit; "kafka", by the `bemtevi worker ledger` processes behind the topic below (cluster mode).
    ledger: Literal["embedded", "kafka"] = "embedded"
    # How often the lookups' reservations left by a ledger that died are looked for and released
    # (bemtevi.streams.reservations); also once at start.
    reservation_sweep_seconds: float = 2.0
    # One JSON line per HTTP request on stderr (bemtevi.api.access_log).
    access_log: bool = True
    # Where the public site's contact and trial requests are sent (the product team).
    contact_email: str = "contato@bemtevi.local"
    # Contact requests one client address may send per window (the public form is not a relay).
    contact_rate_limit: int = 5
    contact_rate_window_seconds: float = 600.0
    argon2_time_cost: int = 2
    argon2_memory_cost: int = 19_456  # KiB (OWASP minimum for argon2id)
    # Mail (SMTP). No host: mails are kept in the outbox a super-admin reads in the app.
    smtp_host: str | None = None
    smtp_port: int = 25
    smtp_user: str | None = None
    smtp_password: str | None = None
    smtp_from: str = "Bemtevi <no-reply@bemtevi.local>"
    smtp_starttls: bool = False
    smtp_ssl: bool = False
    smtp_timeout_seconds: float = 10.0
    # Delivery tries of one mail before it is recorded as failed for good, and the first pause
    # between them (doubled after each failure).
    mail_attempts: int = 4
    mail_retry_seconds: float = 2.0
    # Google sign-in: shown and accepted only when a client id is configured.
    google_client_id: str | None = None
    google_jwks_url: str = "https://www.googleapis.com/oauth2/v3/certs"
    # Failed sign-ins and recovery-code tries allowed per account and per client address
    # within the window before answering 429.
    login_max_failures: int = 5
    login_address_max_failures: int = 20
    login_window_seconds: int = 900
    recovery_code_minutes: int = 15
    # Cluster mode: the Kafka cluster (host:port[,host:port...]) that `bemtevi relay` publishes the
    # event log to, the topic (created with this many partitions and replicas when missing) and the
    # events the relay reads and flushes at a time (its position is stored after each page).
    kafka_bootstrap: str | None = None
    kafka_events_topic: str = "bemtevi.events"
    kafka_events_partitions: int = 12
    # The queued mails, also published by the relay to a topic of their own (same partitions), so that
    # the mailer worker reads only them rather than passing over every event of the log.
    kafka_mail_topic: str = "bemtevi.mail"
    # The submitted batches (``Batch.Submitted``), also published by the relay to a topic of their own (same
    # partitions), read by `bemtevi worker enrichment`.
    kafka_batch_topic: str = "bemtevi.batches"
    kafka_replication_factor: int = 1
    relay_page_size: int = 1000
    # How long the relay lets appends gather after one wakes it, before it reads and sends them in one
    # round (each round is a read of the log, produce requests, every reader's fetch and a position write).
    relay_gather_seconds: float = 0.02
    # Cluster mode's ledger: requests keyed by group on this topic (created with this many partitions,
    # the most ledger workers that can share the work); how long an API process waits for an answer;
    # how long a worker waits before releasing reservations another (stopped) owner left, and before
    # releasing its own lookup reservations whose caller never finished them (an API process that died).
    kafka_ledger_topic: str = "bemtevi.ledger"
    kafka_ledger_partitions: int = 12
    ledger_timeout_seconds: float = 30.0
    ledger_abandon_seconds: float = 30.0
    ledger_stale_seconds: float = 120.0
    # How long the server (embedded) or an API process (cluster mode) draws a busy account's lookups from one
    # lease of its units (``commands.ledger.leases``) before returning it to the ledger; 0: no leases, every lookup
    # asks the ledger.
    ledger_lease_seconds: float = 2.0
    # Where the read models' events come from: ``log``, the event store's log into one read store
    # (``read_model_path``, the embedded default); ``kafka``, the relay's topic into a replica of this
    # process's own (cluster mode: each API process takes a free ``read-models-<n>.duckdb`` slot of
    # ``var_dir``).
    read_feed: Literal["log", "kafka"] = "log"
    # Cluster mode's workers (`bemtevi worker NAME`, faust-streaming): how long the broker waits for a silent
    # worker before its partitions move to the others of its group.
    worker_session_timeout_seconds: float = 8.0
    # Who delivers queued mails: "embedded", a thread in each server process following the log; "worker",
    # `bemtevi worker mailer` processes over Kafka (cluster mode), and no server delivers any.
    mailer: Literal["embedded", "worker"] = "embedded"
    # Batches (issue 18): the largest file accepted on upload (the specification's 10 MB), and how many of a
    # group's batches may wait or run at once ("Group has reached the maximum number of batch queries").
    # Files live under ``batches_dir`` (``var_dir``/batches): uploads, and per batch its sent file and work.
    batch_max_bytes: int = 10 * 1024 * 1024
    # The most records one batch file may hold, counted while the file is read (an upload past it is refused
    # before more is read): what bounds a file's cost, since a 10 MB XLSX inflates to millions of rows.
    batch_max_records: int = 1_000_000
    batch_max_open_per_group: int = 20
    # Where batches' files live when not under ``var_dir``: every process that takes uploads, runs batches or
    # serves their files must see the same folder (`bemtevi cluster` gives its API processes and workers one).
    batches_path: Path | None = None
    # Who runs submitted batches: "embedded", a thread of each server process following the log; "worker",
    # `bemtevi worker enrichment` processes over Kafka (cluster mode), and no server runs any.
    enrichment: Literal["embedded", "worker"] = "embedded"
    # A batch still processing this long after its first start is ended ("Process terminated after exceeding
    # the 1 hour limit"); its progress is recorded, and its cancel looked for, at most this often.
    batch_time_limit_seconds: float = 3600.0
    batch_progress_seconds: float = 1.0
    # Records per chunk of a batch (each chunk's output is written to disk: what a resumed batch skips).
    batch_chunk_rows: int = 100_000
    # A batch's webhook: retries after the first try, the first pause (doubling) and each try's timeout.
    webhook_retries: int = 3
    webhook_backoff_seconds: float = 1.0
    webhook_timeout_seconds: float = 10.0
    # Let webhooks reach loopback / private addresses (tests; receivers inside the deployment on purpose).
    webhook_allow_private: bool = False

    @model_validator(mode="after")
    def _leases_end_before_the_ledger_takes_them_for_abandoned(self) -> Settings:
        # A lease is held up to twice its time (the next one's time starts when the open ones end, at most one
        # lease time ahead; commands.ledger.leases), and the ledger settles a lease held longer than the abandon time as
        # a dead process's, from the log: a live holder's lookups recorded after that would go uncharged.
        if self.ledger_lease_seconds > 0 and self.ledger_abandon_seconds < 2 * self.ledger_lease_seconds + 2:
            raise ValueError(
                f"BEMTEVI_LEDGER_ABANDON_SECONDS ({self.ledger_abandon_seconds:g}) must be at least twice "
                f"BEMTEVI_LEDGER_LEASE_SECONDS ({self.ledger_lease_seconds:g}) plus 2 s: a lease is held up to "
                "twice its time, and the ledger settles a lease held longer than that as a dead process's"
            )
        return self

    @property
    def events_path(self) -> Path:
        return self.var_dir / "events.sqlite"

    @property
    def attempts_path(self) -> Path:
        return self.var_dir / "attempts.sqlite"

    @property
    def read_model_path(self) -> Path:
        return self.var_dir / "read_models.duckdb"

    @property
    def demo_dataset_path(self) -> Path:
        return self.dataset_path or self.var_dir / "dataset.duckdb"

    @property
    def main_domain_set(self) -> frozenset[str]:
        return frozenset(d.strip().lower() for d in self.main_domains.split(",") if d.strip())

    @cached_property
    def signing_key(self) -> str:
        """The token signing key: configured, or generated once and kept under var/."""
        if self.secret_key:
            return self.secret_key
        path = self.var_dir / "secret_key"
        if path.exists():
            return path.read_text().strip()
        self.var_dir.mkdir(parents=True, exist_ok=True)
        key = secrets.token_urlsafe(48)
        path.touch(mode=0o600)
        path.write_text(key)
        return key

    @cached_property
    def vendor_secrets_key(self) -> str:
        """The key sealing suppliers' secrets: configured, or generated once and kept under var/."""
        if self.secrets_key:
            return self.secrets_key
        path = self.var_dir / "vendor_secrets_key"
        if path.exists():
            return path.read_text().strip()
        from cryptography.fernet import Fernet

        self.var_dir.mkdir(parents=True, exist_ok=True)
        key = Fernet.generate_key().decode()
        path.touch(mode=0o600)
        path.write_text(key)
        return key

    @property
    def batches_dir(self) -> Path:
        return self.batches_path or self.var_dir / "batches"

    @property
    def kept_results_path(self) -> Path:
        return self.var_dir / "kept_results.sqlite"

    def event_store_env(self) -> dict[str, str]:
        """The eventsourcing library's environment for the chosen backend."""
        env = {
            "AGGREGATE_CACHE_MAXSIZE": "10000",
            "AGGREGATE_CACHE_FASTFORWARD": "y",
            "IS_SNAPSHOTTING_ENABLED": "y",
        }
        if self.database_url:
            url = urlparse(self.database_url)
            if url.scheme not in {"postgresql", "postgres"}:
                raise ValueError("BEMTEVI_DATABASE_URL must be a postgresql:// URL")
            env.update(
                {
                    "PERSISTENCE_MODULE": "eventsourcing.postgres",
                    "POSTGRES_DBNAME": url.path.lstrip("/") or "postgres",
                    "POSTGRES_HOST": url.hostname or "127.0.0.1",
                    "POSTGRES_PORT": str(url.port or 5432),
                    "POSTGRES_USER": unquote(url.username or "postgres"),
                    "POSTGRES_PASSWORD": unquote(url.password or ""),
                    "POSTGRES_POOL_SIZE": "10",
                    "POSTGRES_MAX_OVERFLOW": "20",
                    "POSTGRES_LOCK_TIMEOUT": "5",
                    "APPLICATION_RECORDER_TOPIC": "bemtevi.infra.postgres_store:OneCallPostgresApplicationRecorder",
                    "TRACKING_RECORDER_TOPIC": "bemtevi.infra.postgres_store:SchemaLockedPostgresTrackingRecorder",
                }
            )
        else:
            self.var_dir.mkdir(parents=True, exist_ok=True)
            env.update(
                {
                    "PERSISTENCE_MODULE": "eventsourcing.sqlite",
                    "SQLITE_DBNAME": str(self.events_path),
                    "SQLITE_LOCK_TIMEOUT": "10",
                    "APPLICATION_RECORDER_TOPIC": "bemtevi.infra.sqlite_store:OneStatementSQLiteApplicationRecorder",
                }
            )
        return env
