"""The data-subject report finds a document's batches through the read side's index of the batches that are over
(``subject_batch_documents``) and the files of the batches still running: the same batches, each with the same
found-or-not, as searching every batch's files, the deleted ones' kept files among them."""

from __future__ import annotations

import shutil
import tempfile
from datetime import datetime
from pathlib import Path

from batch_chunks import DOCUMENTS, record, write_chunks
from hypothesis import example, given, settings
from hypothesis import strategies as st
from support import examples

from bemtevi.infra.batches.looked_up import batches_that_looked_up, keep_looked_up, looked_up_documents
from bemtevi.projections.consultations import document_key
from bemtevi.projections.data_subject import SubjectBatchesReadModel, batches_of_document, index_looked_up
from bemtevi.projections.store import ReadStore

# A batch: its run's chunks, and whether it is over (then maybe deleted) or still running.
batch = st.tuples(st.lists(st.lists(record, max_size=5), max_size=3), st.sampled_from(["running", "over", "deleted"]))


@settings(max_examples=examples(40), deadline=None)
@given(batches=st.lists(batch, max_size=5))
def test_the_index_and_the_running_batches_files_answer_as_a_search_of_every_batchs_files(
    batches: list[tuple[list[list[tuple[str, bool, bool]]], str]],
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)

        def files(batch_id: str) -> tuple[Path, Path]:
            return root / batch_id / "work", root / "looked-up" / f"{batch_id}.arrow"

        ids = [f"b{i}" for i in range(len(batches))]
        for batch_id, (chunks, _) in zip(ids, batches, strict=True):
            write_chunks(files(batch_id)[0], chunks)
        searched = {d: batches_that_looked_up(((b, *files(b)) for b in ids), d) for d in DOCUMENTS}

        store = ReadStore()
        try:
            cur = store.cursor()
            SubjectBatchesReadModel(lambda b: looked_up_documents(*files(b))).create(cur)
            at = datetime(2026, 11, 28, 12)
            for batch_id, (_, state) in zip(ids, batches, strict=True):
                ended = None if state == "running" else at
                cur.execute(
                    "INSERT INTO subject_batches VALUES (?, 'g', 'u', 'batch', 'cpf-complete', 'f.csv', NULL, ?, ?, ?)",
                    [batch_id, at, at, ended],
                )
                if state == "deleted":  # as ``BatchCommands.delete``: kept apart, then the batch's folder removed
                    keep_looked_up(*files(batch_id))
                    shutil.rmtree(root / batch_id)
                if ended:  # what the fold does at the batch's end (a deleted batch's: read again by a rebuild)
                    index_looked_up(cur, batch_id, lambda b: looked_up_documents(*files(b)))
            for document in DOCUMENTS:
                indexed, running = batches_of_document(cur, document)
                assert set(running) == {b for b, (_, s) in zip(ids, batches, strict=True) if s == "running"}
                found = indexed | batches_that_looked_up(((b, *files(b)) for b in running), document)
                assert found == searched[document]
        finally:
            store.close()


digits = st.sampled_from([11, 14]).flatmap(lambda n: st.text("0123456789", min_size=n, max_size=n))


@settings(max_examples=examples(200), deadline=None)
@given(a=digits, b=digits)
@example(a="00052998224725", b="52998224725")
def test_a_documents_key_names_it_alone_and_the_projector_computes_the_same(a: str, b: str) -> None:
    # A CNPJ whose leading zeros would make its number a CPF's keeps its own key.
    assert (document_key(a) == document_key(b)) == (a == b)
    store = ReadStore()
    try:
        [(key,)] = store.cursor().execute("SELECT TRY_CAST('1' || ? AS BIGINT)", [a]).fetchall()
        assert key == document_key(a)  # as ``consultations.document_key`` is written
    finally:
        store.close()
