"""Where a batch's files live under the batches' folder: an upload's (``uploads/<upload id>/``, with its
``upload.json``), and a batch's sent file (``<batch id>/sent/``) and runner's work (``<batch id>/work/``: the
chunks and ``return.<ext>``); and what a deleted batch looked up (``looked-up/<batch id>.arrow``, left by the
deletion: the data-subject report still lists those consultations)."""

from __future__ import annotations

import re
from pathlib import Path
from uuid import UUID

import pyarrow as pa

from bemtevi.domain.batches import Batch
from bemtevi.infra.batches.looked_up import looked_up_documents

_SAFE_NAME = re.compile(r"[^A-Za-z0-9._ -]+")


def safe_file_name(name: str) -> str:
    """A file name as kept on disk and shown: no directories, no control characters."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    cleaned = _SAFE_NAME.sub("_", base)[:200].strip(" .")
    return cleaned or "file"


class BatchFiles:
    def __init__(self, work_dir: Path) -> None:
        self._work_dir = work_dir

    def upload_dir(self, upload_id: UUID) -> Path:
        return self._work_dir / "uploads" / str(upload_id)

    def batch_dir(self, batch_id: UUID) -> Path:
        """A batch's files: ``sent/<file name>`` and the runner's work (chunks, return file)."""
        return self._work_dir / str(batch_id)

    def sent_file(self, batch: Batch) -> Path:
        return self.batch_dir(batch.id) / "sent" / batch.file_name

    def work_dir(self, batch_id: UUID) -> Path:
        """Where the runner keeps a batch's chunk files and assembles ``return.<ext>``."""
        return self.batch_dir(batch_id) / "work"

    def looked_up_file(self, batch_id: UUID) -> Path:
        """The documents a deleted batch looked up (``infra.batches.looked_up``), outside its own folder."""
        return self._work_dir / "looked-up" / f"{batch_id}.arrow"

    def looked_up(self, batch_id: str) -> pa.Table:
        """The documents a batch's run looked up, with whether each was found (``looked_up_documents``): what the
        data-subject report's index holds of a batch that is over."""
        batch = UUID(batch_id)
        return looked_up_documents(self.work_dir(batch), self.looked_up_file(batch))

    def return_file(self, batch: Batch) -> Path | None:
        found = sorted(self.work_dir(batch.id).glob("return.*"))
        return next((p for p in found if p.suffix.lower() in (".csv", ".txt", ".xlsx")), None)

    def spool_dir(self) -> Path:
        """Where an upload's body is spooled while it arrives (past 1 MB)."""
        folder = self._work_dir / "uploads"
        folder.mkdir(parents=True, exist_ok=True)
        return folder
