"""The ready layouts the platform ships: CPF and CNPJ; basic, contact, address and full; CSV, TXT (fixed
width) and XLSX. They are seeded at the first start as ``Layout`` aggregates of the platform (ids derived
from their keys, so two starts seed them once) and a customer copies one into its own layouts in one
action: the copy is an independent layout of the customer's group, edited without touching the original.

Every exit row names a field of the exit-field catalogue (``enrichment_fields``) in its pt-BR name, with
the type and format the field picker would give it (dates ``dd/mm/aaaa``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal
from uuid import UUID

from bemtevi.domain.enrichment_fields import FIELDS, FIXED_SIZES, ExitField, default_format, exit_field, row_type
from bemtevi.domain.layouts import LayoutRow, LayoutSpec, ready_layout_id

DocumentKind = Literal["cpf", "cnpj"]
Extension = Literal["csv", "txt", "xlsx"]


_ADDRESS = ("street", "number", "complement", "neighborhood", "city", "state", "zip")
_CONTACT = ("phone1", "phone2", "phone3", "email1", "email2", "email3")
_SETS: dict[tuple[DocumentKind, str], tuple[str, ...]] = {
    ("cpf", "basic"): ("name", "birth_date", "age", "gender", "mother"),
    ("cpf", "contact"): ("name", *_CONTACT),
    ("cpf", "address"): ("name", *_ADDRESS),
    ("cnpj", "basic"): ("company_name", "trade_name", "status", "opening_date", "legal_nature", "activity", "size"),
    ("cnpj", "contact"): ("company_name", "trade_name", *_CONTACT),
    ("cnpj", "address"): ("company_name", "trade_name", *_ADDRESS),
}
SETS = ("basic", "contact", "address", "full")
_SET_TITLES = {
    "basic": ("básico", "basic"),
    "contact": ("contatos", "contact"),
    "address": ("endereço", "address"),
    "full": ("completo", "full"),
}
_SET_FILES = {"basic": "basico", "contact": "contatos", "address": "endereco", "full": "completo"}
_SKIPPED_IN_FULL = frozenset({"email", "document", "found", "name"})


def _full(kind: DocumentKind) -> tuple[str, ...]:
    """Every field that applies to the document's kind (the person's or the company's), once."""
    side = "person" if kind == "cpf" else "company"
    first = ("name",) if kind == "cpf" else ("company_name", "trade_name")
    rest = tuple(
        f.key
        for f in FIELDS
        if f.key not in _SKIPPED_IN_FULL
        and f.key not in first
        and f.kind != "record_status"
        and getattr(f, side) is not None
    )
    return first + rest


@dataclass(frozen=True, slots=True)
class ReadyLayout:
    key: str  # e.g. "cpf-basic-csv"
    kind: DocumentKind
    set: str
    extension: Extension
    title_pt: str
    title_en: str
    spec: LayoutSpec

    @property
    def id(self) -> UUID:
        return ready_layout_id(self.key)


def _catalogue(key: str) -> ExitField:
    field = next(f for f in FIELDS if f.key == key)
    assert exit_field(field.names[0]) is field
    return field


def _build(kind: DocumentKind, set_name: str, extension: Extension) -> ReadyLayout:
    keys = _full(kind) if set_name == "full" else _SETS[(kind, set_name)]
    keys = (*keys, "record_status")
    fixed = extension == "txt"
    document = kind.upper()
    doc_size = 11 if kind == "cpf" else 14
    rows = [LayoutRow(document, "document", 1, "", doc_size if fixed else None, "entry")]
    rows.append(LayoutRow(document, "document", 1, "", doc_size if fixed else None, "exit"))
    for order, key in enumerate(keys, start=2):
        field = _catalogue(key)
        rows.append(
            LayoutRow(
                field.names[0],
                row_type(field),
                order,
                default_format(field),
                FIXED_SIZES[key] if fixed else None,
                "exit",
            )
        )
    pt, en = _SET_TITLES[set_name]
    base = f"{kind}_{_SET_FILES[set_name]}"
    spec = LayoutSpec(
        file_name=f"{base}_{extension}",
        final_file_name=f"{base}_retorno",
        return_extension=extension,
        accepted_extension=extension,
        kind="fixed" if fixed else "delimited",
        delimiter="" if fixed else ";",
        first_line=not fixed,
        table="pessoas" if kind == "cpf" else "empresas",
        rows=tuple(rows),
    ).validated()
    label = extension.upper()
    return ReadyLayout(
        key=f"{kind}-{set_name}-{extension}",
        kind=kind,
        set=set_name,
        extension=extension,
        title_pt=f"{document} {pt} ({label})",
        title_en=f"{document} {en} ({label})",
        spec=spec,
    )


READY_LAYOUTS: tuple[ReadyLayout, ...] = tuple(
    _build(kind, set_name, extension)
    for kind in ("cpf", "cnpj")
    for set_name in SETS
    for extension in ("csv", "txt", "xlsx")
)
BY_KEY: dict[str, ReadyLayout] = {r.key: r for r in READY_LAYOUTS}
