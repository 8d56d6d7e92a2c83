"""``bemtevi import-cnpj``: the Receita Federal's open CNPJ files, in their published layout, become the
local supplier's company records."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from receita_files import ACME, ACME_CNPJ, estabelecimento, line, write_release, write_zip
from support import examples

from bemtevi.infra import receita, receita_layout
from bemtevi.infra.demo_data import COMPANIES_DDL, generate_demo_dataset
from bemtevi.infra.receita import import_cnpj
from bemtevi.infra.receita_layout import kind_of
from bemtevi.infra.suppliers.local import LocalDatasetSupplier, company_row_sql


class Stop(Exception):
    pass


def _docs_digest(dataset: Path) -> str:
    con = duckdb.connect(str(dataset), read_only=True)
    try:
        rows = con.execute(f"{company_row_sql()} ORDER BY cnpj").fetchall()
        companies = con.execute("SELECT count(*) FROM companies").fetchone()
    finally:
        con.close()
    return hashlib.sha256(repr((rows, companies)).encode()).hexdigest()


def test_a_lookup_answers_partners_cnaes_address_and_simples(tmp_path: Path) -> None:
    summary = import_cnpj(write_release(tmp_path / "2024-11", extra_companies=6), tmp_path / "dataset.duckdb")
    assert (summary.release, summary.companies, summary.rejected) == ("2024-11", 7, [])

    with LocalDatasetSupplier(tmp_path / "dataset.duckdb") as supplier:
        company = supplier.lookup_company("12.345.678/0001-95")
        assert supplier.lookup_company(f"{20000000:08d}000100") is not None
    assert company is not None
    assert company["company_name"] == "PADARIA E CONFEITARIA SÃO JOÃO LTDA"
    assert company["trade_name"] == "PADARIA SÃO JOÃO"
    assert (company["status"], company["opening_date"], company["size"]) == ("ATIVA", "2005-03-15", "EPP")
    assert company["legal_nature"] == "Sociedade Empresária Limitada"
    assert company["share_capital"] == 150000.0
    assert company["partners"] == [
        {"name": "JOSÉ DA CONCEIÇÃO", "document": "***123456**", "role": "Sócio-Administrador", "since": "2005-03-15"},
        {"name": "MARIA APARECIDA GONÇALVES", "document": "***654321**", "role": "Sócio", "since": "2010-08-01"},
    ]
    assert company["main_activity"]["code"] == "1091102"
    assert [a["code"] for a in company["secondary_activities"]] == ["4721102", "5611203"]
    assert company["secondary_activities"][0]["description"] == "Padaria e confeitaria com predominância de revenda"
    assert company["address"] == {
        "street": "RUA DAS ACÁCIAS", "number": "120", "complement": "LOJA 2", "neighborhood": "CENTRO",
        "city": "SAO PAULO", "state": "SP", "zip": "01310100",
    }  # fmt: skip
    assert company["phones"] == [
        {"number": "1132145678", "type": "landline"},
        {"number": "11987654321", "type": "mobile"},
    ]
    assert company["emails"] == ["contato@padariasaojoao.com.br"]
    assert company["simples"] == {
        "simples": True, "simples_since": "2007-07-01", "simples_until": None,
        "mei": False, "mei_since": None, "mei_until": None,
    }  # fmt: skip


def test_the_import_lands_in_a_demo_dataset_beside_its_records(tmp_path: Path) -> None:
    dataset = tmp_path / "dataset.duckdb"
    generate_demo_dataset(dataset, people=200, companies=40, seed=3)
    with LocalDatasetSupplier(dataset) as supplier:
        assert supplier.lookup_company(ACME_CNPJ) is None
    import_cnpj(write_release(tmp_path / "2024-11"), dataset)
    con = duckdb.connect(str(dataset), read_only=True)
    demo_cnpj = con.execute("SELECT cnpj FROM companies WHERE score IS NOT NULL LIMIT 1").fetchone()
    con.close()
    assert demo_cnpj is not None
    with LocalDatasetSupplier(dataset) as supplier:  # the lookup copy is newer than the import
        imported = supplier.lookup_company(ACME_CNPJ)
        demo = supplier.lookup_company(demo_cnpj[0])
    assert imported is not None and demo is not None
    assert list(imported) == list(demo)  # one record shape


def test_a_dataset_with_a_key_index_on_companies_keeps_its_records_in_a_table_without(tmp_path: Path) -> None:
    """Datasets written before had the CNPJ as primary key: an index held whole in memory as a release's
    millions of rows are written. The import moves their records to the table as it is made now."""
    dataset = tmp_path / "dataset.duckdb"
    generate_demo_dataset(dataset, people=200, companies=40, seed=3)
    con = duckdb.connect(str(dataset))
    con.execute("CREATE TABLE keyed AS SELECT * FROM companies")
    con.execute("DROP TABLE companies")
    con.execute(COMPANIES_DDL.replace("cnpj VARCHAR NOT NULL", "cnpj VARCHAR PRIMARY KEY"))
    con.execute("INSERT INTO companies BY NAME SELECT * FROM keyed")
    con.execute("DROP TABLE keyed")
    before = con.execute("SELECT cnpj, company_name, partners FROM companies ORDER BY cnpj").fetchall()
    con.close()

    import_cnpj(write_release(tmp_path / "2024-11"), dataset)

    con = duckdb.connect(str(dataset), read_only=True)
    keys = con.execute("SELECT count(*) FROM duckdb_constraints() WHERE constraint_type = 'PRIMARY KEY' "
                       "AND table_name = 'companies'").fetchone()  # fmt: skip
    kept = con.execute(
        "SELECT cnpj, company_name, partners FROM companies WHERE cnpj <> ? ORDER BY cnpj", [ACME_CNPJ]
    ).fetchall()
    con.close()
    assert keys == (0,)
    assert kept == before
    with LocalDatasetSupplier(dataset) as supplier:
        assert supplier.lookup_company(ACME_CNPJ) is not None


def test_a_stopped_import_goes_on_from_where_it_was(tmp_path: Path) -> None:
    release = write_release(tmp_path / "2024-11", extra_companies=4)
    dataset = tmp_path / "dataset.duckdb"
    seen: list[str] = []

    def stop_in_the_third_file(member: str) -> None:
        seen.append(member)
        if len(seen) == 3:
            raise Stop  # the third member's rows are read, not committed: a process killed mid-file

    with pytest.raises(Stop):
        import_cnpj(release, dataset, before_commit=stop_in_the_third_file)
    con = duckdb.connect(str(dataset), read_only=True)
    staged = con.execute("SELECT count(*) FROM rf_members").fetchone()
    con.close()
    assert staged == (2,)
    assert receita.staging_dir(dataset).is_dir()
    # the stopped file and the next one, extracted beside it, are not left behind
    assert not list(receita.staging_dir(dataset).rglob("*.csv"))

    resumed: list[str] = []
    summary = import_cnpj(release, dataset, progress=lambda text: resumed.append(text.split(": ")[0]))
    assert summary.members_skipped == 2
    assert resumed[0] == seen[2]  # the stopped file is read again, whole
    assert seen[:2] == [m for m in seen[:2] if m not in resumed]
    assert not receita.staging_dir(dataset).exists()  # the staged files go with the release's commit
    fresh = tmp_path / "fresh.duckdb"
    import_cnpj(release, fresh)
    assert _docs_digest(dataset) == _docs_digest(fresh)


def test_the_same_release_twice_changes_nothing(tmp_path: Path) -> None:
    release = write_release(tmp_path / "2024-11", extra_companies=4)
    dataset = tmp_path / "dataset.duckdb"
    import_cnpj(release, dataset)
    before = _docs_digest(dataset)
    again = import_cnpj(release, dataset)
    assert again.already_imported and again.rows == 0
    assert _docs_digest(dataset) == before


def test_a_new_release_replaces_the_records_it_has(tmp_path: Path) -> None:
    dataset = tmp_path / "dataset.duckdb"
    import_cnpj(write_release(tmp_path / "2024-11"), dataset)
    december = write_release(tmp_path / "2024-12")
    write_zip(december, "Estabelecimentos0.zip", "K3241.K03200Y0.D41210.ESTABELE",
              [estabelecimento(ACME, situacao_cadastral="08", logradouro="NOVA")])  # fmt: skip
    import_cnpj(december, dataset)
    with LocalDatasetSupplier(dataset) as supplier:
        company = supplier.lookup_company(ACME_CNPJ)
    assert company is not None
    assert (company["status"], company["address"]["street"]) == ("BAIXADA", "RUA NOVA")
    con = duckdb.connect(str(dataset), read_only=True)
    assert con.execute("SELECT count(*) FROM companies WHERE cnpj = ?", [ACME_CNPJ]).fetchone() == (1,)
    con.close()


def test_a_malformed_line_is_reported_with_its_file_and_line_and_skipped(tmp_path: Path) -> None:
    release = write_release(tmp_path / "2024-11", extra_companies=2)
    good = estabelecimento("30000000", dv="00")
    write_zip(release, "Estabelecimentos1.zip", "K3241.K03200Y1.D41109.ESTABELE", [
        estabelecimento("20000001", dv="00"),
        b'"30000001";"0001";"00";"1";"LINHA QUEBRADA"\n',  # too few fields
        good,
    ])  # fmt: skip
    summary = import_cnpj(release, tmp_path / "dataset.duckdb")
    assert [(r.zip, r.member, r.line) for r in summary.rejected] == [
        ("Estabelecimentos1.zip", "K3241.K03200Y1.D41109.ESTABELE", 2)
    ]
    with LocalDatasetSupplier(tmp_path / "dataset.duckdb") as supplier:
        assert supplier.lookup_company("30000000000100") is not None  # the lines after it are read
        assert supplier.lookup_company("30000001000100") is None


def test_an_establishment_whose_cnpj_is_not_14_digits_gives_no_record(tmp_path: Path) -> None:
    release = write_release(tmp_path / "2024-11", extra_companies=2)
    write_zip(release, "Estabelecimentos1.zip", "K3241.K03200Y1.D41109.ESTABELE", [
        estabelecimento("30000000", dv="00"),
        estabelecimento("30000001", ordem="001", dv="00"),  # a digit short
        estabelecimento("3000002", dv="00"),
    ])  # fmt: skip
    import_cnpj(release, tmp_path / "dataset.duckdb")
    con = duckdb.connect(str(tmp_path / "dataset.duckdb"), read_only=True)
    cnpjs = {r[0] for r in con.execute("SELECT cnpj FROM companies WHERE cnpj LIKE '300%'").fetchall()}
    con.close()
    assert cnpjs == {"30000000000100"}


def test_secondary_activities_are_named_from_a_cnae_table_of_the_published_size(tmp_path: Path) -> None:
    release = write_release(tmp_path / "2024-11")
    table = [(f"{1000000 + i * 7919 % 8999999:07d}", f"Atividade {i} de comércio e serviços") for i in range(1358)]
    repeated = table[700][0]
    write_zip(release, "Cnaes.zip", "F.K03200$Z.D41109.CNAECSV", [*table, [repeated, "Lida depois: não vale"]])
    names = dict(table)
    chosen = {
        f"{30000000 + i:08d}": [table[i * 97 % 1358][0], table[i * 31 % 1358][0], repeated, "9999999"][: 1 + i % 4]
        for i in range(40)
    }
    write_zip(release, "Estabelecimentos1.zip", "K3241.K03200Y1.D41109.ESTABELE", [
        estabelecimento(basico, dv="00", cnae_fiscal_secundaria=",".join(codes)) for basico, codes in chosen.items()
    ])  # fmt: skip
    import_cnpj(release, tmp_path / "dataset.duckdb")
    con = duckdb.connect(str(tmp_path / "dataset.duckdb"), read_only=True)
    built = dict(con.execute("SELECT cnpj, secondary_activities FROM companies WHERE cnpj LIKE '300%'").fetchall())
    con.close()
    assert built == {
        f"{basico}000100": [{"code": code, "description": names.get(code)} for code in codes]
        for basico, codes in chosen.items()
    }
    with LocalDatasetSupplier(tmp_path / "dataset.duckdb") as supplier:
        company = supplier.lookup_company("30000003000100")
    assert company is not None
    assert company["secondary_activities"][2] == {"code": repeated, "description": names[repeated]}
    assert company["secondary_activities"][3] == {"code": "9999999", "description": None}


def test_files_are_told_apart_by_their_published_names() -> None:
    assert kind_of("Estabelecimentos9.zip") == "estabelecimentos"
    assert kind_of("Socios0.zip") == "socios"
    assert kind_of("Simples.zip") == "simples"
    assert kind_of("Qualificacoes.zip") == "qualificacoes"
    assert kind_of("LAYOUT_DADOS_ABERTOS_CNPJ.pdf") is None
    assert line(["A", 'B "C"']) == b'"A";"B ""C"""\n'


def test_a_release_built_in_slices_gives_the_same_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    release = write_release(tmp_path / "2024-11", extra_companies=9)
    import_cnpj(release, tmp_path / "whole.duckdb")
    monkeypatch.setattr(receita, "_SLICE_ROWS", 3)  # some four slices
    monkeypatch.setattr(receita, "_LINE_BYTES", 1)  # the staged files in many parts, each slice reads its own
    import_cnpj(release, tmp_path / "sliced.duckdb")
    assert _docs_digest(tmp_path / "sliced.duckdb") == _docs_digest(tmp_path / "whole.duckdb")
    monkeypatch.setattr(receita, "_PARTS", 2)  # more slices than the staged files have parts
    import_cnpj(release, tmp_path / "more_slices_than_parts.duckdb")
    assert _docs_digest(tmp_path / "more_slices_than_parts.duckdb") == _docs_digest(tmp_path / "whole.duckdb")


def test_an_import_stopped_while_building_the_records_goes_on_and_gives_them_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = write_release(tmp_path / "2024-11", extra_companies=9)
    monkeypatch.setattr(receita, "_SLICE_ROWS", 3)  # some four slices of the records
    dataset = tmp_path / "dataset.duckdb"
    built: list[str] = []

    def stop_in_the_second_slice(step: str) -> None:
        if step.startswith("records"):
            built.append(step)
            if len(built) == 2:
                raise Stop  # the second slice's records are written, not committed

    with pytest.raises(Stop):
        import_cnpj(release, dataset, before_commit=stop_in_the_second_slice)
    con = duckdb.connect(str(dataset), read_only=True)
    kept = con.execute("SELECT count(*) FROM companies").fetchone()
    con.close()
    assert kept is not None and 0 < kept[0] < 10  # the first slice stays

    steps: list[str] = []
    summary = import_cnpj(release, dataset, progress=steps.append)
    assert summary.members_loaded == 0 and summary.companies == 10
    assert built[0] not in steps and built[1] in steps  # the committed slice is not built again
    fresh = tmp_path / "fresh.duckdb"
    import_cnpj(release, fresh)
    assert _docs_digest(dataset) == _docs_digest(fresh)


def test_a_line_repeated_in_a_later_file_is_taken_once_as_first_read(tmp_path: Path) -> None:
    release = write_release(tmp_path / "2024-11", extra_companies=2)
    write_zip(release, "Estabelecimentos1.zip", "K3241.K03200Y1.D41109.ESTABELE", [
        estabelecimento("20000001", dv="00"), estabelecimento(ACME, logradouro="REPETIDA"),
    ])  # fmt: skip
    summary = import_cnpj(release, tmp_path / "dataset.duckdb")
    assert summary.companies == 3
    with LocalDatasetSupplier(tmp_path / "dataset.duckdb") as supplier:
        company = supplier.lookup_company(ACME_CNPJ)
    assert company is not None and company["address"]["street"] == "RUA DAS ACÁCIAS"


def test_a_member_read_in_pieces_gives_the_same_records_repeats_and_rejected_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Members are copied out in pieces of whole lines: the records, which of two lines of one key is kept, and
    the member's line number of a malformed line are those of the member read whole."""
    release = write_release(tmp_path / "2024-11", extra_companies=9)
    write_zip(release, "Estabelecimentos1.zip", "K3241.K03200Y1.D41109.ESTABELE", [
        estabelecimento("20000001", dv="00"),
        estabelecimento(ACME, logradouro="REPETIDA"),
        estabelecimento("30000000", dv="00", nome_fantasia='LOJA "NOVA";\nSEGUNDA LINHA'),
        b'"30000001";"0001";"00";"1";"LINHA QUEBRADA"\n',  # too few fields
        estabelecimento("30000002", dv="00"),
    ])  # fmt: skip
    whole = import_cnpj(release, tmp_path / "whole.duckdb")
    monkeypatch.setattr(receita_layout, "_COPY_CHUNK", 64)
    monkeypatch.setattr(receita_layout, "PIECE_BYTES", 300)  # a piece or two a line
    extract = receita_layout.extract
    counts: list[int] = []

    def counting(*args: Any) -> list[Path]:
        counts.append(len(copied := extract(*args)))
        return copied

    monkeypatch.setattr(receita_layout, "extract", counting)
    pieces = import_cnpj(release, tmp_path / "pieces.duckdb")
    assert max(counts) >= 3
    assert _docs_digest(tmp_path / "pieces.duckdb") == _docs_digest(tmp_path / "whole.duckdb")
    assert pieces.rows == whole.rows
    assert [(r.member, r.line) for r in pieces.rejected] == [(r.member, r.line) for r in whole.rejected]
    assert [r.line for r in whole.rejected] == [4]  # lines are counted as records: a field's line break is its own
    with LocalDatasetSupplier(tmp_path / "pieces.duckdb") as supplier:
        repeated = supplier.lookup_company(ACME_CNPJ)
        quoted = supplier.lookup_company("30000000000100")
    assert repeated is not None and repeated["address"]["street"] == "RUA DAS ACÁCIAS"
    assert quoted is not None and quoted["trade_name"] == 'LOJA "NOVA";\nSEGUNDA LINHA'


LATIN_1 = st.text(st.characters(codec="latin-1", exclude_characters="\x00"), max_size=30)


@settings(max_examples=examples(60), deadline=None)
@given(
    rows=st.lists(st.lists(LATIN_1, min_size=1, max_size=4), min_size=1, max_size=30),
    piece_bytes=st.integers(1, 400),
    read_bytes=st.integers(1, 200),
)
def test_pieces_are_whole_lines_of_the_member_in_order(
    tmp_path_factory: pytest.TempPathFactory, rows: list[list[str]], piece_bytes: int, read_bytes: int
) -> None:
    directory = tmp_path_factory.mktemp("pieces")
    member = b"".join(line(row) for row in rows)
    with zipfile.ZipFile(directory / "Socios0.zip", "w") as archive:
        archive.writestr("SOCIOCSV", member)
    with zipfile.ZipFile(directory / "Socios0.zip") as archive:
        info = archive.infolist()[0]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(receita_layout, "_COPY_CHUNK", read_bytes)
        patch.setattr(receita_layout, "PIECE_BYTES", piece_bytes)
        pieces = receita_layout.extract(directory / "Socios0.zip", info, directory / "member-0")
    texts = [piece.read_bytes() for piece in pieces]
    assert b"".join(texts) == member.decode("latin-1").encode()
    lines = [line(row).decode("latin-1").encode() for row in rows]
    for text in texts:
        # each piece is a run of whole lines (a field's own line breaks stay inside it)
        taken = 0
        while taken < len(text):
            taken += len(lines.pop(0))
        assert taken == len(text)
    assert not lines
