"""What a batch looked up (the data-subject report's batch consultations) reads the same from its run's chunks and,
once the batch is deleted, from the file its deletion keeps: each valid document once, found when any of its
records was; an invalid one never."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from batch_chunks import DOCUMENTS, record, write_chunks
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from bemtevi.infra.batches.looked_up import batches_that_looked_up, keep_looked_up


@settings(max_examples=examples(60), deadline=None)
@given(chunks=st.lists(st.lists(record, max_size=6), max_size=4))
def test_the_chunks_and_the_kept_file_answer_alike(chunks: list[list[tuple[str, bool, bool]]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        work, kept = root / "b1" / "work", root / "looked-up" / "b1.arrow"
        write_chunks(work, chunks)
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
