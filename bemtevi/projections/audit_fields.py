"""What a person may read of an event in the audit log: its fields flattened to text (secrets, bytes and bodies
left out by name, nested forms as fields of their own, a layout's rows as its entry and exit fields) and what it is
about (its target: a user, a company, a batch's file, a document, ...)."""

from __future__ import annotations

import json
from typing import Any

# Fields every event has (they are columns), ids shown as the target, and fields never to show
# (secrets, bytes, bodies, keys).
_BASE_FIELDS = frozenset(
    {
        "originator_id",
        "originator_version",
        "timestamp",
        "actor_id",
        "tenant_id",
        "originator_topic",
        "unique_key",
        "user_id",
        "group_id",
        "parent_id",
        "expires_at",
        "digest",
        "content_type",
        "reply_to",
        "message",
        # The ledger's bookkeeping id of a batch's credits: nothing a person acts on.
        "reservation_id",
    }
)
_HIDDEN_WORDS = ("password", "hash", "secret", "token", "code", "data", "body", "html", "text", "base64")
# Nested dicts whose keys are fields of their own ("brand.primaryColor" shows as "primaryColor").
# A query type's ``definition``, a layout's ``spec`` and a supplier's ``config`` too (a query type's
# own toggles show as ``toggle_<name>``, a layout's rows as its entry and exit fields).
# An advanced search's ``criteria`` show as the form's fields (name, city, birth, ...).
_FLATTENED = frozenset({"brand", "profile", "toggles", "preferences", "definition", "spec", "config", "criteria"})
# Fields holding ids named when read (``ID_LISTS``); kept whole, never cut to ``MAX_VALUE``.
ID_LISTS = {"enabled_layouts": "layouts", "allowed_layouts": "layouts"}
MAX_VALUE = 120


def _hidden(key: str) -> bool:
    return key in _BASE_FIELDS or any(word in key.lower() for word in _HIDDEN_WORDS)


def _text(value: Any, whole: bool = False) -> str | None:
    if value is None or value == "" or value == [] or value == {}:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        text = ", ".join(str(v) for v in value)
        if whole or not text:
            return text or None
    else:
        text = str(value)
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"


def shown_fields(event: Any) -> dict[str, str | None]:
    """The event's fields a person may read, flattened to text (secrets and bytes left out)."""
    fields: dict[str, str | None] = {}
    for key, value in vars(event).items():
        if _hidden(key):
            continue
        if isinstance(value, dict) and key in _FLATTENED:
            for sub, inner in value.items():
                if _hidden(sub):
                    continue
                if sub == "rows" and isinstance(inner, list):
                    fields.update(_layout_rows(inner))
                elif isinstance(inner, dict) and sub == "toggles":
                    fields.update({f"toggle_{t}": _text(on) for t, on in inner.items() if not _hidden(t)})
                else:
                    fields[sub] = _text(inner, whole=sub in ID_LISTS)
        elif isinstance(value, dict):
            fields[key] = _text(json.dumps(value, sort_keys=True, default=str))
        else:
            fields[key] = _text(value, whole=key in ID_LISTS)
    kind = type(event).__qualname__
    if kind == "Session.Opened":
        # The session's role is the user's, not a change; who signed in is the target.
        return {}
    if kind in ("Group.Registered", "Group.Activated"):
        fields["status"] = "active"
    elif kind == "Group.Inactivated":
        fields["status"] = "inactive"
    elif kind in _ACTIVATED:
        fields["status"] = "active"
    elif kind in ("Layout.Inactivated", "QueryTypeDefinition.Inactivated", "Batch.Inactivated"):
        fields["status"] = "inactive"
    elif kind == "Vendor.Registered":
        fields["status"] = "active"
    elif kind == "Vendor.StatusChanged":
        fields["status"] = "active" if fields.pop("active", None) == "true" else "inactive"
    elif kind == "User.PhotoChanged":
        fields["photo"] = str(getattr(event, "digest", "")) or "new"
    elif kind == "Batch.Failed":
        # Its message says why (the field name alone is hidden with every "message").
        fields["error"] = _text(getattr(event, "message", None))
    return fields


_ACTIVATED = (
    "Layout.Created",
    "Layout.Activated",
    "QueryTypeDefinition.Created",
    "QueryTypeDefinition.Activated",
    "Batch.Activated",
)


def _layout_rows(rows: list[Any]) -> dict[str, str | None]:
    """A layout's rows as two fields, its entry and its exit fields in order, each "name (type, size)"."""
    shown: dict[str, str | None] = {}
    for direction in ("entry", "exit"):
        mine = sorted((r for r in rows if isinstance(r, dict) and r.get("direction") == direction), key=_row_order)
        parts = [f"{r.get('name')} ({r.get('type')}{', ' + str(r['size']) if r.get('size') else ''})" for r in mine]
        shown[f"{direction}_fields"] = _text(parts)
    return shown


def _row_order(row: dict[str, Any]) -> int:
    try:
        return int(row.get("order") or 0)
    except (TypeError, ValueError):
        return 0


# Aggregates of the catalogue and suppliers: the target's kind and where its events keep its name.
_NAMED_TARGETS = {
    "QueryTypeDefinition": ("query_type", "definition", "name"),
    "Layout": ("layout", "spec", "file_name"),
    "Vendor": ("supplier", "config", "name"),
}


def event_target(event: Any) -> tuple[str, str, str | None] | None:
    """(type, id, label) of what the event is about, when the event itself says."""
    aggregate = type(event).__qualname__.rpartition(".")[0]
    own = str(event.originator_id)
    if aggregate in ("User", "Group"):
        return aggregate.lower(), own, None
    if aggregate in ("Session", "PasswordRecovery", "SignInChallenge") and getattr(event, "user_id", None):
        return "user", str(event.user_id), None
    if aggregate == "Mail" and getattr(event, "to", None):
        to = event.to
        return "email", own, ", ".join(to) if isinstance(to, list | tuple) else str(to)
    if aggregate == "ContactRequest" and getattr(event, "name", None):
        return "contact", own, f"{event.name} <{getattr(event, 'email', '')}>"
    if aggregate == "BrandImage":
        # Named by what it is (its id is a digest's, which says nothing): "PNG, 708 × 896 px".
        kind = event.content_type.rpartition("/")[2].upper()
        return "image", own, f"{kind}, {event.width} × {event.height} px"
    if aggregate in ("Batch", "ApiToken"):
        # Named when read (the batch's file, the token's current name); the label is the fallback.
        label = getattr(event, "file_name" if aggregate == "Batch" else "name", None)
        return ("batch" if aggregate == "Batch" else "token"), own, str(label) if label else None
    if aggregate == "DataSubjectReport" and getattr(event, "document", None):
        return "document", str(event.document), str(event.document)
    if aggregate in _NAMED_TARGETS:
        # Named when read (a renamed layout shows its new name); the label is the fallback.
        kind, holder, key = _NAMED_TARGETS[aggregate]
        label = (getattr(event, holder, None) or {}).get(key)
        return kind, own, str(label) if label else None
    return None


def is_image(value: str | None) -> bool:
    return bool(value) and str(value).startswith("/api/")
