"""The advanced query's index over the local dataset: a person is found however their name is typed (accents,
case, partial words), by phone however it is formatted; a company by its partners' names (the QSA), also of
the Receita Federal's import."""

from __future__ import annotations

from pathlib import Path

import duckdb
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from receita_files import ACME_CNPJ, write_release
from support import examples

from bemtevi.domain.advanced_query import AdvancedCriteria
from bemtevi.infra.demo_data import generate_demo_dataset
from bemtevi.infra.receita import import_cnpj
from bemtevi.infra.suppliers.search_index import SearchIndex

BOTH = ("cpf", "cnpj")
ACCENTS = str.maketrans("aeiouc", "áéíóúç")


def _people(dataset: Path) -> list[tuple[str, str, str, str]]:
    with duckdb.connect(str(dataset), read_only=True) as con:
        rows = con.execute(
            "SELECT cpf, name, addresses[1].city, phones[1].number FROM people WHERE len(phones) > 0 ORDER BY cpf"
            " LIMIT 200"
        ).fetchall()
    return [(str(a), str(b), str(c), str(d)) for a, b, c, d in rows]


def _documents(index: SearchIndex, raw: dict[str, str]) -> set[str]:
    matches, capped = index.search(AdvancedCriteria.parse(raw), BOTH)
    assert not capped
    return {m.document for m in matches}


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_person_is_found_by_any_typing_of_their_name_and_by_their_phone_however_written(
    dataset_path: Path, data: st.DataObject
) -> None:
    index = SearchIndex(dataset_path)
    cpf, name, city, phone = data.draw(st.sampled_from(_people(dataset_path)))
    words = name.split()
    # Partial words: the first and last name cut to 3 letters or more, in any case, with or without accents.
    first, last = (
        w[: data.draw(st.integers(min_value=min(3, len(w)), max_value=len(w)))] for w in (words[0], words[-1])
    )
    typed = f"{first} {last}"
    if data.draw(st.booleans()):
        typed = typed.upper()
    if data.draw(st.booleans()):
        typed = typed.lower().translate(ACCENTS)
    assert cpf in _documents(index, {"name": typed, "city": city.upper()})
    formatted = data.draw(st.sampled_from(["{p}", "({a}) {h}-{t}", "+55 {a} {h} {t}", "0{a} {h}{t}"]))
    written = formatted.format(p=phone, a=phone[:2], h=phone[2:-4], t=phone[-4:])
    assert cpf in _documents(index, {"telephone": written})


def test_a_mobile_is_found_as_a_cellphone_a_landline_is_not(dataset_path: Path) -> None:
    with duckdb.connect(str(dataset_path), read_only=True) as con:
        rows = con.execute("SELECT cpf, p.number, p.type FROM (SELECT cpf, unnest(phones) AS p FROM people)").fetchall()
    index = SearchIndex(dataset_path)
    mobile = next(r for r in rows if r[2] == "mobile")
    landline = next(r for r in rows if r[2] == "landline")
    assert mobile[0] in _documents(index, {"cellphone": mobile[1]})
    assert landline[0] not in _documents(index, {"cellphone": landline[1]})
    assert landline[0] in _documents(index, {"telephone": landline[1]})


def test_a_company_of_the_cnpj_import_is_found_by_a_partner_name(tmp_path: Path) -> None:
    dataset = tmp_path / "dataset.duckdb"
    generate_demo_dataset(dataset, people=50, companies=10, seed=3)
    import_cnpj(write_release(tmp_path / "2024-11", extra_companies=2), dataset)
    index = SearchIndex(dataset)
    assert ACME_CNPJ in _documents(index, {"name": "jose conceicao"})  # a partner: JOSÉ DA CONCEIÇÃO
    assert ACME_CNPJ in _documents(index, {"name": "Padaria São", "state": "sp"})
    assert ACME_CNPJ in _documents(index, {"telephone": "(11) 3214-5678"})
    assert ACME_CNPJ not in _documents(index, {"name": "jose conceicao", "state": "RJ"})


def test_the_index_is_rebuilt_when_the_dataset_is_newer(tmp_path: Path) -> None:
    dataset = tmp_path / "dataset.duckdb"
    generate_demo_dataset(dataset, people=50, companies=10, seed=3)
    assert ACME_CNPJ not in _documents(SearchIndex(dataset), {"name": "jose conceicao"})
    import_cnpj(write_release(tmp_path / "2024-11"), dataset)
    assert ACME_CNPJ in _documents(SearchIndex(dataset), {"name": "jose conceicao"})
