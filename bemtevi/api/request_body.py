"""A planned route's request body (``bemtevi.api.route_handler``): read from ``receive`` and, for a JSON body,
parsed as FastAPI's handler reads it, for less CPU (tests/api/test_request_json.py, tests/api/test_route_path.py)."""

from __future__ import annotations

import email.message
import json
import re
from functools import lru_cache
from typing import Any

import orjson
from starlette.requests import ClientDisconnect, Request
from starlette.types import Scope


def header_of(scope: Scope, name: bytes) -> str | None:
    """A request header as ``request.headers.get`` reads it (``name`` lower-case, as ASGI gives names; the first
    one counts), from the scope's list: building the headers mapping cost more than a small route's other reads."""
    for key, value in scope["headers"]:
        if key == name:
            return value.decode("latin-1")
    return None


@lru_cache(maxsize=256)
def is_json_content_type(value: str) -> bool:
    """FastAPI's test of a request's content type for a JSON body (``email.message`` parses it), remembered
    per header value: the parse cost more than validating a small body."""
    message = email.message.Message()
    message["content-type"] = value
    if message.get_content_maintype() != "application":
        return False
    subtype = message.get_content_subtype()
    return subtype == "json" or subtype.endswith("+json")


# A JSON number of 19 digits or more may not fit 64 bits: orjson reads such an integer as a float.
_LONG_NUMBER = re.compile(rb"[0-9]{19}")


def json_of(body: bytes) -> Any:
    """``json.loads(body)``, as Starlette's ``Request.json`` reads a body, for a fifth of its CPU: orjson reads
    the body unless it may hold a number beyond 64 bits, and gives the same value where it reads one at all;
    what it refuses (NaN, an infinite number, a lone surrogate, another encoding than UTF-8, bad JSON) is read
    by ``json``, whose error says where a body is malformed. tests/api/test_request_json.py compares the two."""
    if _LONG_NUMBER.search(body) is None:
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError:
            pass
    return json.loads(body)


class PlannedRequest(Request):
    """The request of a planned route: its body read straight from ``receive``, as ``Request.body`` reads it
    through ``Request.stream`` (an async generator in a closing context, a third of a small route's body
    reading)."""

    async def body(self) -> bytes:
        if not hasattr(self, "_body"):
            if self._stream_consumed:
                raise RuntimeError("Stream consumed")
            chunks: list[bytes] = []
            while True:
                message = await self._receive()
                if message["type"] == "http.request":
                    chunks.append(message.get("body", b""))
                    if not message.get("more_body", False):
                        break
                elif message["type"] == "http.disconnect":
                    self._is_disconnected = True
                    raise ClientDisconnect()
            self._stream_consumed = True
            self._body = b"".join(chunks)
        return self._body
