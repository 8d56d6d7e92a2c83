"""The vendor's JSON (pt-BR keys, see the simulator) → the unified record the local dataset gives and the web
app's result view shows.

A vendor's answer is untrusted input: every value either maps to the unified record's type or is dropped
(None, or left out of its list) with a reason, collected in ``dropped`` as (field of the record, reason)
and logged by the caller. Absent values (missing, null, "") are not drops. Nothing here raises but
``VendorError`` (bad_answer) for an answer with no data section.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from bemtevi.infra.suppliers.vendor_error import VendorError

Dropped = list[tuple[str, str]]

# Numbers a JavaScript client reads exactly (the web app shows them).
_NUMBER_MAX = 2**53


def _at(within: str, name: str) -> str:
    """A value's place in the record (made only when it is dropped: most answers drop nothing)."""
    return f"{within}.{name}" if within else name


def _date(value: Any, name: str, dropped: Dropped, within: str = "") -> str | None:
    """DD/MM/YYYY or YYYY-MM-DD → YYYY-MM-DD; anything else dropped."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        dropped.append((_at(within, name), "not a date"))
        return None
    try:
        if "/" in value:
            day, month, year = value.split("/")
            return dt.date(int(year), int(month), int(day)).isoformat()
        return dt.date.fromisoformat(value[:10]).isoformat()
    except (ValueError, OverflowError):  # a year of 20 digits overflows the C int dt.date takes
        dropped.append((_at(within, name), "not a valid date"))
        return None


def _age(birth: str | None, today: dt.date) -> int | None:
    if birth is None:
        return None
    born = dt.date.fromisoformat(birth)
    return today.year - born.year - ((today.month, today.day) < (born.month, born.day))


def _text(value: Any, name: str, dropped: Dropped, within: str = "") -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
    elif isinstance(value, int | float) and not isinstance(value, bool):
        text = str(value)
    else:
        dropped.append((_at(within, name), "not text"))
        return None
    if "\x00" in text:  # PostgreSQL's text and JSONB refuse it where the result is kept
        dropped.append((_at(within, name), "contains a NUL character"))
        return None
    return text or None


def _number(value: Any, name: str, dropped: Dropped, within: str = "") -> int | float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        dropped.append((_at(within, name), "not a number"))
        return None
    if not -_NUMBER_MAX <= value <= _NUMBER_MAX:  # orjson gives finite floats only
        dropped.append((_at(within, name), "out of range"))
        return None
    return value


def _count(value: Any, name: str, dropped: Dropped, within: str = "") -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _NUMBER_MAX:
        dropped.append((_at(within, name), "not a count"))
        return None
    return value


def _object(value: Any, name: str, dropped: Dropped, within: str = "") -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        dropped.append((_at(within, name), "not an object"))
        return None
    return value


def _items(value: Any, where: str, dropped: Dropped) -> list[tuple[str, dict[str, Any]]]:
    """The objects of a list, each with its place in the record."""
    if value is None:
        return []
    if not isinstance(value, list):
        dropped.append((where, "not a list"))
        return []
    items = []
    for i, item in enumerate(value):
        if isinstance(item, dict):
            items.append((f"{where}[{i}]", item))
        else:
            dropped.append((f"{where}[{i}]", "not an object"))
    return items


def _address(a: dict[str, Any], where: str, dropped: Dropped) -> dict[str, Any]:
    return {
        "street": _text(a.get("logradouro"), "street", dropped, where),
        "number": _text(a.get("numero"), "number", dropped, where),
        "complement": _text(a.get("complemento"), "complement", dropped, where),
        "neighborhood": _text(a.get("bairro"), "neighborhood", dropped, where),
        "city": _text(a.get("cidade"), "city", dropped, where),
        "state": _text(a.get("uf"), "state", dropped, where),
        "zip": _text(a.get("cep"), "zip", dropped, where),
    }


# The vendor's phone kinds as the unified record names them (others are kept as written).
_PHONE_TYPES = {"celular": "mobile", "móvel": "mobile", "fixo": "landline", "residencial": "landline"}


def _phones(value: Any, dropped: Dropped) -> list[dict[str, Any]]:
    phones = []
    for where, p in _items(value, "phones", dropped):
        kind = _text(p.get("tipo"), "type", dropped, where)
        phones.append(
            {
                "number": _text(p.get("numero"), "number", dropped, where),
                "type": _PHONE_TYPES.get(kind.casefold(), kind) if kind else None,
            }
        )
    return phones


def _protests(value: Any, dropped: Dropped) -> list[dict[str, Any]]:
    return [
        {
            "date": _date(p.get("data"), "date", dropped, where),
            "amount": _number(p.get("valor"), "amount", dropped, where),
            "notary": _text(p.get("cartorio"), "notary", dropped, where),
            "city": _text(p.get("cidade"), "city", dropped, where),
            "state": _text(p.get("uf"), "state", dropped, where),
        }
        for where, p in _items(value, "protests", dropped)
    ]


def _emails(value: Any, dropped: Dropped) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        dropped.append(("emails", "not a list"))
        return []
    emails = []
    for i, e in enumerate(value):
        if not isinstance(e, str):
            dropped.append((f"emails[{i}]", "not text"))
            continue
        email = e.strip()
        if "\x00" in email:
            dropped.append((f"emails[{i}]", "contains a NUL character"))
        elif email:
            emails.append(email)
    return emails


def map_person(cpf: str, p: dict[str, Any], dropped: Dropped, today: dt.date | None = None) -> dict[str, Any]:
    today = today or dt.date.today()
    birth = _date(p.get("nascimento"), "birth_date", dropped)
    if birth is not None and birth > today.isoformat():
        dropped.append(("birth_date", "in the future"))
        birth = None
    death = _object(p.get("obito"), "death", dropped)
    return {
        "kind": "person",
        "cpf": cpf,
        "name": _text(p.get("nome"), "name", dropped),
        "gender": _text(p.get("sexo"), "gender", dropped),
        "birth_date": birth,
        "age": _age(birth, today),
        "sign": _text(p.get("signo"), "sign", dropped),
        "mother": _text(p.get("mae"), "mother", dropped),
        "father": _text(p.get("pai"), "father", dropped),
        "marital_status": _text(p.get("estado_civil"), "marital_status", dropped),
        "education": _text(p.get("escolaridade"), "education", dropped),
        "profession": _text(p.get("profissao"), "profession", dropped),
        "income": _number(p.get("renda"), "income", dropped),
        "social_class": _text(p.get("classe_social"), "social_class", dropped),
        "score": _number(p.get("score"), "score", dropped),
        "phones": _phones(p.get("telefones"), dropped),
        "emails": _emails(p.get("emails"), dropped),
        "addresses": [_address(a, where, dropped) for where, a in _items(p.get("enderecos"), "addresses", dropped)],
        "societies": [
            {
                "cnpj": _text(s.get("cnpj"), "cnpj", dropped, where) or "",
                "company_name": _text(s.get("razao_social"), "company_name", dropped, where),
                "role": _text(s.get("cargo"), "role", dropped, where),
                "since": _date(s.get("desde"), "since", dropped, where),
            }
            for where, s in _items(p.get("sociedades"), "societies", dropped)
        ],
        "protests": _protests(p.get("protestos"), dropped),
        "financial_pendings": [
            {
                "creditor": _text(f.get("credor"), "creditor", dropped, where),
                "amount": _number(f.get("valor"), "amount", dropped, where),
                "date": _date(f.get("data"), "date", dropped, where),
            }
            for where, f in _items(p.get("pendencias"), "financial_pendings", dropped)
        ],
        "check_inquiries": _count(p.get("ccf"), "check_inquiries", dropped),
        "death": (
            {
                "date": _date(death.get("data"), "death.date", dropped),
                "book": _text(death.get("livro"), "death.book", dropped),
                "sheet": _text(death.get("folha"), "death.sheet", dropped),
                "registry_office": _text(death.get("cartorio"), "death.registry_office", dropped),
            }
            if death is not None
            else None
        ),
    }


def map_company(cnpj: str, c: dict[str, Any], dropped: Dropped) -> dict[str, Any]:
    activity = _object(c.get("cnae"), "main_activity", dropped)
    address = _object(c.get("endereco"), "address", dropped)
    return {
        "kind": "company",
        "cnpj": cnpj,
        "company_name": _text(c.get("razao_social"), "company_name", dropped),
        "trade_name": _text(c.get("nome_fantasia"), "trade_name", dropped),
        "opening_date": _date(c.get("abertura"), "opening_date", dropped),
        "status": _text(c.get("situacao"), "status", dropped),
        "legal_nature": _text(c.get("natureza_juridica"), "legal_nature", dropped),
        "main_activity": (
            {
                "code": _text(activity.get("codigo"), "main_activity.code", dropped),
                "description": _text(activity.get("descricao"), "main_activity.description", dropped),
            }
            if activity is not None
            else None
        ),
        "size": _text(c.get("porte"), "size", dropped),
        "share_capital": _number(c.get("capital_social"), "share_capital", dropped),
        "address": _address(address, "address", dropped) if address is not None else None,
        "phones": _phones(c.get("telefones"), dropped),
        "emails": _emails(c.get("emails"), dropped),
        "partners": [
            {
                "name": _text(s.get("nome"), "name", dropped, where),
                "document": _text(s.get("documento"), "document", dropped, where),
                "role": _text(s.get("qualificacao"), "role", dropped, where),
                "since": _date(s.get("desde"), "since", dropped, where),
            }
            for where, s in _items(c.get("socios"), "partners", dropped)
        ],
        "score": _number(c.get("score"), "score", dropped),
        "protests": _protests(c.get("protestos"), dropped),
    }


def map_record(
    kind: Literal["cpf", "cnpj"], number: str, answer: Any, vendor: str, dropped: Dropped | None = None
) -> dict[str, Any] | None:
    """The unified record from a vendor's answer; None for "not found"; ``VendorError`` (bad_answer)
    for JSON that is not the vendor's shape. The values dropped are added to ``dropped``."""
    if not isinstance(answer, dict):
        raise VendorError(vendor, "bad_answer", "not an object")
    if answer.get("status") == "nao_encontrado":
        return None
    section = answer.get("pessoa" if kind == "cpf" else "empresa")
    if not isinstance(section, dict):
        raise VendorError(vendor, "bad_answer", "no data section")
    if dropped is None:
        dropped = []
    if kind == "cpf":
        return map_person(number, section, dropped)
    return map_company(number, section, dropped)
