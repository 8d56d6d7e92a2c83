"""The data-subject report's read: every consultation of one document, in every tenant, newest first."""

from __future__ import annotations

from typing import Any

import duckdb

from bemtevi.projections.base import first_row


def consultations_of_document(cur: duckdb.DuckDBPyConnection, document: str) -> list[dict[str, Any]]:
    """Who consulted ``document`` (digits only), from which group, when (UTC wall time), by which channel and
    query type, whether it was found, and the purpose its user gave (None: none given)."""
    rows = cur.execute(
        """
        SELECT c.created_at, c.consultation_id, c.group_id, g.name, c.user_id, u.name, u.email, c.channel,
               c.query_type, c.status, c.purpose
        FROM consultations c
        LEFT JOIN groups g ON g.group_id = c.group_id
        LEFT JOIN users u ON u.user_id = c.user_id
        WHERE c.document = ?
        ORDER BY c.position DESC
        """,
        [document],
    ).fetchall()
    keys = (
        "createdAt",
        "consultationId",
        "groupId",
        "groupName",
        "userId",
        "userName",
        "userEmail",
        "channel",
        "queryType",
        "status",
        "purpose",
    )
    return [dict(zip(keys, row, strict=True)) for row in rows]


def reader_of_report(cur: duckdb.DuckDBPyConnection, user_id: str) -> str:
    """Who ran a report, as its file names them: 'Name <e-mail>' (the id when the read model lacks the user)."""
    row = first_row(cur.execute("SELECT name, email FROM users WHERE user_id = ?", [user_id]))
    return f"{row[0]} <{row[1]}>" if row else user_id
