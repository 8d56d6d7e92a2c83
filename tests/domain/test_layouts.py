"""The layouts' line codec: what a batch reads and writes, one line at a time."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bemtevi.domain.errors import InvalidLayout, RequiredField
from bemtevi.domain.layouts import FIELD_TYPES, LayoutRow, LayoutSpec, format_line, parse_line, preview


def spec(kind: str, rows: list[LayoutRow], delimiter: str = ";") -> LayoutSpec:
    return LayoutSpec(
        file_name="clientes",
        final_file_name="clientes_enriquecidos",
        return_extension="csv",
        accepted_extension="txt",
        kind=kind,  # type: ignore[arg-type]
        delimiter=delimiter,
        first_line=True,
        table="pessoas",
        rows=tuple(rows),
    ).validated()


def row(name: str, order: int, size: int | None = None, type_: str = "text", direction: str = "entry") -> LayoutRow:
    return LayoutRow(name, type_, order, "", size, direction)  # type: ignore[arg-type]


@st.composite
def fixed_layouts_and_lines(draw: st.DrawFn) -> tuple[LayoutSpec, str]:
    count = draw(st.integers(1, 6))
    sizes = draw(st.lists(st.integers(1, 12), min_size=count, max_size=count))
    types = draw(st.lists(st.sampled_from(FIELD_TYPES), min_size=count, max_size=count))
    rows = [row(f"f{i}", i + 1, sizes[i], types[i]) for i in range(count)]
    # Entry rows given in any order: the order field decides.
    layout = spec("fixed", draw(st.permutations(rows)))
    text = st.text(st.characters(codec="latin-1", exclude_characters="\r\n"), min_size=sum(sizes), max_size=sum(sizes))
    return layout, draw(text)


@given(fixed_layouts_and_lines())
def test_a_fixed_width_line_round_trips(case: tuple[LayoutSpec, str]) -> None:
    layout, line = case
    assert format_line(layout, parse_line(layout, line, "entry"), "entry") == line


@st.composite
def delimited_layouts_and_values(draw: st.DrawFn) -> tuple[LayoutSpec, list[str]]:
    count = draw(st.integers(1, 6))
    delimiter = draw(st.sampled_from([";", ",", "|", "\t"]))
    layout = spec("delimited", [row(f"f{i}", i + 1) for i in range(count)], delimiter)
    # Values may hold the delimiter and quotes (written quoted), never a line break.
    values = draw(
        st.lists(
            st.text(st.characters(codec="utf-8", exclude_characters="\r\n\x00"), max_size=10),
            min_size=count,
            max_size=count,
        )
    )
    return layout, values


@given(delimited_layouts_and_values())
def test_a_delimited_line_round_trips(case: tuple[LayoutSpec, list[str]]) -> None:
    layout, values = case
    by_name = {f"f{i}": v for i, v in enumerate(values)}
    line = format_line(layout, by_name, "entry")
    assert "\n" not in line
    assert parse_line(layout, line, "entry") == by_name
    assert format_line(layout, parse_line(layout, line, "entry"), "entry") == line


def test_a_fixed_width_line_keeps_a_cpfs_leading_zeros_and_drops_texts_padding() -> None:
    layout = spec("fixed", [row("cpf", 1, 11, "document"), row("nome", 2, 10)])
    assert parse_line(layout, "01234567890Ana       ") == {"cpf": "01234567890", "nome": "Ana"}
    assert format_line(layout, {"cpf": "1234", "nome": "Bartolomeu Dias"}, "entry") == "00000001234Bartolomeu"


def test_the_preview_writes_the_entry_values_by_the_exit_rows() -> None:
    layout = spec(
        "delimited",
        [
            row("cpf", 1, type_="document"),
            row("nome", 2),
            row("nome", 1, direction="exit"),
            row("cpf", 2, direction="exit"),
            row("telefone", 3, direction="exit"),
        ],
    )
    shown = preview(layout, "52998224725;Ana Souza")
    assert shown.values == {"cpf": "52998224725", "nome": "Ana Souza"}
    assert shown.exit_line == "Ana Souza;52998224725;"


@pytest.mark.parametrize(
    ("change", "error", "field"),
    [
        ({"file_name": " "}, RequiredField, "fileName"),
        ({"final_file_name": ""}, RequiredField, "finalFileName"),
        ({"return_extension": ""}, RequiredField, "returnExtension"),
        ({"accepted_extension": "pdf"}, InvalidLayout, "acceptedExtension"),
        ({"table": ""}, RequiredField, "table"),
        ({"delimiter": ""}, RequiredField, "delimiter"),
        ({"rows": ()}, InvalidLayout, "rows"),
        ({"rows": (row("a", 1), row("b", 1))}, InvalidLayout, "rows"),
        ({"rows": (row("a", 0),)}, InvalidLayout, "rows.0.order"),
        ({"kind": "fixed", "rows": (row("a", 1),)}, RequiredField, "rows.0.size"),
    ],
)
def test_a_layout_refuses_what_the_specification_requires(change: dict, error: type, field: str) -> None:
    fields = {
        "file_name": "clientes",
        "final_file_name": "retorno",
        "return_extension": "csv",
        "accepted_extension": "csv",
        "kind": "delimited",
        "delimiter": ";",
        "first_line": False,
        "table": "pessoas",
        "rows": (row("cpf", 1),),
        **change,
    }
    with pytest.raises(error) as refused:
        LayoutSpec(**fields).validated()
    assert refused.value.field == field
