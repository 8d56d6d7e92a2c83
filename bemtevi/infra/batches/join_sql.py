"""A batch's join, as SQL: which entry row holds the document, what fills each exit row (``exit_plan``), and the
DuckDB SQL that normalises and validates the documents and joins them with the local dataset (``joined_sql``).

The join's key is written ``p.cpf = CASE WHEN valid THEN digits END``: with the validity as a separate ``AND``
DuckDB plans a nested-loop join (minutes on 5M people) instead of a hash join."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from bemtevi.domain.enrichment_fields import (
    FOUND,
    INVALID_DOCUMENT,
    NOT_FOUND,
    ExitField,
    date_pattern,
    exit_field,
    fold,
)
from bemtevi.domain.errors import InvalidLayout
from bemtevi.domain.layouts import LayoutRow, LayoutSpec
from bemtevi.infra.batches.readers import ROW

_DOCUMENT_NAMES = frozenset({"CPF", "CNPJ", "CPF_CNPJ", "DOCUMENTO", "DOCUMENT", "DOC"})
_CPF_W1 = (10, 9, 8, 7, 6, 5, 4, 3, 2)
_CPF_W2 = (11, 10, 9, 8, 7, 6, 5, 4, 3, 2)
_CNPJ_W1 = (5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2)
_CNPJ_W2 = (6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2)


# -- the plan: which entry row holds the document, what fills each exit row ------------------------


def document_row(spec: LayoutSpec) -> LayoutRow:
    """The entry row holding the CPF/CNPJ: the first of type ``document``, else one named like a
    document, else the first entry row."""
    rows = spec.rows_of("entry")
    for row in rows:
        if row.type == "document":
            return row
    for row in rows:
        if fold(row.name) in _DOCUMENT_NAMES:
            return row
    if not rows:
        raise InvalidLayout("A layout needs at least one entry row", field="rows")
    return rows[0]


@dataclass(frozen=True, slots=True)
class ExitPlan:
    """Per exit row: the entry row's name it passes through, or the catalogue's field, or neither."""

    rows: tuple[LayoutRow, ...]
    entries: tuple[str | None, ...]
    fields: tuple[ExitField | None, ...]

    @property
    def unknown(self) -> tuple[str, ...]:
        return tuple(
            r.name for r, e, f in zip(self.rows, self.entries, self.fields, strict=True) if e is None and f is None
        )


def exit_plan(spec: LayoutSpec) -> ExitPlan:
    entry_names = {fold(r.name): r.name for r in spec.rows_of("entry")}
    rows = tuple(spec.rows_of("exit"))
    entries = tuple(entry_names.get(fold(r.name)) for r in rows)
    fields = tuple(None if e is not None else exit_field(r.name) for r, e in zip(rows, entries, strict=True))
    return ExitPlan(rows, entries, fields)


# -- SQL -----------------------------------------------------------------------------------------


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _digit(i: int) -> str:
    return f"(ascii(substr(__doc, {i}, 1)) - 48)"


def _weighted(weights: tuple[int, ...]) -> str:
    return " + ".join(f"{w} * {_digit(i + 1)}" for i, w in enumerate(weights))


def cpf_valid_sql() -> str:
    """Whether ``__doc`` (11 ASCII digits) is a valid CPF, as ``bemtevi.domain.documents`` says."""
    return (
        f"(__doc <> repeat(substr(__doc, 1, 1), 11)"
        f" AND (({_weighted(_CPF_W1)}) * 10 % 11 % 10) = {_digit(10)}"
        f" AND (({_weighted(_CPF_W2)}) * 10 % 11 % 10) = {_digit(11)})"
    )


def cnpj_valid_sql() -> str:
    def check(weights: tuple[int, ...], at: int) -> str:
        r = f"(({_weighted(weights)}) % 11)"
        return f"(CASE WHEN {r} < 2 THEN 0 ELSE 11 - {r} END) = {_digit(at)}"

    return f"(__doc <> repeat(substr(__doc, 1, 1), 14) AND {check(_CNPJ_W1, 13)} AND {check(_CNPJ_W2, 14)})"


def normalised_sql(source: str, document: str, after_row: int = 0) -> str:
    """The source's records with ``__doc`` (the document's digits) and ``__valid``."""
    where = f"WHERE {ROW} > {int(after_row)}" if after_row else ""
    return f"""
        SELECT *, CASE length(__doc) WHEN 11 THEN {cpf_valid_sql()} WHEN 14 THEN {cnpj_valid_sql()} ELSE false END
                  AS __valid
        FROM (SELECT *, regexp_replace(coalesce({_ident(document)}, ''), '[^0-9]', '', 'g') AS __doc
              FROM {source} {where})
    """


def _path_sql(alias: str, path: tuple[str | int, ...]) -> str:
    out = alias
    for step in path:
        out += f"[{step + 1}]" if isinstance(step, int) else f".{_ident(step)}"
    return out


def _side_sql(
    field: ExitField, alias: str, path: tuple[str | int, ...] | None, today: dt.date, date_format: str
) -> str:
    if path is None:
        return "NULL"
    value = _path_sql(alias, path)
    if field.kind == "flag":
        return f"CASE WHEN {value} IS NOT NULL THEN 'S' ELSE 'N' END"
    if field.kind == "date":
        pattern = (date_pattern(date_format) or "%Y-%m-%d").replace("'", "''")
        return f"strftime({value}, '{pattern}')"
    if field.kind == "age":
        return f"CAST(date_sub('year', {value}, DATE '{today.isoformat()}') AS VARCHAR)"
    if field.kind == "money":
        return f"printf('%.2f', {value})"
    return f"CAST({value} AS VARCHAR)"


def field_sql(field: ExitField, today: dt.date, date_format: str = "") -> str:
    """The field's text for a joined record: ``p`` the person, ``c`` the company (NULL: not found); a
    date as the row's ``date_format`` says."""
    if field.kind == "document":
        return "n.__doc"
    if field.kind == "found":
        return "CASE WHEN p.cpf IS NOT NULL OR c.cnpj IS NOT NULL THEN 'S' ELSE 'N' END"
    if field.kind == "record_status":
        return (
            f"CASE WHEN NOT n.__valid THEN '{INVALID_DOCUMENT}'"
            f" WHEN p.cpf IS NOT NULL OR c.cnpj IS NOT NULL THEN '{FOUND}' ELSE '{NOT_FOUND}' END"
        )
    person = _side_sql(field, "p", field.person, today, date_format)
    company = _side_sql(field, "c", field.company, today, date_format)
    return f"coalesce(CASE WHEN p.cpf IS NOT NULL THEN {person} WHEN c.cnpj IS NOT NULL THEN {company} END, '')"


def joined_sql(spec: LayoutSpec, plan: ExitPlan, source: str, today: dt.date, after_row: int = 0) -> str:
    document = document_row(spec).name
    columns = []
    for i, (row, entry, field) in enumerate(zip(plan.rows, plan.entries, plan.fields, strict=True)):
        if entry is not None:
            expr = f"coalesce(n.{_ident(entry)}, '')"
        elif field is not None:
            expr = field_sql(field, today, row.format)
        else:
            expr = "''"
        columns.append(f"{expr} AS x{i}")
    select = ",\n".join(columns)
    return f"""
        SELECT n.{ROW} AS {ROW}, n.__valid, (p.cpf IS NOT NULL OR c.cnpj IS NOT NULL) AS __found, n.__doc
               {", " if columns else ""}{select}
        FROM ({normalised_sql(source, document, after_row)}) n
        LEFT JOIN ds.people p ON p.cpf = CASE WHEN n.__valid AND length(n.__doc) = 11 THEN n.__doc END
        LEFT JOIN ds.companies c ON c.cnpj = CASE WHEN n.__valid AND length(n.__doc) = 14 THEN n.__doc END
        ORDER BY n.{ROW}
    """
