"""The data-subject report's read: every consultation of one document, in every tenant, newest first.

A unit lookup (panel, public API, advanced) is a row of ``consultations``, read by its ``document_key`` index. A
batch's documents are no events of their own (``domain.batches``): its run writes them to its files. When a batch
is over (``Finished``, ``Failed``, ``Canceled`` before it started; one canceled while it ran at its runner's
``RunStopped``, since the runner sees the user's cancel at its next look and may write one more chunk after it) the
fold reads what its run looked up from those files (``BatchFiles.looked_up``: the chunks, or the file its deletion
kept) into ``subject_batch_documents``, an index document -> batch, so the report finds a document's batches by an
indexed read, whatever the number and size of the batches ever run; a batch still running, or canceled and not
stopped yet, is searched in its files at report time. A rebuild reads the same files (a deleted batch's kept file
outlives it) at the same events, so it makes the same index. (A batch canceled while running before
``RunStopped`` existed never gets one: it is searched in its files, which is right, only slower.) What the report
says of each batch (who, which group, when, query type, purpose, file) comes from
``subject_batches``, one row per batch from its ``Submitted``, first ``Started`` and end, kept when the batch is
deleted (its consultations happened all the same). Batch events are a few per batch; reading a batch's documents
costs the projector once per batch, at its end.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any
from uuid import UUID

import duckdb
import pyarrow as pa

from bemtevi.domain.batches import Batch, kept_result_id
from bemtevi.domain.query_types import Category
from bemtevi.projections.base import PageFold, ReadModel, RowFold, first_row
from bemtevi.projections.consultations import document_key

log = logging.getLogger(__name__)

SUBJECT_BATCHES_DDL = """
CREATE TABLE IF NOT EXISTS subject_batches (
    batch_id VARCHAR PRIMARY KEY,
    group_id VARCHAR NOT NULL,
    user_id VARCHAR,
    origin VARCHAR NOT NULL,  -- batch (the panel), manual (a manual enrichment) or api (the public API)
    query_type VARCHAR,
    file_name VARCHAR NOT NULL,
    purpose VARCHAR,  -- what its sender said its lookups are for; NULL when nothing was said (and older events)
    submitted_at TIMESTAMP NOT NULL,
    started_at TIMESTAMP,  -- its run's first start: when its documents were looked up
    ended_at TIMESTAMP  -- Finished, Failed, Canceled before it started or RunStopped: its documents are indexed
)
"""

SUBJECT_DOCUMENTS_DDL = """
CREATE TABLE IF NOT EXISTS subject_batch_documents (
    document BIGINT NOT NULL,  -- document_key
    batch_id VARCHAR NOT NULL,
    found BOOLEAN NOT NULL  -- whether any of its records in the batch was found
);
CREATE INDEX IF NOT EXISTS subject_batch_documents_document ON subject_batch_documents (document);
"""

# A batch's id -> the documents its run looked up (``document``, ``found``): ``BatchFiles.looked_up``.
LookedUp = Callable[[str], pa.Table]


_COLUMNS = (
    "batch_id",
    "group_id",
    "user_id",
    "origin",
    "query_type",
    "file_name",
    "purpose",
    "submitted_at",
    "started_at",
    "ended_at",
)
_SCHEMA = pa.schema(
    [(c, pa.timestamp("us")) if c.endswith("_at") else (c, pa.string()) for c in _COLUMNS],
)


def batch_origin(kind: str, category: str) -> str:
    """How a batch came: through the public API (its credits' category says so), a manual enrichment, or a file
    sent on the panel."""
    return "api" if category == Category.API.value else kind


class _Fold(RowFold):
    table, columns, schema = "subject_batches", _COLUMNS, _SCHEMA

    def __init__(self, looked_up: LookedUp) -> None:
        super().__init__()
        self._looked_up = looked_up
        self._ended: list[str] = []  # batches over in this page whose run started: their documents to index

    def change(self, row: dict[str, Any] | None, key: str, event: Any, at: datetime) -> dict[str, Any] | None:
        if isinstance(event, Batch.Submitted):
            return {
                "batch_id": key,
                "group_id": str(event.group_id),
                "user_id": str(event.user_id) if event.user_id else None,
                # Events stored before the category and the purpose were recorded load with their defaults.
                "origin": batch_origin(event.kind, getattr(event, "category", Category.BATCH.value)),
                "query_type": event.query_type,
                "file_name": event.file_name,
                "purpose": getattr(event, "purpose", None),
                "submitted_at": at,
                "started_at": None,
                "ended_at": None,
            }
        if row is None:
            return row
        if isinstance(event, Batch.Started):
            if row["started_at"] is None:  # a resume keeps the first start
                row["started_at"] = at
        elif row["ended_at"] is not None:
            pass
        elif isinstance(event, Batch.Canceled) and row["started_at"] is not None:
            pass  # its runner may still write a chunk: ended at its RunStopped, searched in its files till then
        else:  # an end after which nothing writes to the batch's files
            row["ended_at"] = at
            if row["started_at"] is not None:
                self._ended.append(key)
        return row

    def write(self, cur: duckdb.DuckDBPyConnection) -> None:
        super().write(cur)
        for batch_id in self._ended:
            index_looked_up(cur, batch_id, self._looked_up)


def index_looked_up(cur: duckdb.DuckDBPyConnection, batch_id: str, looked_up: LookedUp) -> None:
    """Add what the run of ``batch_id`` (over) looked up to ``subject_batch_documents``."""
    try:
        table = looked_up(batch_id)
    except (OSError, ValueError):  # Arrow's errors are either
        # Every read model would stop behind one unreadable batch: its documents are left out, loudly; a rebuild
        # once its files are mended indexes them.
        log.exception("batch %s: its looked-up documents could not be read for the data-subject report", batch_id)
        return
    if not table.num_rows:
        return
    name = "page_subject_documents"
    cur.register(name, table)
    try:
        cur.execute(
            # Each document once (a run's chunks name it per record), in the key's order: the index takes sorted
            # keys faster.
            f"""
            INSERT INTO subject_batch_documents
            SELECT ('1' || document)::BIGINT, ?, bool_or(found) FROM {name} GROUP BY 1 ORDER BY 1
            """,
            [batch_id],
        )
    finally:
        cur.unregister(name)


class SubjectBatchesReadModel(ReadModel):
    name = "subject_batches"
    tables = ("subject_batches", "subject_batch_documents")
    event_types = (
        Batch.Submitted,
        Batch.Started,
        Batch.Finished,
        Batch.Failed,
        Batch.Canceled,
        Batch.RunStopped,
    )
    # 2: the batches' documents (subject_batch_documents, ended_at); 3: a batch canceled while it ran ends at its
    # RunStopped.
    version = 3

    def __init__(self, looked_up: LookedUp) -> None:
        self._looked_up = looked_up

    def create(self, cur: duckdb.DuckDBPyConnection) -> None:
        cur.execute(SUBJECT_BATCHES_DDL)
        cur.execute(SUBJECT_DOCUMENTS_DDL)

    def fold(self) -> PageFold:
        return _Fold(self._looked_up)


# -- queries ---------------------------------------------------------------------------------

_KEYS = (
    "createdAt",
    "consultationId",
    "groupId",
    "groupName",
    "userId",
    "userName",
    "userEmail",
    "channel",
    "queryType",
    "status",
    "purpose",
)


def consultations_of_document(cur: duckdb.DuckDBPyConnection, document: str) -> list[dict[str, Any]]:
    """Who consulted ``document`` (digits only) in a unit lookup, from which group, when (UTC wall time), by which
    channel and query type, whether it was found, and the purpose its user gave (None: none given)."""
    rows = cur.execute(
        """
        SELECT c.created_at, c.consultation_id, c.group_id, g.name, c.user_id, u.name, u.email, c.channel,
               c.query_type, c.status, c.purpose
        FROM consultations c
        LEFT JOIN groups g ON g.group_id = c.group_id
        LEFT JOIN users u ON u.user_id = c.user_id
        WHERE c.document_key = ?
        ORDER BY c.position DESC
        """,
        [document_key(document)],
    ).fetchall()
    return [dict(zip(_KEYS, row, strict=True)) | {"batchId": None, "fileName": None, "origin": None} for row in rows]


def batches_of_document(cur: duckdb.DuckDBPyConnection, document: str) -> tuple[dict[str, bool], list[str]]:
    """The batches over whose run looked ``document`` (digits) up, each with whether it was found (the index); and
    the batches running, whose files only can say yet. One read: a batch that ends meanwhile is in one or the
    other."""
    rows = cur.execute(
        """
        SELECT batch_id, found FROM subject_batch_documents WHERE document = ?
        UNION ALL
        SELECT batch_id, NULL FROM subject_batches WHERE started_at IS NOT NULL AND ended_at IS NULL
        """,
        [document_key(document)],
    ).fetchall()
    return {str(b): bool(f) for b, f in rows if f is not None}, [str(b) for b, f in rows if f is None]


def batch_consultations_of_document(
    cur: duckdb.DuckDBPyConnection, document: str, looked_up: dict[str, bool]
) -> list[dict[str, Any]]:
    """The batches of ``looked_up`` (batch id: whether ``document`` was found) as consultations of ``document``,
    in the shape of ``consultations_of_document``'s, newest first: on channel ``batch``, by the batch's user for
    its group, when its run started, with the batch's purpose, its id and file name (``batchId``, ``fileName``)
    and ``origin``; ``consultationId`` is the id its kept result, if any, is held under."""
    if not looked_up:
        return []
    rows = cur.execute(
        """
        SELECT b.started_at, b.batch_id, b.group_id, g.name, b.user_id, u.name, u.email, 'batch',
               coalesce(b.query_type, ''), b.purpose, b.file_name, b.origin
        FROM subject_batches b
        LEFT JOIN groups g ON g.group_id = b.group_id
        LEFT JOIN users u ON u.user_id = b.user_id
        WHERE b.batch_id IN ? AND b.started_at IS NOT NULL
        ORDER BY b.started_at DESC, b.batch_id
        """,
        [sorted(looked_up)],
    ).fetchall()
    answered = []
    for at, batch_id, group_id, group, user_id, name, email, channel, query_type, purpose, file_name, origin in rows:
        status = "done" if looked_up[batch_id] else "not_found"
        consultation_id = str(kept_result_id(UUID(batch_id), document))
        values = (at, consultation_id, group_id, group, user_id, name, email, channel, query_type, status, purpose)
        answered.append(
            dict(zip(_KEYS, values, strict=True)) | {"batchId": batch_id, "fileName": file_name, "origin": origin}
        )
    return answered


def reader_of_report(cur: duckdb.DuckDBPyConnection, user_id: str) -> str:
    """Who ran a report, as its file names them: 'Name <e-mail>' (the id when the read model lacks the user)."""
    row = first_row(cur.execute("SELECT name, email FROM users WHERE user_id = ?", [user_id]))
    return f"{row[0]} <{row[1]}>" if row else user_id
