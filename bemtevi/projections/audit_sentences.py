"""An audit row as a person reads it, in pt-BR or en-US: one sentence per kind of event ("Maria enviou o lote
clientes.csv (1.200 registros) com o layout CPF básico"), the event's and the type's names, what changed with the
fields' labels, and values formatted (documents, counts, dates, enumerations translated).

The words live in ``audit_words.json``, the one source of them: the web app's screen reads a generated copy
(``npm run codegen``; a test checks the copy is this file) and says each row with the same rules as here (its
``show.ts``), so the export and the screen say the same sentence; both run the same cases to prove it.
A count reads with its plural form as i18next picks it (``_zero`` first, then CLDR's category: Portuguese counts
0 and 1 as 'one' and exact millions as 'many').
"""

from __future__ import annotations

import json
import re
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any, Literal

Language = Literal["pt-BR", "en-US"]
LANGUAGES: tuple[Language, ...] = ("pt-BR", "en-US")
WORDS: dict[str, dict[str, Any]] = json.loads(Path(__file__).with_name("audit_words.json").read_text(encoding="utf-8"))
MISSING = "—"

# The same sets as the web app's show.ts: which fields are enumerations, counts, documents, phones.
_ENUM_FIELDS = frozenset(
    {"role", "status", "group_type", "creditLimit", "queryType", "query_type", "channel", "export"}
)
_BY_FIELD = frozenset(
    {"component", "kind", "auth_method", "input_type", "delimiter", "document_type", "transport", "category"}
)
_LIST_FIELDS = frozenset({"enabled_query_types", "allowed_query_types", "query_types"})
# Lists whose change reads as what was added and removed (the screen's ``LIST_CHANGE_FIELDS``).
LIST_CHANGE_FIELDS = _LIST_FIELDS | {"enabled_layouts", "allowed_layouts"}
_ROW_FIELDS = frozenset({"entry_fields", "exit_fields"})
_NUMBER_FIELDS = frozenset(
    {
        "records",
        "valid_documents",
        "credits_reserved",
        "records_done",
        "found",
        "invalid",
        "charged",
        "amount",
        "credits",
        "consultations",
        "matches",
        "creditLimit",
        "per_second",
        "per_day",
    }
)
_DOCUMENT_FIELDS = frozenset({"document", "cpf", "cnpj"})
_PHONE_FIELDS = frozenset({"phone", "telephone", "cellphone"})
_DELIMITER_WORDS = {"\t": "tab", " ": "space"}
# A detail said with its count's words in a sentence: field -> the ``counts`` entry.
_COUNTED = {
    "records": "records",
    "records_done": "processed",
    "found": "found",
    "invalid": "invalid",
    "charged": "charged",
    "amount": "credits",
    "credits": "credits",
    "credits_reserved": "credits",
    "consultations": "consultations",
    "matches": "results",
}
# JavaScript's \w is ASCII: so are these.
_WORD = re.compile(r"[\w-]+", re.ASCII)
_INTEGER = re.compile(r"-?\d+", re.ASCII)
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(T[\d:.]+Z?)?", re.ASCII)
_ROW_TYPE = re.compile(r"\((\w+)(?=[,)])", re.ASCII)
_PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}", re.ASCII)


def language(lang: str | None) -> Language:
    """English for an English tag ("en", "en-GB"), Portuguese for anything else (the product's default)."""
    return "en-US" if (lang or "").strip().lower().startswith("en") else "pt-BR"


def _word(lang: Language, *path: str) -> str | None:
    node: Any = WORDS[lang]
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node if isinstance(node, str) else None


def number(value: int | Decimal, lang: Language) -> str:
    """Digits grouped as the language does: 1.200 / 1,200 (a decimal with the other mark, none when whole)."""
    text = f"{value:,}" if isinstance(value, int) or value != value.to_integral() else f"{int(value):,}"
    return text.translate(str.maketrans(",.", ".,")) if lang == "pt-BR" else text


def _bytes(n: int, lang: Language) -> str:
    """'512 B', '1,5 KB', '3 MB': one decimal at most, a half rounded up as the browser's Intl does."""
    if n < 1024:
        return f"{number(n, lang)} B"
    size, unit = (Decimal(n) / 1024, "KB") if n < 1024 * 1024 else (Decimal(n) / 1024 / 1024, "MB")
    return f"{number(size.quantize(Decimal('0.1'), ROUND_HALF_UP), lang)} {unit}"


def _document(value: str) -> str | None:
    if re.fullmatch(r"\d{11}", value, re.ASCII):
        return f"{value[:3]}.{value[3:6]}.{value[6:9]}-{value[9:]}"
    if re.fullmatch(r"\d{14}", value, re.ASCII):
        return f"{value[:2]}.{value[2:5]}.{value[5:8]}/{value[8:12]}-{value[12:]}"
    return None


def _phone(value: str) -> str:
    digits = re.sub(r"\D", "", value, flags=re.ASCII)
    if len(digits) == 11:
        return f"({digits[:2]}) {digits[2:7]}-{digits[7:]}"
    if len(digits) == 10:
        return f"({digits[:2]}) {digits[2:6]}-{digits[6:]}"
    return value


def _date(value: str, lang: Language) -> str:
    try:
        day = date.fromisoformat(value[:10])
    except ValueError:
        return "Invalid date"
    return day.strftime("%m/%d/%Y" if lang == "en-US" else "%d/%m/%Y")


def show_value(field: str, value: str | None, lang: Language) -> str:
    """A detail's or change's value as a person reads it (the screen's ``showAuditValue``)."""
    if value is None or value == "":
        return MISSING

    def word(path: tuple[str, ...], fallback: str) -> str:
        found = _word(lang, *path)
        return fallback if found is None else found

    if field in _DOCUMENT_FIELDS:
        return _document(value) or value
    if field in _PHONE_FIELDS:
        return _phone(value)
    if field in _NUMBER_FIELDS and _INTEGER.fullmatch(value):
        return number(int(value), lang)
    if field == "size" and value.isascii() and value.isdigit():
        return _bytes(int(value), lang)
    if _ISO_DATE.fullmatch(value):
        return _date(value, lang)
    if field in _BY_FIELD:
        key = _DELIMITER_WORDS.get(value, value) if field == "delimiter" else value
        return word(("byField", field, key), value) if _WORD.fullmatch(key) else value
    if field in _LIST_FIELDS:
        return ", ".join(word(("values", v), v) if _WORD.fullmatch(v) else v for v in value.split(", "))
    if field in _ROW_FIELDS:
        return _ROW_TYPE.sub(lambda m: "(" + word(("rowTypes", m.group(1)), m.group(1)), value)
    if (field in _ENUM_FIELDS or value in ("true", "false")) and _WORD.fullmatch(value):
        return word(("values", value), value)
    return value


def _plural(n: int, lang: Language) -> str:
    if n == 0:
        return "zero"
    if lang == "pt-BR":
        return "one" if n == 1 else "many" if n % 1_000_000 == 0 else "other"
    return "one" if n == 1 else "other"


def count(kind: str, n: int, lang: Language) -> str:
    """'1.200 registros', '1 record', 'nenhum crédito cobrado'."""
    n = abs(n)
    template = _word(lang, "counts", f"{kind}_{_plural(n, lang)}") or _word(lang, "counts", f"{kind}_other") or ""
    return template.replace("{{n}}", number(n, lang))


def target_text(row: dict[str, Any]) -> str:
    """What the row is about: a document formatted, else its name, else its id."""
    if not row.get("targetType"):
        return MISSING
    if row["targetType"] == "document" and row.get("targetName"):
        return _document(row["targetName"]) or row["targetName"]
    return row.get("targetName") or row.get("targetId") or MISSING


def target_type_name(kind: str | None, lang: Language) -> str:
    return (_word(lang, "targetTypes", kind) or kind) if kind else MISSING


def actor_text(row: dict[str, Any], lang: Language) -> str:
    return row.get("actorName") or row.get("actorEmail") or WORDS[lang]["system"]


def type_name(aggregate: str, lang: Language) -> str:
    return _word(lang, "types", aggregate) or aggregate


def event_name(aggregate: str, event: str, lang: Language) -> str:
    return _word(lang, "events", aggregate, event) or f"{type_name(aggregate, lang)} · {event}"


def _sentence_key(row: dict[str, Any], lang: Language) -> tuple[str, str]:
    """The kind's sentence, or its variant: a credit movement taken back (a negative amount) reads the other way,
    a user's change of their own password, details, photo or preferences reads 'their own'."""
    aggregate, event = row["aggregateType"], row["eventType"]
    if aggregate == "CreditAccount" and re.match(r"-\d", str((row.get("details") or {}).get("amount") or "")):
        return aggregate, event + "Back"
    own = row.get("targetType") == "user" and row.get("actorId") and row.get("actorId") == row.get("targetId")
    if own and _word(lang, "sentences", aggregate, event + "Self") is not None:
        return aggregate, event + "Self"
    return aggregate, event


def sentence(row: dict[str, Any], lang: Language) -> str:
    """The row as the screen says it: who, to what, with the event's details; a detail it lacks reads '—'."""
    aggregate, event = _sentence_key(row, lang)
    template = _word(lang, "sentences", aggregate, event)
    if template is None:  # none ships without one: a test checks every kind in both languages
        return event_name(row["aggregateType"], row["eventType"], lang)
    values = {"actor": actor_text(row, lang), "target": target_text(row)}
    for field, raw in (row.get("details") or {}).items():
        if field in ("actor", "target"):
            continue
        counted = _COUNTED.get(field)
        if counted and raw and _INTEGER.fullmatch(raw):
            values[field] = count(counted, int(raw), lang)
        elif field == "creditLimit" and raw and raw.isascii() and raw.isdigit():
            values[field] = count("credits", int(raw), lang)
        else:
            values[field] = show_value(field, raw, lang)
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), MISSING), template)


def field_name(aggregate: str, field: str, lang: Language) -> str:
    """A field's label; a few depend on the kind of event (a batch's 'kind' is not a layout's format)."""
    return _word(lang, "fieldsOf", aggregate, field) or _word(lang, "fields", field) or field


def changes_text(row: dict[str, Any], lang: Language) -> str:
    """'Label: before → after; …' as the screen lists them (an image says only that it changed)."""
    parts = []
    for change in row.get("changes") or []:
        name = field_name(row["aggregateType"], change["field"], lang)
        if change.get("kind") == "image":
            parts.append(f"{name}: {WORDS[lang]['imageChanged']}")
        elif change.get("before") is None:
            parts.append(f"{name}: {show_value(change['field'], change.get('after'), lang)}")
        elif (diff := _list_change(change, lang)) is not None:
            parts.append(f"{name}: {diff}")
        else:
            before, after = (show_value(change["field"], change.get(side), lang) for side in ("before", "after"))
            parts.append(f"{name}: {before} → {after}")
    return "; ".join(parts)


def _list_change(change: dict[str, Any], lang: Language) -> str | None:
    """A list's change as what it gained and lost ('+ a · − b'): thirty layouts before and after, one added, read
    as sixty names. None for another field, or a list cut short (its last name is not whole)."""
    field, before, after = change["field"], change.get("before") or "", change.get("after") or ""
    if field not in LIST_CHANGE_FIELDS or before.endswith("…") or after.endswith("…"):
        return None
    old, new = before.split(", "), after.split(", ")
    added, removed = [v for v in new if v and v not in old], [v for v in old if v and v not in new]
    if not added and not removed:
        return None
    pieces = [f"+ {show_value(field, ', '.join(added), lang)}"] if added else []
    pieces += [f"− {show_value(field, ', '.join(removed), lang)}"] if removed else []
    return " · ".join(pieces)
