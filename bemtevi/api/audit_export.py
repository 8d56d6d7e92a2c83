"""What the audit log's export says: the rows the screen shows, each with the screen's sentence, names instead of
ids, the event's and the type's names and what changed with the fields' labels, in the exporting person's
language; and the machine columns an auditor cross-checks (the event's number in the log, the UTC moment)."""

from __future__ import annotations

from datetime import UTC
from typing import Any

from bemtevi.api.exports import Cell
from bemtevi.projections.audit_sentences import (
    MISSING,
    Language,
    actor_text,
    changes_text,
    event_name,
    language,
    sentence,
    target_text,
    target_type_name,
    type_name,
)
from bemtevi.projections.base import SAO_PAULO

EXPORT_COLUMNS: dict[Language, list[str]] = {
    "pt-BR": [
        "Data e hora (Brasília)",
        "Empresa",
        "Quem",
        "E-mail",
        "Tipo de evento",
        "Evento",
        "O que aconteceu",
        "Alvo",
        "Tipo do alvo",
        "O que mudou",
        "Nº do evento no registro",
        "Data e hora (UTC, ISO 8601)",
    ],
    "en-US": [
        "Date and time (Brasília)",
        "Company",
        "Who",
        "E-mail",
        "Kind of event",
        "Event",
        "What happened",
        "Target",
        "Target type",
        "What changed",
        "Event number in the log",
        "Date and time (UTC, ISO 8601)",
    ],
}
_LOCAL_TIME: dict[Language, str] = {"pt-BR": "%d/%m/%Y %H:%M:%S", "en-US": "%m/%d/%Y %H:%M:%S"}


def export_language(lang: str | None, accept_language: str | None) -> Language:
    """The language asked for (the web app sends its own), else the browser's first of pt/en by preference
    (``Accept-Language``), else pt-BR."""
    if lang:
        return language(lang)
    tags: list[tuple[float, int, str]] = []
    for index, part in enumerate((accept_language or "").split(",")):
        tag, _, params = part.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                weight = 0.0
        if tag.lower().startswith(("pt", "en")) and weight > 0:
            tags.append((-weight, index, tag))
    return language(min(tags)[2]) if tags else "pt-BR"


def audit_table(rows: list[dict[str, Any]], lang: Language) -> tuple[list[str], list[list[Cell]]]:
    """The export's header and one line per row, as the screen reads it."""
    table: list[list[Cell]] = []
    for r in rows:
        moment = r["createdAt"].replace(tzinfo=UTC)
        table.append(
            [
                moment.astimezone(SAO_PAULO).strftime(_LOCAL_TIME[lang]),
                r["tenantName"] or r["tenantId"],
                actor_text(r, lang),
                r["actorEmail"] or MISSING,
                type_name(r["aggregateType"], lang),
                event_name(r["aggregateType"], r["eventType"], lang),
                sentence(r, lang),
                target_text(r),
                target_type_name(r.get("targetType"), lang),
                changes_text(r, lang) or MISSING,
                int(r["position"]),
                moment.isoformat(timespec="seconds").replace("+00:00", "Z"),
            ]
        )
    return EXPORT_COLUMNS[lang], table
