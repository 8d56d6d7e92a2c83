"""A batch run's chunk files as the pipeline writes them, for the tests of what a batch looked up."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
from hypothesis import strategies as st

DOCUMENTS = ["52998224725", "11144477735", "11222333000181", "39053344705"]

record = st.tuples(st.sampled_from(DOCUMENTS), st.booleans(), st.booleans())  # (document, valid, found)


def write_chunks(work_dir: Path, chunks: list[list[tuple[str, bool, bool]]]) -> None:
    """Chunk files as the pipeline writes them (``chunk-NNNNNN.arrow``: the record's number, its document's digits,
    whether valid and found, then the exit columns)."""
    work_dir.mkdir(parents=True)
    row = 0
    for index, records in enumerate(chunks):
        table = pa.table(
            {
                "__row": pa.array(range(row + 1, row + 1 + len(records)), pa.int64()),
                "__doc": pa.array([d for d, _, _ in records], pa.string()),
                "__valid": pa.array([v for _, v, _ in records], pa.bool_()),
                "__found": pa.array([f for _, _, f in records], pa.bool_()),
                "x0": pa.array(["NOME" for _ in records], pa.string()),
            }
        )
        row += len(records)
        with (
            pa.OSFile(str(work_dir / f"chunk-{index:06d}.arrow"), "wb") as sink,
            pa.ipc.new_file(sink, table.schema) as writer,
        ):
            writer.write_table(table)
