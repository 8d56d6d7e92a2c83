"""Requests, answers and refusals as JSON: what travels to a ledger worker and back (cluster mode)."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any
from uuid import UUID

import orjson

from bemtevi.commands.ledger.requests import REQUEST_TYPES, Request
from bemtevi.domain import errors as domain_errors
from bemtevi.domain.errors import DomainError

_UUID_FIELDS: dict[type[Any], frozenset[str]] = {
    t: frozenset(f.name for f in dataclasses.fields(t) if "UUID" in str(f.type)) for t in REQUEST_TYPES.values()
}


def request_to_json(request: Request) -> dict[str, Any]:
    fields = {f.name: getattr(request, f.name) for f in dataclasses.fields(request)}
    return {"kind": type(request).__name__, **fields}


def request_from_json(data: dict[str, Any]) -> Request:
    kind = REQUEST_TYPES[data["kind"]]
    uuids = _UUID_FIELDS[kind]
    fields = {
        f.name: (UUID(data[f.name]) if f.name in uuids and data[f.name] is not None else data[f.name])
        for f in dataclasses.fields(kind)
        # A field added since with a default (ReleaseAbandoned's category) may be absent from an older request.
        if f.name in data or f.default is dataclasses.MISSING
    }
    request: Request = kind(**fields)
    return request


def encode_request(request: Request) -> bytes:
    return orjson.dumps(request_to_json(request))


def decode_request(raw: bytes) -> Request:
    return request_from_json(orjson.loads(raw))


def value_to_json(value: Any) -> Any:
    """A decision's value as JSON (a datetime as ISO text, a tuple as a list)."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, tuple):
        return [value_to_json(v) for v in value]
    return value


def error_to_json(error: BaseException) -> dict[str, Any]:
    """A refusal as JSON: a domain error by its class (rebuilt as itself on the caller's side), anything
    else as an unexpected error with its text."""
    if isinstance(error, DomainError) and getattr(domain_errors, type(error).__name__, None) is type(error):
        return {"type": type(error).__name__, "message": error.message, "field": error.field}
    return {"type": "DomainError", "message": f"ledger: {type(error).__name__}: {error}", "field": None}


def error_from_json(data: dict[str, Any]) -> DomainError:
    kind = getattr(domain_errors, data["type"], DomainError)
    if not (isinstance(kind, type) and issubclass(kind, DomainError)):
        kind = DomainError
    error: DomainError = kind.__new__(kind)
    Exception.__init__(error, data["message"])
    error.message = data["message"]
    error.field = data.get("field")
    return error
