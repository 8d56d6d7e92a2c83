"""Batches and manual enrichment (issue 18): upload and preview, submit, cancel, delete, and the
runner's steps (start, progress, finish, fail).

An upload is streamed to ``<uploads>/<upload_id>/`` (bounded by ``max_bytes``, never whole in memory),
checked and previewed by ``bemtevi.infra.batches`` (nothing charged, nothing appended); a small
``upload.json`` beside the file keeps who sent it, the layout and the preview, so ``submit`` decides on
the same figures the user saw. Credits move only through the ledger (``CreditCommands``), each
movement with a request id derived from the batch id (``ledger_request_id``), so a step repeated
after a crash moves credits once:

- submit: reserve ``credits_needed`` on the group's account of the batch's category (BATCH from the panel, API
  from the public API; recorded on ``Submitted``), THEN append ``Submitted`` (a crash
  between the two leaves a reservation no batch names; submitting again makes a new batch);
- finish: settle ``found`` (the rest released), THEN ``Finished`` (finishing again after a crash is
  claimed once by the ledger and appends ``Finished`` once);
- fail and cancel: release, THEN ``Failed`` / ``Canceled``.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

from bemtevi.commands.application import BemteviApplication, retry_on_conflict
from bemtevi.commands.batch_files import BatchFiles, safe_file_name
from bemtevi.commands.batch_steps import BatchSteps
from bemtevi.commands.batch_uploads import BatchUploads, group_of, usable_layout
from bemtevi.commands.credits import CreditCommands, available_credits
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.batch_errors import (
    BatchDisabled,
    BatchLimitReached,
    BatchNotCancellable,
    BatchNotFound,
    NoValidDocuments,
    UploadNotFound,
    WebhookNotAllowed,
)
from bemtevi.domain.batches import (
    Batch,
    BatchKind,
    cancellable,
    deletable,
    ledger_request_id,
    reservation_id,
)
from bemtevi.domain.consultations import purpose_of
from bemtevi.domain.errors import (
    AccessDenied,
    GroupNotFound,
    InvalidData,
    PurposeRequired,
)
from bemtevi.domain.groups import ALLOW_DELETE_CANCEL, ALLOW_UPLOAD_MANUAL, Group
from bemtevi.domain.layouts import Layout
from bemtevi.domain.principals import Principal
from bemtevi.domain.query_types import Category
from bemtevi.domain.users import Role
from bemtevi.infra.batches.looked_up import batches_that_looked_up, keep_looked_up
from bemtevi.infra.secrets import SecretBox
from bemtevi.infra.webhooks import WebhookAddressNotAllowed, require_public_host

log = logging.getLogger(__name__)

OBSERVATION_MAX = 500
URL_MAX = 2000


@dataclass(frozen=True, slots=True)
class Submitted:
    batch_id: UUID
    position: int


class BatchCommands:
    def __init__(
        self,
        app: BemteviApplication,
        credits: CreditCommands,
        box: SecretBox,
        work_dir: Path,
        dataset: Path,
        *,
        max_bytes: int = 10 * 1024 * 1024,
        max_records: int = 1_000_000,
        max_open_per_group: int = 20,
        open_in_group: Callable[[UUID], int] = lambda group_id: 0,
        webhook_allow_private: bool = False,
    ) -> None:
        self._app = app
        self._webhook_allow_private = webhook_allow_private
        self._credits = credits
        # The runner's steps (start, progress, finish, fail, run_stopped); the last removes the files of a batch
        # deleted while its canceled run was stopping.
        self.steps = BatchSteps(app, credits, remove_files=self._remove_files)
        self._box = box
        self.files = BatchFiles(work_dir)
        # Upload and preview: nothing charged.
        self.uploads = BatchUploads(app, self.files, dataset, max_bytes=max_bytes, max_records=max_records)
        self.max_open_per_group = max_open_per_group
        # How many of a group's batches are waiting or processing (the read model's answer, wired by bootstrap).
        self._open_in_group = open_in_group

    def return_download_name(self, batch: Batch) -> str:
        """The return file's name for the user: the layout's final file name and return extension."""
        path = self.files.return_file(batch)
        ext = path.suffix if path is not None else ""
        try:
            layout = self._app.find(UUID(batch.layout_id), Layout)
        except ValueError:
            layout = None
        base = safe_file_name(layout.value().final_file_name) if layout is not None else Path(batch.file_name).stem
        return f"{base}{ext}"

    def available_credits(self, group_id: UUID, category: Category = Category.BATCH) -> int | None:
        """The group's credits of ``category`` available now (None: unlimited)."""
        return available_credits(self._app, group_id, category)

    # -- loading -------------------------------------------------------------------------------

    def batch(self, batch_id: UUID) -> Batch:
        found = self._app.find(batch_id, Batch)
        if found is None or found.deleted:
            raise BatchNotFound()
        return found

    def _in_subtree(self, top: UUID, group_id: UUID) -> bool:
        """``group_id`` is ``top`` or below it."""
        seen: set[UUID] = set()
        current: UUID | None = group_id
        while current is not None and current not in seen:
            if current == top:
                return True
            seen.add(current)
            group = self._app.find(current, Group)
            current = group.parent_id if group is not None else None
        return False

    def visible(self, principal: Principal, batch: Batch) -> bool:
        """Who may see a batch: its own group, owners and admins of a group above it, a super-admin.
        Anyone else is told it does not exist (another tenant's batch is a 404, always)."""
        if principal.role == Role.SUPER_ADMIN or batch.group_id == principal.group_id:
            return True
        if principal.role in (Role.OWNER, Role.ADMIN):
            return self._in_subtree(principal.group_id, batch.group_id)
        return False

    def visible_batch(self, principal: Principal, batch_id: UUID) -> Batch:
        batch = self.batch(batch_id)
        if not self.visible(principal, batch):
            raise BatchNotFound()
        return batch

    # -- submit: reserve, then record ------------------------------------------------------------

    def submit(
        self,
        principal: Principal,
        upload_id: UUID,
        group_id: UUID | None = None,
        observation: str | None = None,
        webhook_url: str | None = None,
        webhook_secret: str | None = None,
        category: Category = Category.BATCH,
        purpose: str | None = None,
    ) -> Submitted:
        """``category``: the credits the batch is charged to (the public API's batches: ``Category.API``), recorded
        on ``Submitted`` so that every later step (settle, release, cancel, a resumed run) moves the same account.
        ``purpose``: what its lookups are for, recorded on ``Submitted`` (required by a group that says so)."""
        said = purpose_of(purpose)
        meta = self.uploads.meta(principal, upload_id)
        own = principal.group_id
        target = group_id or own
        kind = BatchKind.BATCH if group_id is None else BatchKind.MANUAL
        if target != own:
            if principal.role not in (Role.OWNER, Role.ADMIN, Role.SUPER_ADMIN):
                raise AccessDenied(field="groupId")
            if principal.role != Role.SUPER_ADMIN and not self._in_subtree(own, target):
                raise GroupNotFound(field="groupId")
        group = group_of(self._app, target)
        if not group.allows(ALLOW_UPLOAD_MANUAL):
            raise BatchDisabled()
        if said is None and group.requires_purpose():
            raise PurposeRequired(field="purpose")
        layout_id = str(meta["layout_id"])
        usable_layout(self._app, group, layout_id)
        credits_needed = int(meta["credits_needed"])
        if credits_needed <= 0:
            raise NoValidDocuments(field="file")
        if self._open_in_group(target) >= self.max_open_per_group:
            raise BatchLimitReached()
        note = (observation or "").strip()
        if len(note) > OBSERVATION_MAX:
            raise InvalidData(f"The observation has at most {OBSERVATION_MAX} characters", field="observation")
        url = (webhook_url or "").strip() or None
        if url is not None:
            if len(url) > URL_MAX:
                raise WebhookNotAllowed(field="webhookUrl")
            try:  # the sender's own check, made again at each try (a name may change its answer)
                require_public_host(url, allow_private=self._webhook_allow_private)
            except WebhookAddressNotAllowed as e:
                raise WebhookNotAllowed(field="webhookUrl") from e
        secret = (webhook_secret or "").strip() or None
        if secret is not None and url is None:
            raise InvalidData("A webhook secret needs a webhook URL", field="webhookSecret")

        batch_id = uuid4()
        reservation = reservation_id(batch_id)
        actor = Actor(user_id=principal.user_id, tenant_id=target)
        self._credits.reserve(
            actor,
            target,
            category,
            reservation,
            credits_needed,
            request_id=ledger_request_id(batch_id, "reserve"),
        )
        # The sent file moves under the batch before it is recorded: a runner never finds a batch without it.
        folder = self.files.batch_dir(batch_id) / "sent"
        folder.mkdir(parents=True, exist_ok=True)
        source = self.files.upload_dir(upload_id) / str(meta["file_name"])
        try:
            source.replace(folder / str(meta["file_name"]))
        except OSError:
            self._credits.release(
                actor, target, category, reservation, request_id=ledger_request_id(batch_id, "release")
            )
            raise UploadNotFound(field="uploadId") from None
        # The preview's staged records go along (the run joins them instead of reading the file again);
        # without them the run reads the file itself.
        from bemtevi.infra.batches.pipeline import staged_path

        with contextlib.suppress(OSError):
            staged_path(source).replace(staged_path(folder / str(meta["file_name"])))
        with acting_as(actor):
            batch = Batch.submit(
                batch_id,
                group_id=target,
                user_id=principal.user_id,
                kind=kind.value,
                layout_id=layout_id,
                query_type=meta.get("query_type"),
                file_name=str(meta["file_name"]),
                extension=str(meta["extension"]),
                encoding=str(meta["encoding"]),
                size=int(meta["size"]),
                records=int(meta["records"]),
                valid_documents=int(meta["valid_documents"]),
                credits_reserved=credits_needed,
                reservation_id=reservation,
                observation=note,
                webhook_url=url,
                webhook_secret_sealed=self._box.seal(secret) if secret else None,
                category=category.value,
                purpose=said,
            )
        position = self._app.save_all(batch)
        shutil.rmtree(self.files.upload_dir(upload_id), ignore_errors=True)
        return Submitted(batch_id, position)

    # -- cancel and delete ---------------------------------------------------------------------

    def _may_act(self, principal: Principal, group_id: UUID, user_id: UUID | None, allows: dict[UUID, bool]) -> bool:
        """The rule of who may cancel or delete a batch the caller sees: a super-admin, or the batch's owner (its
        user, or an owner/admin of its group or a group above) when the group's ``allowDeletedAndCancelled`` is
        on. ``allows`` remembers each group's toggle for a page of rows."""
        if principal.role == Role.SUPER_ADMIN:
            return True
        if user_id != principal.user_id and principal.role not in (Role.OWNER, Role.ADMIN):
            return False
        if group_id not in allows:
            allows[group_id] = group_of(self._app, group_id).allows(ALLOW_DELETE_CANCEL)
        return allows[group_id]

    def _may_cancel_or_delete(self, principal: Principal, batch: Batch) -> None:
        if principal.role == Role.SUPER_ADMIN:
            return
        if not self.visible(principal, batch):
            raise BatchNotFound()
        if not self._may_act(principal, batch.group_id, batch.user_id, {}):
            raise AccessDenied()

    def allowed_actions(self, principal: Principal, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The rows of batches the caller sees (the read model's ``batch_row`` shape), each with ``canCancel`` and
        ``canDelete``: what ``cancel`` and ``delete`` would allow now, by the same rule and the row's status."""
        allows: dict[UUID, bool] = {}
        answered = []
        for row in rows:
            user_id = UUID(row["userId"]) if row["userId"] else None
            may = self._may_act(principal, UUID(row["groupId"]), user_id, allows)
            status = str(row["status"])
            over = may and deletable(status)
            answered.append({**row, "canCancel": may and cancellable(status), "canDelete": over, "canToggle": over})
        return answered

    def cancel(self, principal: Principal, batch_id: UUID) -> int:
        """Cancel a waiting or processing batch, recorded as canceled by the caller (the event's actor) with
        their role: its reservation is released first, then ``Canceled``; the runner sees it within a second
        and stops."""
        batch = self.batch(batch_id)
        self._may_cancel_or_delete(principal, batch)
        if not batch.is_open:
            raise BatchNotCancellable()
        try:
            self.steps.release(batch, Actor(user_id=principal.user_id, tenant_id=batch.group_id))
        except InvalidData:  # the reservation was settled meanwhile: the batch finished under the cancel
            if not self.batch(batch_id).is_open:
                raise BatchNotCancellable() from None
            raise

        def decide() -> int:
            current = self.batch(batch_id)
            with acting_as(principal.actor):
                current.cancel(principal.role.value)
            return self._app.save_all(current)

        return retry_on_conflict(decide)

    def set_active(self, principal: Principal, batch_id: UUID, active: bool) -> int:
        """Activate or inactivate a batch that is over, by whoever may cancel or delete it (audited by its events)."""
        self._may_cancel_or_delete(principal, self.batch(batch_id))

        def decide() -> int:
            current = self.batch(batch_id)
            with acting_as(principal.actor):
                current.set_active(active)
            return self._app.save_all(current)

        return retry_on_conflict(decide)

    def delete(self, principal: Principal, batch_id: UUID) -> int:
        """Delete a batch that is over (not undoable): gone from lists, its files removed."""
        batch = self.batch(batch_id)
        self._may_cancel_or_delete(principal, batch)

        def decide() -> int:
            current = self.batch(batch_id)
            with acting_as(principal.actor):
                current.delete()
            return self._app.save_all(current)

        position = retry_on_conflict(decide)
        # Canceled under its runner, which has not said it writes no more: a chunk may still come, so the runner's
        # RunStopped step removes the files after it. Whichever of the two is appended last sees the other.
        if not self._app.get(batch_id, Batch).awaits_run_stop:
            self._remove_files(batch_id)
        return position

    def _remove_files(self, batch_id: UUID) -> None:
        """The files go, the fact that its documents were consulted stays (the data-subject report lists them);
        kept files that could not be written are left in place rather than lose that."""
        try:
            keep_looked_up(self.files.work_dir(batch_id), self.files.looked_up_file(batch_id))
        except (OSError, ValueError):  # Arrow's errors are either
            log.exception("batch %s deleted, its files kept: what it looked up could not be written apart", batch_id)
            return
        shutil.rmtree(self.files.batch_dir(batch_id), ignore_errors=True)

    def looked_up(self, batch_ids: Iterable[str], document: str) -> dict[str, bool]:
        """Of ``batch_ids`` (the running ones: the read side indexes a batch's documents once it is over), the
        batches whose run looked ``document`` (digits) up so far, each with whether it was found (the
        data-subject report's batch consultations), searched in their files."""
        folders = ((b, self.files.work_dir(UUID(b)), self.files.looked_up_file(UUID(b))) for b in batch_ids)
        return batches_that_looked_up(folders, document)

    def webhook_secret(self, batch: Batch) -> str | None:
        return self._box.open(batch.webhook_secret_sealed) if batch.webhook_secret_sealed else None
