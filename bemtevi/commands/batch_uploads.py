"""A batch's upload and preview, nothing charged: the file streamed to its upload folder (refused past
``max_bytes``), checked and previewed by ``bemtevi.infra.batches``; ``upload.json`` beside it keeps who sent it,
the layout and the preview, so that ``BatchCommands.submit`` decides on the figures the user saw."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.batch_files import BatchFiles, safe_file_name
from bemtevi.domain.batch_errors import (
    BatchDisabled,
    EntryRequired,
    FileTooLarge,
    FileTypeNotAllowed,
    ReturnRequired,
    UploadNotFound,
)
from bemtevi.domain.errors import (
    GroupNotFound,
    LayoutNotAllowed,
    LayoutNotFound,
    RequiredField,
)
from bemtevi.domain.groups import ALLOW_UPLOAD_MANUAL, Group
from bemtevi.domain.layouts import Layout, LayoutSpec
from bemtevi.domain.principals import Principal

# The upload's body is spooled and written in chunks of this size.
CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class Uploaded:
    upload_id: UUID
    file_name: str
    check: Any  # bemtevi.infra.batches.upload_checks.UploadCheck
    preview: Any  # bemtevi.infra.batches.pipeline.BatchPreview


def group_of(app: BemteviApplication, group_id: UUID) -> Group:
    group = app.find(group_id, Group)
    if group is None:
        raise GroupNotFound()
    return group


def layout_of(app: BemteviApplication, layout_id: str) -> Layout:
    try:
        layout = app.find(UUID(layout_id), Layout)
    except ValueError:
        layout = None
    if layout is None:
        raise LayoutNotFound(field="layoutId")
    return layout


def _layout_rules(spec: LayoutSpec) -> None:
    if not spec.rows_of("entry"):
        raise EntryRequired(field="layoutId")
    if not spec.rows_of("exit"):
        raise ReturnRequired(field="layoutId")


def usable_layout(app: BemteviApplication, group: Group, layout_id: str) -> Layout:
    """The layout, if the group may use it for a batch (active, enabled for the group, with entry and exit rows)."""
    layout = layout_of(app, layout_id)
    # A group's own layout (written or copied by it) is the group's to use without being enabled.
    if not layout.active or (layout_id not in group.current_layouts() and layout.owner() != str(group.id)):
        raise LayoutNotAllowed(field="layoutId")
    _layout_rules(layout.value())
    return layout


class BatchUploads:
    def __init__(
        self, app: BemteviApplication, files: BatchFiles, dataset: Path, *, max_bytes: int, max_records: int
    ) -> None:
        self._app = app
        self._files = files
        self._dataset = dataset
        self.max_bytes = max_bytes
        self.max_records = max_records

    def require_uploadable(self, principal: Principal, layout_id: str) -> None:
        """The rules an upload is refused by before its body is read (batch query on, layout usable)."""
        if not layout_id:
            raise RequiredField(field="layoutId")
        group = group_of(self._app, principal.group_id)
        if not group.allows(ALLOW_UPLOAD_MANUAL):
            raise BatchDisabled()
        usable_layout(self._app, group, layout_id)

    def upload(
        self,
        principal: Principal,
        layout_id: str,
        chunks: Iterable[bytes],
        file_name: str,
        query_type: str | None = None,
    ) -> Uploaded:
        """Stream the file to disk (refused past ``max_bytes``), check it and preview it."""
        from bemtevi.infra.batches.pipeline import preview
        from bemtevi.infra.batches.upload_checks import check_upload

        if not file_name:
            raise RequiredField(field="file")
        self.require_uploadable(principal, layout_id)
        spec = layout_of(self._app, layout_id).value()
        # The file's own extension is one of TXT, CSV, XLSX and the layout's (its bytes are checked below).
        if Path(file_name).suffix.lower().lstrip(".") != spec.accepted_extension.lower():
            raise FileTypeNotAllowed(field="file")
        upload_id = uuid4()
        folder = self._files.upload_dir(upload_id)
        folder.mkdir(parents=True, exist_ok=True)
        name = safe_file_name(file_name)
        path = folder / name
        try:
            size = 0
            with path.open("wb") as out:
                for chunk in chunks:
                    size += len(chunk)
                    if size > self.max_bytes:
                        raise FileTooLarge(field="file")
                    out.write(chunk)
            check = check_upload(path, spec.accepted_extension.upper())
            shown = preview(path, check, spec, self._dataset, max_records=self.max_records)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        meta = {
            "user_id": str(principal.user_id),
            "group_id": str(principal.group_id),
            "layout_id": layout_id,
            "query_type": query_type,
            "file_name": name,
            "extension": check.extension,
            "encoding": check.encoding,
            "size": check.size,
            "records": shown.records,
            "valid_documents": shown.valid_documents,
            "credits_needed": shown.credits_needed,
        }
        (folder / "upload.json").write_text(json.dumps(meta), encoding="utf-8")
        return Uploaded(upload_id, name, check, shown)

    def meta(self, principal: Principal, upload_id: UUID) -> dict[str, Any]:
        try:
            meta: dict[str, Any] = json.loads((self._files.upload_dir(upload_id) / "upload.json").read_text("utf-8"))
        except (OSError, ValueError):
            raise UploadNotFound(field="uploadId") from None
        if meta.get("user_id") != str(principal.user_id):
            raise UploadNotFound(field="uploadId")
        return meta
