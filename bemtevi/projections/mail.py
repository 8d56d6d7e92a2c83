"""The mail outbox: every mail the product queued, with its outcome (a super-admin reads it).

Without an SMTP server mails are "kept" here, and this is where they are read.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import duckdb

from bemtevi.domain.mail import Mail
from bemtevi.projections.base import PageFold, ReadModel, RowFold, first_row, order_clause

OUTBOX_DDL = """
CREATE TABLE IF NOT EXISTS mail_outbox (
    mail_id VARCHAR PRIMARY KEY,
    tenant_id VARCHAR NOT NULL,
    recipient VARCHAR NOT NULL,
    subject VARCHAR NOT NULL,
    body VARCHAR NOT NULL,
    reason VARCHAR NOT NULL,
    status VARCHAR NOT NULL,
    transport VARCHAR,
    attempts INTEGER NOT NULL,
    last_error VARCHAR,
    queued_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
)
"""

_COLUMNS = (
    "mail_id",
    "tenant_id",
    "recipient",
    "subject",
    "body",
    "reason",
    "status",
    "transport",
    "attempts",
    "last_error",
    "queued_at",
    "updated_at",
)
_EVENTS = (Mail.Queued, Mail.Sent, Mail.Failed)


class _OutboxFold(RowFold):
    table, columns = "mail_outbox", _COLUMNS

    def change(self, row: dict[str, Any] | None, key: str, event: Any, at: datetime) -> dict[str, Any] | None:
        if isinstance(event, Mail.Queued):
            return {
                "mail_id": key,
                "tenant_id": str(event.tenant_id),
                "recipient": event.to,
                "subject": event.subject,
                "body": event.text,
                "reason": event.reason,
                "status": "queued",
                "transport": None,
                "attempts": 0,
                "last_error": None,
                "queued_at": at,
                "updated_at": at,
            }
        if row is None:  # an outcome without its mail cannot happen; never invent a row
            return None
        row["attempts"] += 1
        row["updated_at"] = at
        if isinstance(event, Mail.Sent):
            row["transport"] = event.transport
            row["status"] = "sent" if event.transport == "smtp" else "kept"
        else:
            row["last_error"] = event.error
            row["status"] = "failed" if event.final else "queued"
        return row


class MailOutboxReadModel(ReadModel):
    name = "mail_outbox"
    tables = ("mail_outbox",)
    event_types = _EVENTS

    def create(self, cur: duckdb.DuckDBPyConnection) -> None:
        cur.execute(OUTBOX_DDL)

    def fold(self) -> PageFold:
        return _OutboxFold()


# -- queries ---------------------------------------------------------------------------------


# The columns the outbox may sort by (the grid's field -> SQL); anything else is refused.
OUTBOX_ORDER = {
    "time": "queued_at",
    "to": "lower(recipient)",
    "subject": "lower(subject)",
    "reason": "reason",
    "status": "status",
}


def outbox_page(
    cur: duckdb.DuckDBPyConnection, group_id: str, offset: int = 0, limit: int = 20, order: str | None = None
) -> tuple[list[dict[str, Any]], int]:
    """Mails queued for ``group_id`` and the groups below it, newest first, and their count."""
    subtree = """
        WITH RECURSIVE subtree(group_id) AS (
            SELECT ?::VARCHAR
            UNION
            SELECT g.group_id FROM groups g JOIN subtree s ON g.parent_id = s.group_id
        )
    """
    total_row = first_row(
        cur.execute(
            f"{subtree} SELECT count(*) FROM mail_outbox WHERE tenant_id IN (SELECT group_id FROM subtree)", [group_id]
        )
    )
    rows = cur.execute(
        f"""{subtree}
        SELECT {", ".join(_COLUMNS)} FROM mail_outbox
        WHERE tenant_id IN (SELECT group_id FROM subtree)
        {order_clause(order, OUTBOX_ORDER, "queued_at DESC, mail_id")}
        LIMIT ? OFFSET ?""",
        [group_id, limit, offset],
    ).fetchall()
    return [dict(zip(_COLUMNS, r, strict=True)) for r in rows], int(total_row[0] if total_row else 0)
