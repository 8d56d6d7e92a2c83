"""What a batch looked up (the data-subject report's batch consultations) reads the same from its run's chunks and,
once the batch is deleted, from the file its deletion keeps: each valid document once, found when any of its
records was; an invalid one never."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from bemtevi.infra.batches.looked_up import batches_that_looked_up, keep_looked_up

DOCUMENTS = ["52998224725", "11144477735", "11222333000181", "39053344705"]

record = st.tuples(st.sampled_from(DOCUMENTS), st.booleans(), st.booleans())  # (document, valid, found)


def _write_chunks(work_dir: Path, chunks: list[list[tuple[str, bool, bool]]]) -> None:
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


@settings(max_examples=examples(60), deadline=None)
@given(chunks=st.lists(st.lists(record, max_size=6), max_size=4))
def test_the_chunks_and_the_kept_file_answer_alike(chunks: list[list[tuple[str, bool, bool]]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        work, kept = root / "b1" / "work", root / "looked-up" / "b1.arrow"
        _write_chunks(work, chunks)
        expected: dict[str, bool] = {}
        for document, valid, found in (r for c in chunks for r in c):
            if valid:
                expected[document] = expected.get(document, False) or found

        def answers() -> dict[str, bool]:
            looked = {d: batches_that_looked_up([("b1", work, kept)], d) for d in DOCUMENTS}
            return {d: a["b1"] for d, a in looked.items() if a}

        assert answers() == expected
        keep_looked_up(work, kept)  # the deletion: kept apart, then the batch's folder removed
        shutil.rmtree(root / "b1")
        assert kept.exists() == bool(chunks)  # a batch that never ran keeps nothing
        assert answers() == expected
