"""The batch commands and the enrichment runner as the settings bind them: the same in a server and in the
enrichment worker."""

from __future__ import annotations

import threading
from collections.abc import Callable
from uuid import UUID

from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.batches import BatchCommands
from bemtevi.commands.credits import CreditCommands
from bemtevi.commands.vendor_lookups import VendorLookups
from bemtevi.infra.secrets import SecretBox
from bemtevi.infra.settings import Settings
from bemtevi.streams.batch_vendors import VendorResolver
from bemtevi.streams.enrichment import BatchRunner, BatchSide, pipeline_inputs


def batch_commands(
    settings: Settings,
    app: BemteviApplication,
    credits: CreditCommands,
    box: SecretBox,
    open_in_group: Callable[[UUID], int] = lambda group_id: 0,
) -> BatchCommands:
    """The batch commands as the settings bound them, the same in a server and in a worker (which counts no
    group's open batches: it only runs them)."""
    return BatchCommands(
        app,
        credits,
        box,
        settings.batches_dir,
        settings.demo_dataset_path,
        max_bytes=settings.batch_max_bytes,
        max_records=settings.batch_max_records,
        max_open_per_group=settings.batch_max_open_per_group,
        webhook_allow_private=settings.webhook_allow_private,
        open_in_group=open_in_group,
    )


def batch_runner(
    settings: Settings,
    app: BemteviApplication,
    batches: BatchCommands,
    box: SecretBox,
    stopping: threading.Event,
    lookups: VendorLookups,
) -> BatchRunner:
    """The enrichment processor's runner (``streams.enrichment``), the same in a server and in a worker."""
    from bemtevi.infra.batches.pipeline import run_batch
    from bemtevi.infra.webhooks import WebhookSender

    side = BatchSide(
        app,
        batches.steps,
        pipeline_inputs(app, batches.files.sent_file, settings.demo_dataset_path, settings.batch_chunk_rows),
        open_secret=box.open,
    )
    return BatchRunner(
        side,
        run_batch,
        batches.files.work_dir,
        stopping,
        time_limit_seconds=settings.batch_time_limit_seconds,
        progress_seconds=settings.batch_progress_seconds,
        webhooks=WebhookSender(
            retries=settings.webhook_retries,
            backoff=settings.webhook_backoff_seconds,
            timeout=settings.webhook_timeout_seconds,
            allow_private=settings.webhook_allow_private,
        ),
        resolve_missing=VendorResolver(lookups).for_batch,
    )
