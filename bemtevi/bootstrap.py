"""Composition root: builds the application, adapters, read side and use cases from settings.

It sits above the layers (like cosmicpython's bootstrap) so that each layer only sees what
its folder allows; the CLI, the server and the tests all start from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.contact import ContactCommands
from bemtevi.commands.consultations import ConsultationCommands
from bemtevi.commands.credits import CreditCommands
from bemtevi.commands.brand import BrandCommands
from bemtevi.commands.customers import CustomerCommands
from bemtevi.commands.group_commit import GroupCommit
from bemtevi.commands.identity import BootstrapResult, IdentityCommands
from bemtevi.commands.users import UserCommands
from bemtevi.domain.suppliers import Supplier
from bemtevi.infra.passwords import PasswordHasher
from bemtevi.infra.settings import Settings
from bemtevi.infra.tokens import TokenIssuer
from bemtevi.projections.catalogue import all_read_models
from bemtevi.projections.store import ReadStore
from bemtevi.streams.projector import Projector


@dataclass
class Platform:
    settings: Settings
    app: BemteviApplication
    identity: IdentityCommands
    consultations: ConsultationCommands
    credits: CreditCommands
    customers: CustomerCommands
    brand: BrandCommands
    users: UserCommands
    contact: ContactCommands
    writer: GroupCommit
    store: ReadStore
    projector: Projector
    supplier: Supplier
    bootstrap_result: BootstrapResult | None = field(default=None)

    def close(self) -> None:
        self.writer.stop()
        self.projector.stop()
        self.store.close()
        close_supplier = getattr(self.supplier, "close", None)
        if close_supplier is not None:
            close_supplier()
        self.app.close()


def build_platform(
    settings: Settings,
    supplier: Supplier | None = None,
    *,
    start_projector: bool = True,
    bootstrap: bool = True,
) -> Platform:
    app = BemteviApplication(env=settings.event_store_env())
    hasher = PasswordHasher(settings.argon2_time_cost, settings.argon2_memory_cost)
    identity = IdentityCommands(
        app, hasher, TokenIssuer(settings.signing_key), timedelta(hours=settings.token_ttl_hours)
    )
    if supplier is None:
        from bemtevi.infra.suppliers.local import LocalDatasetSupplier

        supplier = LocalDatasetSupplier(settings.demo_dataset_path)
    store = ReadStore(settings.read_model_path)
    projector = Projector(
        app,
        store,
        all_read_models(),
        page_size=settings.projector_page_size,
        coalesce_window=settings.projector_coalesce_seconds,
    )
    writer = GroupCommit(app, max_batch=settings.write_batch_max)
    platform = Platform(
        settings=settings,
        app=app,
        identity=identity,
        consultations=ConsultationCommands(app, supplier, writer),
        credits=CreditCommands(writer),
        customers=CustomerCommands(app, identity),
        brand=BrandCommands(app, identity),
        users=UserCommands(app, identity, hasher),
        contact=ContactCommands(app, identity, settings.contact_email),
        writer=writer,
        store=store,
        projector=projector,
        supplier=supplier,
    )
    if bootstrap:
        platform.bootstrap_result = identity.bootstrap(settings.admin_email, settings.admin_password)
    if start_projector:
        projector.start()
        projector.wait_for(app.max_position(), timeout=30)
    return platform
