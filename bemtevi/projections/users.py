"""Users' details, photos, preferences and sign-in sessions; the users list of a group.

The list itself reads the directory's ``users`` table (name, e-mail, role, status, created);
this read model adds what the users form and my-account show.
"""

from __future__ import annotations

import json
from base64 import b64decode
from typing import Any

import duckdb

from bemtevi.domain.profiles import PREFERENCE_DEFAULTS
from bemtevi.domain.sessions import Session
from bemtevi.domain.users import User, UserStatus
from bemtevi.projections.base import PageFold, ReadModel, first_row, naive_utc, order_clause

PROFILES_DDL = """
CREATE TABLE IF NOT EXISTS user_profiles (
    user_id VARCHAR PRIMARY KEY,
    cpf VARCHAR,
    phone VARCHAR,
    functions VARCHAR,
    social_profile VARCHAR,
    biography VARCHAR,
    user_name VARCHAR,
    photo_digest VARCHAR,
    preferences VARCHAR,
    password_changed_at TIMESTAMP,
    updated_at TIMESTAMP NOT NULL
)
"""

PHOTOS_DDL = """
CREATE TABLE IF NOT EXISTS user_photos (
    user_id VARCHAR PRIMARY KEY,
    content_type VARCHAR NOT NULL,
    digest VARCHAR NOT NULL,
    data BLOB NOT NULL
)
"""

SESSIONS_DDL = """
CREATE TABLE IF NOT EXISTS user_sessions (
    session_id VARCHAR PRIMARY KEY,
    user_id VARCHAR NOT NULL,
    opened_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    closed_at TIMESTAMP,
    close_reason VARCHAR
)
"""

_PROFILE_COLUMNS = (
    "user_id",
    "cpf",
    "phone",
    "functions",
    "social_profile",
    "biography",
    "user_name",
    "photo_digest",
    "preferences",
    "password_changed_at",
    "updated_at",
)

_USER_EVENTS = (User.DetailsChanged, User.PhotoChanged, User.PreferencesChanged, User.PasswordChanged)
_SESSION_EVENTS = (Session.Opened, Session.Closed)


class _UsersFold(PageFold):
    def __init__(self) -> None:
        self.profiles: dict[str, dict[str, Any]] = {}
        self.photos: dict[str, tuple[str, str, bytes]] = {}
        self.opened: dict[str, tuple[str, Any, Any]] = {}
        self.closed: dict[str, tuple[Any, str]] = {}
        self.events: list[Any] = []

    def apply(self, event: Any, position: int) -> None:
        if isinstance(event, _USER_EVENTS):
            self.events.append(event)
        elif isinstance(event, Session.Opened):
            self.opened[str(event.originator_id)] = (
                str(event.user_id),
                naive_utc(event.timestamp),
                naive_utc(event.expires_at),
            )
        elif isinstance(event, Session.Closed):
            self.closed[str(event.originator_id)] = (naive_utc(event.timestamp), event.reason)

    def write(self, cur: duckdb.DuckDBPyConnection) -> None:
        self._write_profiles(cur)
        for session_id, (user_id, opened_at, expires_at) in self.opened.items():
            cur.execute(
                "INSERT INTO user_sessions VALUES (?, ?, ?, ?, NULL, NULL) ON CONFLICT (session_id) DO NOTHING",
                [session_id, user_id, opened_at, expires_at],
            )
        for session_id, (closed_at, reason) in self.closed.items():
            cur.execute(
                "UPDATE user_sessions SET closed_at = ?, close_reason = ? WHERE session_id = ?",
                [closed_at, reason, session_id],
            )

    def _write_profiles(self, cur: duckdb.DuckDBPyConnection) -> None:
        if not self.events:
            return
        ids = sorted({str(e.originator_id) for e in self.events})
        rows = cur.execute(
            f"SELECT {', '.join(_PROFILE_COLUMNS)} FROM user_profiles WHERE user_id IN ?", [ids]
        ).fetchall()
        profiles = {str(r[0]): dict(zip(_PROFILE_COLUMNS, r, strict=True)) for r in rows}
        photos: dict[str, tuple[str, str, bytes]] = {}
        for event in self.events:
            key = str(event.originator_id)
            row = profiles.setdefault(key, {column: None for column in _PROFILE_COLUMNS} | {"user_id": key})
            row["updated_at"] = naive_utc(event.timestamp)
            if isinstance(event, User.DetailsChanged):
                for column in ("cpf", "phone", "functions", "social_profile", "biography", "user_name"):
                    row[column] = getattr(event, column)
            elif isinstance(event, User.PhotoChanged):
                row["photo_digest"] = event.digest
                photos[key] = (event.content_type, event.digest, b64decode(event.image_base64))
            elif isinstance(event, User.PreferencesChanged):
                row["preferences"] = json.dumps(event.preferences, sort_keys=True)
            elif isinstance(event, User.PasswordChanged):
                row["password_changed_at"] = naive_utc(event.timestamp)
        # Upserts in place (see directory._replace: a delete-and-insert of one key twice fails
        # while a reader's transaction still sees an older version).
        placeholders = ", ".join("?" for _ in _PROFILE_COLUMNS)
        updates = ", ".join(f"{c} = excluded.{c}" for c in _PROFILE_COLUMNS if c != "user_id")
        for row in profiles.values():
            cur.execute(
                f"INSERT INTO user_profiles VALUES ({placeholders}) ON CONFLICT (user_id) DO UPDATE SET {updates}",
                [row[c] for c in _PROFILE_COLUMNS],
            )
        for user_id, (content_type, digest, data) in photos.items():
            cur.execute(
                "INSERT INTO user_photos VALUES (?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET "
                "content_type = excluded.content_type, digest = excluded.digest, data = excluded.data",
                [user_id, content_type, digest, data],
            )


class UsersReadModel(ReadModel):
    name = "users"
    version = 1
    tables = ("user_profiles", "user_photos", "user_sessions")
    event_types = _USER_EVENTS + _SESSION_EVENTS

    def create(self, cur: duckdb.DuckDBPyConnection) -> None:
        cur.execute(PROFILES_DDL)
        cur.execute(PHOTOS_DDL)
        cur.execute(SESSIONS_DDL)

    def fold(self) -> PageFold:
        return _UsersFold()


# -- queries ---------------------------------------------------------------------------------


# The columns the users list may sort by (the grid's field -> SQL); anything else is refused.
USERS_ORDER = {
    "name": "lower(u.name)",
    "email": "lower(u.email)",
    "role": "u.role",
    "status": "u.status",
    "createdAt": "u.created_at",
}


def users_of_group(
    cur: duckdb.DuckDBPyConnection,
    group_id: str,
    search: str | None = None,
    offset: int = 0,
    limit: int = 20,
    include_super_admins: bool = True,
    order: str | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """A group's users (archived ones left out), newest first; search by name or e-mail."""
    where = "u.group_id = ? AND u.status <> ?"
    params: list[Any] = [group_id, UserStatus.ARCHIVED.value]
    if not include_super_admins:
        where += " AND u.role <> 'super-admin'"
    if search and search.strip():
        text = f"%{search.strip().lower()}%"
        where += " AND (lower(u.name) LIKE ? OR lower(u.email) LIKE ?)"
        params += [text, text]
    total = first_row(cur.execute(f"SELECT count(*) FROM users u WHERE {where}", params))
    rows = cur.execute(
        f"""
        SELECT u.user_id, u.unique_key, u.group_id, u.name, u.email, u.role, u.status, u.created_at,
               p.cpf, p.phone, p.functions, p.photo_digest
        FROM users u LEFT JOIN user_profiles p ON p.user_id = u.user_id
        WHERE {where}
        {order_clause(order, USERS_ORDER, "u.created_at DESC, u.user_id")}
        LIMIT {int(limit)} OFFSET {int(offset)}
        """,
        params,
    ).fetchall()
    users = [
        {
            "id": r[0],
            "uniqueKey": r[1],
            "groupId": r[2],
            "name": r[3],
            "email": r[4],
            "role": r[5],
            "status": r[6],
            "createdAt": r[7],
            "cpf": r[8],
            "phone": r[9],
            "functions": r[10],
            "hasPhoto": r[11] is not None,
        }
        for r in rows
    ]
    return users, int(total[0]) if total else 0


def user_detail(cur: duckdb.DuckDBPyConnection, user_id: str) -> dict[str, Any] | None:
    row = first_row(
        cur.execute(
            """
        SELECT u.user_id, u.unique_key, u.group_id, u.name, u.email, u.role, u.status, u.created_at,
               p.cpf, p.phone, p.functions, p.social_profile, p.biography, p.user_name, p.photo_digest,
               p.preferences, p.password_changed_at, g.name, g.unique_key
        FROM users u
        LEFT JOIN user_profiles p ON p.user_id = u.user_id
        LEFT JOIN groups g ON g.group_id = u.group_id
        WHERE u.user_id = ?
        """,
            [user_id],
        )
    )
    if row is None:
        return None
    preferences = dict(PREFERENCE_DEFAULTS)
    if row[15]:
        preferences.update(json.loads(row[15]))
    return {
        "id": row[0],
        "uniqueKey": row[1],
        "groupId": row[2],
        "name": row[3],
        "email": row[4],
        "role": row[5],
        "status": row[6],
        "createdAt": row[7],
        "cpf": row[8],
        "phone": row[9],
        "functions": row[10],
        "socialProfile": row[11],
        "biography": row[12],
        "userName": row[13],
        "photoDigest": row[14],
        "preferences": preferences,
        "passwordChangedAt": row[16],
        "groupName": row[17],
        "groupUniqueKey": row[18],
    }


def user_photo(cur: duckdb.DuckDBPyConnection, user_id: str) -> tuple[str, str, bytes] | None:
    row = first_row(cur.execute("SELECT content_type, digest, data FROM user_photos WHERE user_id = ?", [user_id]))
    return None if row is None else (str(row[0]), str(row[1]), bytes(row[2]))


def open_sessions(cur: duckdb.DuckDBPyConnection, user_id: str) -> list[dict[str, Any]]:
    rows = cur.execute(
        """
        SELECT session_id, opened_at, expires_at FROM user_sessions
        WHERE user_id = ? AND closed_at IS NULL AND expires_at > (now() AT TIME ZONE 'UTC')
        ORDER BY opened_at DESC
        """,
        [user_id],
    ).fetchall()
    return [{"id": r[0], "openedAt": r[1], "expiresAt": r[2]} for r in rows]
