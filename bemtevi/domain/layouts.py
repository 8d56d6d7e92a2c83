"""Layouts: how a customer's file is read and how its return file is written (sections 3 and 5).

A layout names its file (file name, final file name), the extension accepted on upload and the
one returned, whether fields are delimited (with their delimiter) or fixed-width, whether the
first line holds the column names, the table its data comes from, and its rows: each a field with
its type, order, format, size and direction (entry: read from the customer's file; exit: written to
the return file). ``Layout`` is the aggregate (uuid4 id); ``LayoutSpec`` the validated value.

The line codec is pure: ``parse_line`` reads one line by a direction's rows and ``format_line``
writes one; the batch work (issue 18) reads and writes files through them, and the layout form's
live preview shows a sample line parsed by the entry rows and written by the exit rows.
For a fixed-width line, text is left-aligned and padded with spaces (a read drops the padding),
numbers and documents right-aligned and padded with zeros (a read keeps them, zeros included: a
CPF's leading zeros are part of it). A delimited field that holds the delimiter, a quote or a line
break is quoted, with quotes doubled (RFC 4180).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import uuid
from dataclasses import dataclass
from typing import Any, Literal

from eventsourcing.domain import event

from bemtevi.domain.audit import AuditedAggregate
from bemtevi.domain.enrichment_fields import date_pattern, exit_field, exit_value, fold
from bemtevi.domain.errors import InvalidLayout, RequiredField

LayoutKind = Literal["delimited", "fixed"]
Direction = Literal["entry", "exit"]
FIELD_TYPES = ("text", "number", "document", "date", "phone", "email")
EXTENSIONS = ("txt", "csv", "xlsx")
RIGHT_ALIGNED = frozenset({"number", "document"})
MAX_ROWS = 200
MAX_SIZE = 1000


@dataclass(frozen=True, slots=True)
class LayoutRow:
    name: str
    type: str
    order: int
    format: str
    size: int | None
    direction: Direction

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "order": self.order,
            "format": self.format,
            "size": self.size,
            "direction": self.direction,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LayoutRow:
        return cls(d["name"], d["type"], int(d["order"]), d.get("format") or "", d.get("size"), d["direction"])


@dataclass(frozen=True, slots=True)
class LayoutSpec:
    file_name: str
    final_file_name: str
    return_extension: str
    accepted_extension: str
    kind: LayoutKind
    delimiter: str
    first_line: bool
    table: str
    rows: tuple[LayoutRow, ...]

    def validated(self) -> LayoutSpec:
        """The spec trimmed, or the first broken rule with its field (the spec's required fields,
        then what the codec needs of the rows)."""
        texts: dict[str, str] = {}
        for field_name, key in (
            ("file_name", "fileName"),
            ("final_file_name", "finalFileName"),
            ("return_extension", "returnExtension"),
            ("accepted_extension", "acceptedExtension"),
            ("table", "table"),
        ):
            text = getattr(self, field_name).strip()
            if not text:
                raise RequiredField(field=key)
            texts[field_name] = text
        for field_name, key in (("return_extension", "returnExtension"), ("accepted_extension", "acceptedExtension")):
            texts[field_name] = texts[field_name].lower().lstrip(".")
            if texts[field_name] not in EXTENSIONS:
                raise InvalidLayout("Only TXT, CSV and XLSX files are accepted", field=key)
        codec = self.codec_validated()
        return LayoutSpec(
            file_name=texts["file_name"],
            final_file_name=texts["final_file_name"],
            return_extension=texts["return_extension"],
            accepted_extension=texts["accepted_extension"],
            kind=codec.kind,
            delimiter=codec.delimiter,
            first_line=self.first_line,
            table=texts["table"],
            rows=codec.rows,
        )

    def codec_validated(self) -> LayoutSpec:
        """The spec with what reading and writing a line needs checked (kind, delimiter, rows), or the
        first broken rule: the form's live preview works before the file is named."""
        if self.kind not in ("delimited", "fixed"):
            raise InvalidLayout("A layout is delimited or fixed-width", field="kind")
        delimiter = self.delimiter
        if self.kind == "delimited":
            if not delimiter:
                raise RequiredField(field="delimiter")
            if len(delimiter) != 1 or delimiter in '"\r\n':
                raise InvalidLayout("The delimiter is one character (not a quote or a line break)", field="delimiter")
        else:
            delimiter = ""
        rows = tuple(_validated_row(r, i, self.kind) for i, r in enumerate(self.rows))
        if not rows:
            raise InvalidLayout("A layout needs at least one row", field="rows")
        if len(rows) > MAX_ROWS:
            raise InvalidLayout(f"A layout has at most {MAX_ROWS} rows", field="rows")
        for direction in ("entry", "exit"):
            mine = [r for r in rows if r.direction == direction]
            orders = [r.order for r in mine]
            if len(set(orders)) != len(orders):
                raise InvalidLayout(f"Two {direction} rows have the same order", field="rows")
            names = [r.name for r in mine]
            if len(set(names)) != len(names):
                raise InvalidLayout(f"Two {direction} rows have the same name", field="rows")
        if not any(r.direction == "entry" for r in rows):
            raise InvalidLayout("A layout needs at least one entry row", field="rows")
        return LayoutSpec(
            file_name=self.file_name,
            final_file_name=self.final_file_name,
            return_extension=self.return_extension,
            accepted_extension=self.accepted_extension,
            kind=self.kind,
            delimiter=delimiter,
            first_line=self.first_line,
            table=self.table,
            rows=rows,
        )

    def rows_of(self, direction: Direction) -> list[LayoutRow]:
        return sorted((r for r in self.rows if r.direction == direction), key=lambda r: r.order)

    def as_dict(self) -> dict[str, Any]:
        return {
            "file_name": self.file_name,
            "final_file_name": self.final_file_name,
            "return_extension": self.return_extension,
            "accepted_extension": self.accepted_extension,
            "kind": self.kind,
            "delimiter": self.delimiter,
            "first_line": self.first_line,
            "table": self.table,
            "rows": [r.as_dict() for r in self.rows],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LayoutSpec:
        return cls(
            file_name=d["file_name"],
            final_file_name=d["final_file_name"],
            return_extension=d["return_extension"],
            accepted_extension=d["accepted_extension"],
            kind=d["kind"],
            delimiter=d["delimiter"],
            first_line=bool(d["first_line"]),
            table=d["table"],
            rows=tuple(LayoutRow.from_dict(r) for r in d["rows"]),
        )


def _validated_row(row: LayoutRow, index: int, kind: LayoutKind) -> LayoutRow:
    where = f"rows.{index}"
    name = row.name.strip()
    if not name:
        raise RequiredField(field=f"{where}.name")
    if row.type not in FIELD_TYPES:
        raise InvalidLayout("Unknown field type", field=f"{where}.type")
    if row.direction not in ("entry", "exit"):
        raise InvalidLayout("A row is an entry or an exit", field=f"{where}.direction")
    if row.order < 1:
        raise InvalidLayout("The entry must be greater than zero", field=f"{where}.order")
    size = row.size
    if kind == "fixed" and size is None:
        raise RequiredField(field=f"{where}.size")
    if size is not None and not 1 <= size <= MAX_SIZE:
        raise InvalidLayout(f"A size is between 1 and {MAX_SIZE}", field=f"{where}.size")
    if row.type == "date" and date_pattern(row.format) is None:
        raise InvalidLayout("Unknown date format (use dd/mm/aaaa, aaaa-mm-dd...)", field=f"{where}.format")
    return LayoutRow(name, row.type, row.order, row.format.strip(), size, row.direction)


# -- the line codec ----------------------------------------------------------------------------


def line_width(spec: LayoutSpec, direction: Direction) -> int:
    return sum(r.size or 0 for r in spec.rows_of(direction))


def parse_line(spec: LayoutSpec, line: str, direction: Direction = "entry") -> dict[str, str]:
    """The values of one line (without its line break) by the direction's rows, by field name.

    Fixed-width: each row takes its size from where the previous ended (a short line gives empty
    values past its end). Delimited: fields in order (missing ones empty, extra ones ignored)."""
    rows = spec.rows_of(direction)
    if spec.kind == "fixed":
        values: dict[str, str] = {}
        at = 0
        for row in rows:
            size = row.size or 0
            piece = line[at : at + size]
            at += size
            values[row.name] = piece if row.type in RIGHT_ALIGNED else piece.rstrip(" ")
        return values
    fields = next(csv.reader([line], delimiter=spec.delimiter, quotechar='"', strict=False), [])
    return {row.name: (fields[i] if i < len(fields) else "") for i, row in enumerate(rows)}


def format_line(spec: LayoutSpec, values: dict[str, str], direction: Direction = "exit") -> str:
    """One line (without its line break) of the direction's rows, each from ``values`` by name
    (missing: empty). Fixed-width values longer than their size are cut to it."""
    rows = spec.rows_of(direction)
    if spec.kind == "fixed":
        parts = []
        for row in rows:
            size = row.size or 0
            value = values.get(row.name, "")[:size]
            parts.append(value.rjust(size, "0") if row.type in RIGHT_ALIGNED else value.ljust(size, " "))
        return "".join(parts)
    out = io.StringIO()
    # The line terminator's characters are what csv quotes as line breaks: "\r\n" (then cut off)
    # quotes a value holding either, as the docstring above says.
    writer = csv.writer(out, delimiter=spec.delimiter, quotechar='"', lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow([values.get(row.name, "") for row in rows])
    return out.getvalue()[:-2]


def header_line(spec: LayoutSpec, direction: Direction = "exit") -> str:
    """The first line of a file whose layout says its first line names the columns."""
    names = {r.name: r.name for r in spec.rows}
    return format_line(spec, names, direction)


@dataclass(frozen=True, slots=True)
class Preview:
    values: dict[str, str]
    exit_line: str


def preview(spec: LayoutSpec, sample: str) -> Preview:
    """The form's live preview: a sample line read by the entry rows, written by the exit rows
    (an exit row takes the entry value of the same name)."""
    values = parse_line(spec, sample, "entry")
    return Preview(values, format_line(spec, values, "exit"))


_DOCUMENT_NAMES = frozenset({"CPF", "CNPJ", "CPF_CNPJ", "DOCUMENTO", "DOCUMENT", "DOC"})


@dataclass(frozen=True, slots=True)
class RecordPreview:
    values: tuple[tuple[str, str], ...]  # (exit row name, value) in the exit rows' order
    exit_line: str
    unknown: tuple[str, ...]  # exit rows that neither name a catalogue field nor pass an entry through


def record_preview(spec: LayoutSpec, record: dict[str, Any] | None, document: str, today: dt.date) -> RecordPreview:
    """One record written by the exit rows as a batch writes it: each row the catalogue's field of its
    name (a date in the row's format), or the entry of the same name passed through (the document's
    entry row holds ``document``; any other entry is empty here)."""
    entries = {fold(r.name) for r in spec.rows_of("entry")}
    values: dict[str, str] = {}
    unknown: list[str] = []
    for row in spec.rows_of("exit"):
        folded = fold(row.name)
        field = exit_field(row.name)
        if folded in entries:
            values[row.name] = document if folded in _DOCUMENT_NAMES or _is_document_entry(spec, folded) else ""
        elif field is not None:
            values[row.name] = exit_value(field, record, document, today, row.format)
        else:
            values[row.name] = ""
            unknown.append(row.name)
    return RecordPreview(tuple(values.items()), format_line(spec, values, "exit"), tuple(unknown))


def _is_document_entry(spec: LayoutSpec, folded: str) -> bool:
    rows = spec.rows_of("entry")
    documents = [r for r in rows if r.type == "document"] or [r for r in rows if fold(r.name) in _DOCUMENT_NAMES]
    chosen = documents[0] if documents else rows[0]
    return fold(chosen.name) == folded


_READY_NAMESPACE = uuid.UUID("6b1f3c2e-4a0d-4f43-9b6e-2f1d7d0c9a37")


def ready_layout_id(key: str) -> uuid.UUID:
    """A ready layout's id, from its key: two first starts seed it once."""
    return uuid.uuid5(_READY_NAMESPACE, f"ready-layout:{key}")


# -- the aggregate -------------------------------------------------------------------------------


class Layout(AuditedAggregate):
    class Created(AuditedAggregate.Created):
        spec: dict[str, Any]
        group_id: str | None
        ready: str | None
        copied_from: str | None

    @event(Created)
    def __init__(
        self,
        spec: dict[str, Any],
        group_id: str | None = None,
        ready: str | None = None,
        copied_from: str | None = None,
    ) -> None:
        self.spec = dict(spec)
        self.active = True
        # None: a layout of the platform's catalogue (the super-admin's); else the group whose own it is.
        self.group_id = group_id
        # The ready layout's key (a shipped layout, seeded at the first start), or None.
        self.ready = ready
        # The layout this one was copied from (a ready layout copied by a customer), or None.
        self.copied_from = copied_from

    class Edited(AuditedAggregate.Event):
        spec: dict[str, Any]

    @event(Edited)
    def edit(self, spec: dict[str, Any]) -> None:
        self.spec = dict(spec)

    class Activated(AuditedAggregate.Event):
        pass

    @event(Activated)
    def activate(self) -> None:
        self.active = True

    class Inactivated(AuditedAggregate.Event):
        pass

    @event(Inactivated)
    def inactivate(self) -> None:
        self.active = False

    @staticmethod
    def create_id(
        spec: dict[str, Any], group_id: str | None = None, ready: str | None = None, copied_from: str | None = None
    ) -> uuid.UUID:
        return ready_layout_id(ready) if ready else uuid.uuid4()

    def value(self) -> LayoutSpec:
        return LayoutSpec.from_dict(self.spec)

    def owner(self) -> str | None:
        return getattr(self, "group_id", None)
