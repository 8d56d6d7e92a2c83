"""Which documents a batch looked up, read back from its run for the data-subject report (LGPD art. 18).

A batch records no event per record (``domain.batches``): the documents it looked up are in its run's chunk files
(``pipeline``: ``__doc``, ``__valid``, ``__found`` per record), written before each ``Progressed`` and kept until
the batch is deleted. Deleting a batch removes its files (one canceled while running, once its runner's
``RunStopped`` says it writes no more), not the fact that its documents were consulted: before they go,
``keep_looked_up`` writes the valid documents (each once, whether found) to a small file of their own that
the deletion leaves (``BatchFiles.looked_up_file``). ``looked_up_documents`` reads either whole, once a batch is
over (canceled while running: at ``RunStopped``), for the report's index (``projections.data_subject``);
``batches_that_looked_up`` searches the files of the few batches still running, whose documents the index does not
hold yet.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

DOCUMENT = "document"
FOUND = "found"
_SCHEMA = pa.schema([(DOCUMENT, pa.string()), (FOUND, pa.bool_())])


def _chunks(work_dir: Path) -> list[Path]:
    return sorted(work_dir.glob("chunk-*.arrow"))


def _read(path: Path, columns: list[str]) -> pa.Table:
    with pa.memory_map(str(path)) as source:
        return pa.ipc.open_file(source).read_all().select(columns)


def _looked_up_in_chunk(path: Path) -> pa.Table:
    """The chunk's valid documents and whether each was found (an invalid document was never looked up)."""
    table = _read(path, ["__doc", "__valid", "__found"])
    valid = table.filter(pc.fill_null(table.column("__valid"), False))
    found = pc.fill_null(valid.column("__found"), False)
    return pa.table({DOCUMENT: valid.column("__doc"), FOUND: found}, schema=_SCHEMA)


def _distinct(table: pa.Table) -> pa.Table:
    """Each document once, found when any of its records was (sorted by document)."""
    grouped = table.group_by(DOCUMENT).aggregate([(FOUND, "any")]).rename_columns([DOCUMENT, FOUND])
    return grouped.sort_by(DOCUMENT).cast(_SCHEMA)


def _looked_up_in_chunks(work_dir: Path) -> pa.Table:
    """The valid documents of every chunk, each record's."""
    chunks = _chunks(work_dir)
    if not chunks:
        return _SCHEMA.empty_table()
    return pa.concat_tables([_looked_up_in_chunk(c) for c in chunks])


def keep_looked_up(work_dir: Path, target: Path) -> None:
    """Write the documents the run in ``work_dir`` looked up to ``target`` (atomically), unless there is nothing
    to keep (a batch canceled before it ran) or ``target`` is written already."""
    if not _chunks(work_dir) or target.exists():
        return
    table = _distinct(_looked_up_in_chunks(work_dir))
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    with pa.OSFile(str(partial), "wb") as sink, pa.ipc.new_file(sink, _SCHEMA) as writer:
        writer.write_table(table)
    os.replace(partial, target)


def looked_up_documents(work_dir: Path, kept: Path) -> pa.Table:
    """The documents the run in ``work_dir`` looked up with whether each was found: from the kept file when the
    batch's deletion wrote it (each once), else from the run's chunks (once per record; empty: the batch never
    ran). A document is found when any of its rows is; the reader makes them one (an SQL ``GROUP BY`` takes a
    fraction of Arrow's grouping and sorting of a large run's text).

    A deletion writes the kept file before it removes the folder, so chunks that vanish while read mean the kept
    file is there: it answers for the whole run then."""
    if kept.exists():
        return _read(kept, [DOCUMENT, FOUND])
    try:
        table = _looked_up_in_chunks(work_dir)
    except (OSError, ValueError):  # Arrow's errors are either
        if not kept.exists():
            raise
        return _read(kept, [DOCUMENT, FOUND])
    return _read(kept, [DOCUMENT, FOUND]) if kept.exists() else table  # kept: deleted while read


def _any_found(found: pa.ChunkedArray) -> bool:
    return bool(pc.any(pc.fill_null(found, False)).as_py())


def _found_in_chunk(path: Path, document: str) -> bool | None:
    """None: ``document`` is not among the chunk's valid documents; else whether any of its records was found.
    The document is matched first: the other columns are read for its records only."""
    table = _read(path, ["__doc", "__valid", "__found"])
    hits = table.filter(pc.equal(table.column("__doc"), document))
    hits = hits.filter(pc.fill_null(hits.column("__valid"), False))
    return _any_found(hits.column("__found")) if hits.num_rows else None


def _found_in_kept(path: Path, document: str) -> bool | None:
    table = _read(path, [DOCUMENT, FOUND])
    hits = table.filter(pc.equal(table.column(DOCUMENT), document))
    return _any_found(hits.column(FOUND)) if hits.num_rows else None


def batches_that_looked_up(folders: Iterable[tuple[str, Path, Path]], document: str) -> dict[str, bool]:
    """Of the batches ``(batch_id, work_dir, looked_up_file)``, those whose run looked ``document`` up, each with
    whether it was found: from the kept file of a deleted batch, else from the run's chunks (a batch still running
    shows the records done so far)."""
    looked: dict[str, bool] = {}
    for batch_id, work_dir, kept in folders:
        if kept.exists():
            found = _found_in_kept(kept, document)
        else:
            seen = [a for a in (_found_in_chunk(c, document) for c in _chunks(work_dir)) if a is not None]
            found = any(seen) if seen else None
        if found is not None:
            looked[batch_id] = found
    return looked
