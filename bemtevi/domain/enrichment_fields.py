"""The exit fields a batch enrichment fills: names as customers write them in layouts, and where each
value comes from in the unified person / company record (the shape the ``local`` supplier and the
HTTP suppliers answer).

This catalogue is THE mapping: the batch pipeline turns each path into an SQL expression over the
dataset's ``people`` / ``companies`` columns (which are the unified record's fields), and
``exit_value`` follows the same path in a supplier's record (a document the dataset lacks). A test
compares the two on the dataset's rows.

Names are matched accent- and case-folded (``Endereço`` is ``ENDERECO``; spaces and hyphens are
underscores); pt-BR and English names both work. Values are text: dates as the row's format says
(``dd/mm/aaaa``, what the layout form's field picker fills in; an empty format: ``YYYY-MM-DD``, as layouts
written before the picker expect), money with
two decimals, flags ``S`` / ``N`` (``OBITO``: a death is registered; ``ENCONTRADO``: the document
was found). A record not found leaves its fields empty (``ENCONTRADO`` says ``N``).

``STATUS_REGISTRO`` (``RECORD_STATUS``) tells why a record's fields are what they are, one of
``RECORD_STATUSES``: ``ENCONTRADO`` (a source holds the document), ``NAO_ENCONTRADO`` (a valid CPF/CNPJ
no source holds) or ``DOCUMENTO_INVALIDO`` (not a valid CPF/CNPJ: empty, wrong length or check digits;
nothing was looked up or charged). ``ENCONTRADO`` alone says ``N`` for the last two alike. (Not
``STATUS``: that name is a company's registration status, ``SITUACAO``.)
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from dataclasses import dataclass
from typing import Any, Literal

from bemtevi.domain.documents import is_valid_cnpj, is_valid_cpf

ValueKind = Literal["text", "date", "money", "int", "age", "flag", "found", "document", "record_status"]
Path = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class ExitField:
    key: str
    names: tuple[str, ...]
    kind: ValueKind
    person: Path | None
    company: Path | None


def _f(key: str, names: str, kind: ValueKind, person: Path | None, company: Path | None = None) -> ExitField:
    return ExitField(key, tuple(names.split()), kind, person, company)


FIELDS: tuple[ExitField, ...] = (
    _f("name", "NOME NAME", "text", ("name",), ("company_name",)),
    _f("birth_date", "NASCIMENTO DATA_NASCIMENTO DT_NASCIMENTO BIRTH_DATE BIRTHDATE", "date", ("birth_date",)),
    _f("age", "IDADE AGE", "age", ("birth_date",)),
    _f("gender", "SEXO GENERO GENDER", "text", ("gender",)),
    _f("sign", "SIGNO SIGN", "text", ("sign",)),
    _f("mother", "MAE NOME_MAE MOTHER MOTHER_NAME", "text", ("mother",)),
    _f("father", "PAI NOME_PAI FATHER FATHER_NAME", "text", ("father",)),
    *(
        _f(
            f"phone{i}",
            f"TELEFONE{i} FONE{i} PHONE{i}",
            "text",
            ("phones", i - 1, "number"),
            ("phones", i - 1, "number"),
        )
        for i in (1, 2, 3)
    ),
    *(_f(f"email{i}", f"EMAIL{i} E_MAIL{i}", "text", ("emails", i - 1), ("emails", i - 1)) for i in (1, 2, 3)),
    _f("email", "EMAIL E_MAIL", "text", ("emails", 0), ("emails", 0)),
    _f("street", "ENDERECO LOGRADOURO RUA STREET ADDRESS", "text", ("addresses", 0, "street"), ("address", "street")),
    _f("number", "NUMERO NUMBER", "text", ("addresses", 0, "number"), ("address", "number")),
    _f("complement", "COMPLEMENTO COMPLEMENT", "text", ("addresses", 0, "complement"), ("address", "complement")),
    _f(
        "neighborhood",
        "BAIRRO NEIGHBORHOOD DISTRICT",
        "text",
        ("addresses", 0, "neighborhood"),
        ("address", "neighborhood"),
    ),
    _f("city", "CIDADE MUNICIPIO CITY", "text", ("addresses", 0, "city"), ("address", "city")),
    _f("state", "UF ESTADO STATE", "text", ("addresses", 0, "state"), ("address", "state")),
    _f("zip", "CEP ZIP ZIP_CODE POSTAL_CODE", "text", ("addresses", 0, "zip"), ("address", "zip")),
    _f("income", "RENDA RENDA_ESTIMADA INCOME", "money", ("income",)),
    _f("education", "ESCOLARIDADE EDUCATION", "text", ("education",)),
    _f("marital_status", "ESTADO_CIVIL MARITAL_STATUS", "text", ("marital_status",)),
    _f("social_class", "CLASSE_SOCIAL SOCIAL_CLASS", "text", ("social_class",)),
    _f("profession", "PROFISSAO OCUPACAO PROFESSION OCCUPATION", "text", ("profession",)),
    _f("score", "SCORE", "int", ("score",), ("score",)),
    _f("check_inquiries", "CONSULTAS_CHEQUE CHECK_INQUIRIES", "int", ("check_inquiries",)),
    _f("death", "OBITO FALECIDO DEATH DECEASED", "flag", ("death",)),
    _f("death_date", "DATA_OBITO DEATH_DATE", "date", ("death", "date")),
    _f("company_name", "RAZAO_SOCIAL COMPANY_NAME", "text", None, ("company_name",)),
    _f("trade_name", "NOME_FANTASIA TRADE_NAME", "text", None, ("trade_name",)),
    _f("status", "SITUACAO SITUACAO_CADASTRAL STATUS", "text", None, ("status",)),
    _f("opening_date", "ABERTURA DATA_ABERTURA OPENING_DATE", "date", None, ("opening_date",)),
    _f("legal_nature", "NATUREZA_JURIDICA LEGAL_NATURE", "text", None, ("legal_nature",)),
    _f("activity", "CNAE ACTIVITY_CODE", "text", None, ("main_activity", "code")),
    _f(
        "activity_description", "ATIVIDADE ATIVIDADE_PRINCIPAL ACTIVITY", "text", None, ("main_activity", "description")
    ),
    _f("size", "PORTE SIZE", "text", None, ("size",)),
    _f("share_capital", "CAPITAL_SOCIAL SHARE_CAPITAL", "money", None, ("share_capital",)),
    _f("found", "ENCONTRADO FOUND", "found", None),
    _f("document", "DOCUMENTO DOCUMENT CPF_CNPJ", "document", None),
    _f("record_status", "STATUS_REGISTRO SITUACAO_REGISTRO RECORD_STATUS", "record_status", None),
)

FOUND, NOT_FOUND, INVALID_DOCUMENT = "ENCONTRADO", "NAO_ENCONTRADO", "DOCUMENTO_INVALIDO"
RECORD_STATUSES = (FOUND, NOT_FOUND, INVALID_DOCUMENT)


# What the layout form's field picker shows of each field: its label in both languages.
LABELS: dict[str, tuple[str, str]] = {
    "name": ("Nome / razão social", "Name / company name"),
    "birth_date": ("Data de nascimento", "Birth date"),
    "age": ("Idade", "Age"),
    "gender": ("Sexo", "Gender"),
    "sign": ("Signo", "Star sign"),
    "mother": ("Nome da mãe", "Mother's name"),
    "father": ("Nome do pai", "Father's name"),
    **{f"phone{i}": (f"Telefone {i}", f"Phone {i}") for i in (1, 2, 3)},
    **{f"email{i}": (f"E-mail {i}", f"E-mail {i}") for i in (1, 2, 3)},
    "email": ("E-mail (primeiro)", "E-mail (first)"),
    "street": ("Logradouro", "Street"),
    "number": ("Número", "Number"),
    "complement": ("Complemento", "Complement"),
    "neighborhood": ("Bairro", "Neighbourhood"),
    "city": ("Cidade", "City"),
    "state": ("UF", "State"),
    "zip": ("CEP", "ZIP code"),
    "income": ("Renda estimada", "Estimated income"),
    "education": ("Escolaridade", "Education"),
    "marital_status": ("Estado civil", "Marital status"),
    "social_class": ("Classe social", "Social class"),
    "profession": ("Profissão", "Profession"),
    "score": ("Score", "Score"),
    "check_inquiries": ("Consultas de cheque", "Check inquiries"),
    "death": ("Óbito (S/N)", "Deceased (S/N)"),
    "death_date": ("Data do óbito", "Date of death"),
    "company_name": ("Razão social", "Company name"),
    "trade_name": ("Nome fantasia", "Trade name"),
    "status": ("Situação cadastral", "Registration status"),
    "opening_date": ("Data de abertura", "Opening date"),
    "legal_nature": ("Natureza jurídica", "Legal nature"),
    "activity": ("CNAE principal", "Main activity code"),
    "activity_description": ("Atividade principal", "Main activity"),
    "size": ("Porte", "Company size"),
    "share_capital": ("Capital social", "Share capital"),
    "found": ("Encontrado (S/N)", "Found (S/N)"),
    "document": ("CPF/CNPJ", "CPF/CNPJ"),
    "record_status": ("Status do registro", "Record status"),
}

# Widths of a fixed-width (TXT) layout's fields, by catalogue key.
FIXED_SIZES: dict[str, int] = {
    "name": 60, "birth_date": 10, "age": 3, "gender": 1, "sign": 12, "mother": 60, "father": 60,
    "phone1": 11, "phone2": 11, "phone3": 11, "email1": 60, "email2": 60, "email3": 60, "email": 60,
    "street": 60, "number": 10, "complement": 30, "neighborhood": 40, "city": 40, "state": 2, "zip": 8,
    "income": 12, "education": 30, "marital_status": 20, "social_class": 2, "profession": 40, "score": 4,
    "check_inquiries": 4, "death": 1, "death_date": 10, "company_name": 80, "trade_name": 60, "status": 20,
    "opening_date": 10, "legal_nature": 60, "activity": 7, "activity_description": 80, "size": 20,
    "share_capital": 15, "found": 1, "document": 14, "record_status": 18,
}  # fmt: skip

# The layout row type each kind of value is written as (a layout's FIELD_TYPES).
_ROW_TYPES: dict[str, str] = {
    "date": "date",
    "money": "number",
    "int": "number",
    "age": "number",
    "document": "document",
}
DEFAULT_DATE_FORMAT = "dd/mm/aaaa"
# A date format's tokens (pt-BR and English spellings), longest first, as strftime directives.
_DATE_TOKENS = (("aaaa", "%Y"), ("yyyy", "%Y"), ("dd", "%d"), ("mm", "%m"), ("aa", "%y"), ("yy", "%y"))
_DATE_SEPARATORS = frozenset("/-. ")


def date_pattern(date_format: str) -> str | None:
    """A row's date format (``dd/mm/aaaa``, ``aaaa-mm-dd``, ``ddmmyyyy``…) as a strftime pattern (the same
    in Python and DuckDB); ``%Y-%m-%d`` for an empty one; ``None`` for one that is not a date format."""
    text = date_format.strip().lower()
    if not text:
        return "%Y-%m-%d"
    out, at, seen = "", 0, False
    while at < len(text):
        for token, directive in _DATE_TOKENS:
            if text.startswith(token, at):
                out, at, seen = out + directive, at + len(token), True
                break
        else:
            if text[at] not in _DATE_SEPARATORS:
                return None
            out, at = out + text[at], at + 1
    return out if seen else None


def row_type(field: ExitField) -> str:
    if field.key.startswith("phone"):
        return "phone"
    if field.key.startswith("email"):
        return "email"
    return _ROW_TYPES.get(field.kind, "text")


def default_format(field: ExitField) -> str:
    return DEFAULT_DATE_FORMAT if field.kind == "date" else ""


def applies_to(field: ExitField) -> Literal["person", "company", "both"]:
    if field.person is not None and field.company is None and field.kind not in ("found", "document", "record_status"):
        return "person"
    if field.person is None and field.company is not None:
        return "company"
    return "both"


def fold(name: str) -> str:
    """A field name as matched: accents dropped, upper case, spaces and hyphens as underscores."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    return "_".join(plain.upper().replace("-", " ").split())


_BY_NAME: dict[str, ExitField] = {name: field for field in FIELDS for name in field.names}


def exit_field(name: str) -> ExitField | None:
    """The catalogue's field a layout's exit row names, if any."""
    return _BY_NAME.get(fold(name))


def age_on(birth_date: str, today: dt.date) -> int:
    born = dt.date.fromisoformat(birth_date)
    return today.year - born.year - ((today.month, today.day) < (born.month, born.day))


def _follow(record: Any, path: Path) -> Any:
    value = record
    for step in path:
        if isinstance(step, int):
            if not isinstance(value, list) or step >= len(value):
                return None
        elif not isinstance(value, dict):
            return None
        value = value[step] if isinstance(step, int) else value.get(step)
        if value is None:
            return None
    return value


def exit_value(
    field: ExitField, record: dict[str, Any] | None, document: str, today: dt.date, date_format: str = ""
) -> str:
    """The field's text for a unified record (``None``: not found) of ``document`` (digits); a date as
    ``date_format`` says (empty: ``YYYY-MM-DD``)."""
    if field.kind == "document":
        return document
    if field.kind == "record_status":
        if record is not None:
            return FOUND
        return NOT_FOUND if is_valid_cpf(document) or is_valid_cnpj(document) else INVALID_DOCUMENT
    if field.kind == "found":
        return "S" if record is not None else "N"
    if record is None:
        return ""
    path = field.company if record.get("kind") == "company" else field.person
    if path is None:
        return ""
    value = _follow(record, path)
    if field.kind == "flag":
        return "S" if value is not None else "N"
    if value is None:
        return ""
    if field.kind == "money":
        return f"{float(value):.2f}"
    if field.kind == "int":
        return str(int(value))
    if field.kind == "age":
        return str(age_on(str(value)[:10], today))
    if field.kind == "date":
        pattern = date_pattern(date_format) or "%Y-%m-%d"
        return dt.date.fromisoformat(str(value)[:10]).strftime(pattern)
    return str(value)
