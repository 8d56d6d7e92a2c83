"""Composition root: builds the application, adapters, read side and use cases from settings.

It sits above the layers (like cosmicpython's bootstrap) so that each layer only sees what
its folder allows; the CLI, the server and the tests all start from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from bemtevi.bootstrap.batches import batch_commands, batch_runner
from bemtevi.commands.accounts import AccountCommands
from bemtevi.commands.advanced_queries import AdvancedQueryCommands
from bemtevi.commands.api_lookups import ApiLookups
from bemtevi.commands.api_tokens import ApiTokenCommands
from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.batch_files import BatchFiles
from bemtevi.commands.batches import BatchCommands
from bemtevi.commands.brand import BrandCommands
from bemtevi.commands.catalogue import CatalogueCommands
from bemtevi.commands.consultations import ConsultationCommands
from bemtevi.commands.contact import ContactCommands
from bemtevi.commands.credits import CreditCommands
from bemtevi.commands.customers import CustomerCommands
from bemtevi.commands.group_commit import GroupCommit
from bemtevi.commands.idempotency import IdempotentRequests
from bemtevi.commands.identity import BootstrapResult, IdentityCommands
from bemtevi.commands.ledger import EmbeddedLedger, LeasingLedger, Ledger, LedgerClient
from bemtevi.commands.query_types import StoredQueryTypes
from bemtevi.commands.rate_limits import RateLimiter
from bemtevi.commands.throttle import Throttle
from bemtevi.commands.two_factor import TwoFactorCommands
from bemtevi.commands.users import UserCommands
from bemtevi.commands.vendors import VendorCommands, VendorDirectory
from bemtevi.domain.api_tokens import TokenLimits
from bemtevi.domain.suppliers import Supplier
from bemtevi.infra.api_secrets import ApiSecrets
from bemtevi.infra.attempts import AttemptLog, PostgresAttemptLog, SqliteAttemptLog
from bemtevi.infra.google import GoogleIdTokenVerifier
from bemtevi.infra.kept_results import KeptResults
from bemtevi.infra.mail import sender_from_settings
from bemtevi.infra.passwords import PasswordHasher
from bemtevi.infra.rate_windows import PostgresRateWindows, RateWindows, SqliteRateWindows
from bemtevi.infra.report_signing import ReportSigner
from bemtevi.infra.secrets import SecretBox
from bemtevi.infra.settings import Settings
from bemtevi.infra.slots import Slot, claim_slot
from bemtevi.infra.suppliers.call_policy import VendorLimits
from bemtevi.infra.suppliers.search_index import SearchIndex, SqliteSearchIndex
from bemtevi.infra.suppliers.vendor_pool import VendorPool
from bemtevi.infra.tokens import TokenIssuer
from bemtevi.projections.batches import open_batches
from bemtevi.projections.catalogue import all_read_models
from bemtevi.projections.store import ReadStore
from bemtevi.streams.enrichment import Enrichment
from bemtevi.streams.invalidator import CacheInvalidator
from bemtevi.streams.mailer import Mailer
from bemtevi.streams.projector import NotificationSource, Projector
from bemtevi.streams.reservations import ReservationSweeper


@dataclass
class Platform:
    settings: Settings
    app: BemteviApplication
    identity: IdentityCommands
    consultations: ConsultationCommands
    credits: CreditCommands
    customers: CustomerCommands
    brand: BrandCommands
    # The enrichment catalogue: query types and layouts (commands), and the write side's reader of query types.
    catalogue: CatalogueCommands
    # Batches and manual enrichment (issue 18): upload, submit, cancel, delete, and the runner's steps.
    batches: BatchCommands
    query_types: StoredQueryTypes
    users: UserCommands
    contact: ContactCommands
    writer: GroupCommit
    ledger: LedgerClient
    store: ReadStore
    projector: Projector
    supplier: Supplier
    accounts: AccountCommands
    # Two-factor sign-in (issue 37): a group's setting, the mailed code and its check.
    two_factor: TwoFactorCommands
    mailer: Mailer | None  # None when BEMTEVI_MAILER=worker: `bemtevi worker mailer` delivers
    invalidator: CacheInvalidator
    attempts: AttemptLog
    contact_throttle: Throttle
    sweeper: ReservationSweeper
    vendors: VendorCommands
    vendor_pool: VendorPool
    kept_results: KeptResults
    # API clients' tokens (issue 34): management, and the check of every /api/v1 call.
    api_tokens: ApiTokenCommands
    api_lookups: ApiLookups
    # Per-token rate limits, counted beside the event store for every API process.
    api_limits: RateLimiter
    # The advanced query (issue 36): searches of the local dataset, results opened on advanced credits.
    advanced: AdvancedQueryCommands
    # Signs the reports handed out as files (the data-subject report's PDF) with the deployment's key.
    report_signer: ReportSigner
    bootstrap_result: BootstrapResult | None = field(default=None)
    # The replica slot this process holds (cluster mode's Kafka feed), released when it closes.
    replica_slot: Slot | None = field(default=None)
    # The embedded enrichment processor (None when BEMTEVI_ENRICHMENT=worker: `bemtevi worker enrichment` runs).
    enrichment: Enrichment | None = field(default=None)
    closed: bool = field(default=False, init=False)

    def close(self) -> None:
        if self.closed:
            return  # closed by the server's shutdown already
        self.closed = True
        if self.enrichment is not None:
            self.enrichment.stop()  # first: a batch in hand stops between chunks, resumed at the next start
        self.sweeper.stop()
        self.invalidator.stop()
        self.ledger.close()
        self.writer.stop()
        if self.mailer is not None:
            self.mailer.stop()
        self.projector.stop()
        self.store.close()
        if self.replica_slot is not None:
            self.replica_slot.release()
        self.vendor_pool.close()
        self.kept_results.close()
        close_supplier = getattr(self.supplier, "close", None)
        if close_supplier is not None:
            close_supplier()
        self.attempts.close()
        self.api_limits.close()
        self.advanced.close()
        self.app.close()


def build_platform(
    settings: Settings,
    supplier: Supplier | None = None,
    *,
    start_projector: bool = True,
    bootstrap: bool = True,
) -> Platform:
    if settings.read_feed == "kafka" and not settings.kafka_bootstrap:
        raise ValueError(KAFKA_FEED_NEEDS_BOOTSTRAP)  # before anything is opened
    app = BemteviApplication(env=settings.event_store_env())
    hasher = PasswordHasher(settings.argon2_time_cost, settings.argon2_memory_cost)
    attempts = attempt_log(settings)
    writer = GroupCommit(app, max_batch=settings.write_batch_max)
    ledger = client = ledger_client(settings, app, writer)
    if settings.ledger_lease_seconds > 0:
        # Busy accounts' lookups draw from leases of their units, recorded on this process's group commit (in
        # either deployment: only the transport to the ledger differs).
        ledger = LeasingLedger(
            ledger,
            app,
            writer,
            StoredQueryTypes(app),
            lease_seconds=settings.ledger_lease_seconds,
            holder=client.owner if isinstance(client, EmbeddedLedger) else None,
            # Embedded, the ledger never takes its own process's leases for abandoned.
            record_within=None if isinstance(client, EmbeddedLedger) else settings.ledger_abandon_seconds - 1.0,
        )
    identity = IdentityCommands(
        app,
        hasher,
        TokenIssuer(settings.signing_key),
        timedelta(hours=settings.token_ttl_hours),
        throttle=Throttle(attempts, settings.login_window_seconds),
        max_account_failures=settings.login_max_failures,
        max_address_failures=settings.login_address_max_failures,
        ledger=ledger,
    )
    if supplier is None:
        from bemtevi.infra.suppliers.local import LocalDatasetSupplier

        supplier = LocalDatasetSupplier(settings.demo_dataset_path)
    store, source, slot = read_side(settings, app)
    # Built before the mailer: read models of another event store are dropped here, with every
    # position kept in the read store (the mailer's too).
    projector = Projector(
        app,
        store,
        all_read_models(BatchFiles(settings.batches_dir).looked_up),
        page_size=settings.projector_page_size,
        coalesce_window=settings.projector_coalesce_seconds,
        source=source,
    )
    query_types = StoredQueryTypes(app)
    customers = CustomerCommands(app, identity, query_types)
    google = (
        GoogleIdTokenVerifier(settings.google_client_id, settings.google_jwks_url)
        if settings.google_client_id
        else None
    )
    accounts = AccountCommands(
        app,
        identity,
        customers,
        hasher,
        settings.signing_key,
        google=google,
        recovery_minutes=settings.recovery_code_minutes,
    )
    mailer = (
        Mailer(
            app,
            store,
            sender_from_settings(settings),
            attempts=settings.mail_attempts,
            retry_seconds=settings.mail_retry_seconds,
        )
        if settings.mailer == "embedded"
        else None
    )
    box = SecretBox(settings.vendor_secrets_key)
    vendor_pool = vendor_pool_of(settings)
    kept_results = KeptResults(settings.kept_results_path)
    credits = CreditCommands(ledger)
    batches = batch_commands(
        settings, app, credits, box, open_in_group=lambda group_id: len(open_batches(store.cursor(), str(group_id)))
    )
    consultations = ConsultationCommands(
        app, supplier, ledger, query_types, vendors=VendorDirectory(app, box), pool=vendor_pool, kept=kept_results
    )
    platform = Platform(
        settings=settings,
        app=app,
        identity=identity,
        consultations=consultations,
        credits=credits,
        batches=batches,
        customers=customers,
        brand=BrandCommands(app, identity),
        catalogue=CatalogueCommands(app),
        query_types=query_types,
        users=UserCommands(app, identity, hasher),
        contact=ContactCommands(app, identity, settings.contact_email),
        writer=writer,
        ledger=ledger,
        store=store,
        projector=projector,
        supplier=supplier,
        accounts=accounts,
        two_factor=TwoFactorCommands(app, identity, accounts),
        mailer=mailer,
        invalidator=CacheInvalidator(app, settings.cache_follow_seconds),
        attempts=attempts,
        contact_throttle=Throttle(attempts, settings.contact_rate_window_seconds),
        sweeper=ReservationSweeper(store, ledger, settings.reservation_sweep_seconds),
        replica_slot=slot,
        vendors=VendorCommands(app, box),
        vendor_pool=vendor_pool,
        kept_results=kept_results,
        api_tokens=ApiTokenCommands(
            app, ApiSecrets(settings.signing_key), TokenLimits(settings.api_max_per_second, settings.api_max_per_day)
        ),
        api_lookups=ApiLookups(app, consultations, query_types, supplier, IdempotentRequests(app)),
        api_limits=RateLimiter(rate_windows(settings)),
        advanced=AdvancedQueryCommands(app, search_index(settings), supplier, ledger, query_types),
        report_signer=ReportSigner(settings.signing_key),
    )
    if bootstrap:
        # The root's accounts are opened by a ledger on this process's group commit in either deployment:
        # at a first start no ledger worker need be running yet.
        first = (
            client if isinstance(client, EmbeddedLedger) else EmbeddedLedger(app, writer, Ledger(catalogue=query_types))
        )
        platform.bootstrap_result = identity.bootstrap(settings.admin_email, settings.admin_password, ledger=first)
        # The seeded query types (on a store that has none yet: a first start, or a store of before them).
        platform.catalogue.seed()
        # The ready layouts (events of the platform's, as the query types are).
        platform.catalogue.seed_layouts()
    if settings.enrichment == "embedded":
        lookups = platform.consultations.vendor_lookups
        assert lookups is not None
        platform.enrichment = Enrichment(
            app, store, lambda stopping: batch_runner(settings, app, batches, box, stopping, lookups)
        )
    if start_projector:
        projector.start()
        if mailer is not None:
            mailer.start()
        if platform.enrichment is not None:
            platform.enrichment.start()
        platform.invalidator.start()
        projector.wait_for(app.max_position(), timeout=30)
        # The read model has caught up: what a ledger that died left reserved is found now.
        platform.sweeper.start()
    return platform


def vendor_pool_of(settings: Settings) -> VendorPool:
    """The HTTP suppliers' pool with the settings' limits (the server's and the enrichment worker's)."""
    return VendorPool(
        VendorLimits(
            timeout=settings.vendor_timeout_seconds,
            retries=settings.vendor_retries,
            backoff=settings.vendor_retry_backoff_seconds,
            max_in_flight=settings.vendor_max_in_flight,
            breaker_failures=settings.vendor_breaker_failures,
            open_seconds=settings.vendor_breaker_open_seconds,
        ),
        on_callers_loop=settings.vendor_on_api_loop,
    )


def ledger_client(settings: Settings, app: BemteviApplication, writer: GroupCommit) -> LedgerClient:
    """Where credit requests are decided: this process's group commit, or the ledger workers behind Kafka."""
    if settings.ledger == "kafka":
        if not settings.kafka_bootstrap:
            raise ValueError("BEMTEVI_LEDGER=kafka needs BEMTEVI_KAFKA_BOOTSTRAP")
        from bemtevi.streams.ledger_client import KafkaLedgerClient

        return KafkaLedgerClient(
            settings.kafka_bootstrap,
            settings.kafka_ledger_topic,
            partitions=settings.kafka_ledger_partitions,
            replication_factor=settings.kafka_replication_factor,
            timeout=settings.ledger_timeout_seconds,
        )
    return EmbeddedLedger(app, writer)


KAFKA_FEED_NEEDS_BOOTSTRAP = (
    "BEMTEVI_READ_FEED=kafka needs BEMTEVI_KAFKA_BOOTSTRAP, the Kafka cluster the relay publishes to"
)


def read_side(settings: Settings, app: BemteviApplication) -> tuple[ReadStore, NotificationSource | None, Slot | None]:
    """The read store and where its events come from (``BEMTEVI_READ_FEED``).

    ``log``: the one read store file, fed from the event store's log (None: the projector's default).
    ``kafka``: this process's own replica, the first free ``read-models-<n>.duckdb`` of ``var_dir``
    (held while the process runs), fed from the relay's topic."""
    if settings.read_feed == "log":
        return ReadStore(settings.read_model_path), None, None
    if not settings.kafka_bootstrap:
        raise ValueError(KAFKA_FEED_NEEDS_BOOTSTRAP)
    slot = claim_slot(settings.var_dir, "read-models", ".duckdb")
    try:
        store = ReadStore(slot.path)
    except BaseException:
        slot.release()
        raise
    # Imported in cluster mode only, as the ledger's Kafka client is: kafka-python's import is costly.
    from bemtevi.streams.kafka_feed import KafkaFeed

    return store, KafkaFeed(store, settings.kafka_bootstrap, settings.kafka_events_topic), slot


def rate_windows(settings: Settings) -> RateWindows:
    """Where API tokens' requests are counted: beside the event store, shared by every API process."""
    if settings.database_url:
        return PostgresRateWindows(settings.database_url)
    return SqliteRateWindows(settings.var_dir / "rate_windows.sqlite")


def search_index(settings: Settings) -> SearchIndex:
    """The advanced query's index of the dataset: beside the event store, one for every API process on PostgreSQL,
    a file beside the dataset otherwise."""
    if settings.database_url:
        from bemtevi.infra.suppliers.search_index_postgres import PostgresSearchIndex

        return PostgresSearchIndex(settings.database_url, settings.demo_dataset_path)
    return SqliteSearchIndex(settings.demo_dataset_path)


def attempt_log(settings: Settings) -> AttemptLog:
    """Where attempt limits are counted: beside the event store, so every process of a deployment shares them."""
    if settings.database_url:
        return PostgresAttemptLog(settings.database_url)
    return SqliteAttemptLog(settings.attempts_path)
