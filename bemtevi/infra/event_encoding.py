"""The library's JSON transcoder, with orjson doing the JSON.

The library's ``JSONTranscoder`` writes events with the standard library's encoder and a
``default`` hook in Python for every UUID and datetime (an event carries four or five), and
reads them back with an ``object_hook`` in Python for every object. On the group commit's writer,
which stores two events per lookup, that encoding was about a seventh of the process's CPU.

``FastJSONTranscoder`` writes the same bytes: a walk in Python turns what orjson must not write
its own way (UUIDs, datetimes, dates, decimals: anything with a registered transcoding) into the
library's ``{"_type_": name, "_data_": encoded}`` objects, and orjson writes the rest with the
library's separators (none), key order (as inserted) and escapes (UTF-8, control characters
escaped as ``json`` does); floats are written as ``repr`` writes them, as ``json`` does. Whatever
the walk or orjson does not take exactly as ``json`` would (an object with no transcoding, an
integer beyond 64 bits, a float that is not finite, a key that is not a string, deep nesting)
is written by the library's own encoder instead, which also raises the library's errors. So the
stored bytes are the library's in every case; the property tests hold the two to that.

Reading parses with orjson and revives the transcoded objects the way the library's hook does
(innermost first), UUIDs without the checks of their constructor that cannot fail on what the
library writes; a document orjson reads differently or refuses (a float, which orjson may parse
where ``json`` keeps an integer; NaN; a lone surrogate) is read by the library's decoder.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC
from typing import Any
from uuid import UUID, SafeUUID

import orjson
from eventsourcing.persistence import (
    DatetimeAsISO,
    JSONTranscoder,
    Transcoding,
    UUIDAsHex,
)

_Convert = Callable[[Any], Any]


class _Unsupported(Exception):
    """Not written (or read) here exactly as the library would: the library's own coder does it."""


class FastJSONTranscoder(JSONTranscoder):
    def __init__(self) -> None:
        super().__init__()
        self._convert = self._make_converter()
        self._decoders: dict[str, _Convert] = {}

    def register(self, transcoding: Transcoding) -> None:
        super().register(transcoding)
        self._convert = self._make_converter()
        self._decoders = {
            name: _uuid_from_hex(t.decode) if type(t) is UUIDAsHex else t.decode for name, t in self.names.items()
        }

    # -- writing ----------------------------------------------------------------------------------

    def encode(self, obj: Any) -> bytes:
        try:
            return orjson.dumps(self._convert(obj))
        except Exception:
            # Written by the library's encoder: the same bytes, or the same error.
            return super().encode(obj)

    def _make_converter(self) -> _Convert:
        """A function from a value to what orjson writes as ``json`` with this transcoder's hook would."""
        plain = _PLAIN

        def convert(obj: Any) -> Any:
            converter = converters.get(type(obj))
            if converter is None:
                converter = converters[type(obj)] = self._converter_for(type(obj), convert)
            return converter(obj)

        def convert_dict(d: dict[Any, Any]) -> dict[Any, Any]:
            # Keys as they are: orjson refuses any but str, and the library's encoder writes those.
            return {k: v if type(v) in plain else (known(type(v)) or convert)(v) for k, v in d.items()}

        def convert_items(items: list[Any] | tuple[Any, ...]) -> list[Any]:
            return [v if type(v) in plain else (known(type(v)) or convert)(v) for v in items]

        converters: dict[type, _Convert] = dict.fromkeys(plain, _same)
        known = converters.get
        converters.update({float: _float, dict: convert_dict, list: convert_items, tuple: convert_items})
        return convert

    def _converter_for(self, cls: type, convert: _Convert) -> _Convert:
        """How ``json`` writes an object of this type: as the native type it subclasses (checked
        first, as ``json`` does), else through its registered transcoding (by exact type)."""
        if issubclass(cls, str):
            return str.__str__  # the string's own characters, as an exact str (StrEnum: its value)
        if issubclass(cls, int):
            return int.__index__  # its integer value (bool cannot be subclassed)
        if issubclass(cls, float):
            return lambda f: _float(float.__float__(f))
        if issubclass(cls, list):
            return lambda items: [convert(v) for v in list.__iter__(items)]
        if issubclass(cls, tuple):
            return lambda items: [convert(v) for v in tuple.__iter__(items)]
        if issubclass(cls, dict):
            return lambda d: {k: convert(v) for k, v in d.items()}
        transcoding = self.types.get(cls)
        if transcoding is None:
            return _unsupported
        name = transcoding.name
        # The library's own transcodings of the two types every event holds, without a call.
        if type(transcoding) is UUIDAsHex:
            return lambda u: {"_type_": name, "_data_": "%032x" % u.int}  # noqa: UP031 (UUID.hex, inlined)
        if type(transcoding) is DatetimeAsISO:
            # orjson writes a naive or UTC datetime as ``isoformat`` does (the tests hold it to that).
            return lambda t: {
                "_type_": name,
                "_data_": t if t.tzinfo is None or t.tzinfo is UTC else t.isoformat(),
            }
        encode = transcoding.encode

        def transcode(obj: Any) -> dict[str, Any]:
            data = encode(obj)
            return {"_type_": name, "_data_": data if type(data) is str else convert(data)}

        return transcode

    # -- reading ----------------------------------------------------------------------------------

    def decode(self, data: bytes) -> Any:
        try:
            return self._revive(orjson.loads(data))
        except Exception:
            # Read by the library's decoder: the same objects, or the same error.
            return super().decode(data)

    def _revive(self, obj: Any) -> Any:
        cls = type(obj)
        if cls is dict:
            revive = self._revive
            for key, value in obj.items():
                if type(value) in _REVIVED:
                    obj[key] = revive(value)
            if len(obj) == 2 and "_type_" in obj and "_data_" in obj:
                return self._decoders[obj["_type_"]](obj["_data_"])
            return obj
        if cls is list:
            return [self._revive(v) if type(v) in _REVIVED else v for v in obj]
        if cls is float:
            raise _Unsupported  # where json may have read an integer (beyond 64 bits) or another float
        return obj


# Written by orjson exactly as json writes them.
_PLAIN: frozenset[type] = frozenset({str, int, bool, type(None)})
# Containers, and the one scalar that json and orjson may read differently.
_REVIVED: frozenset[type] = frozenset({dict, list, float})


def _same(obj: Any) -> Any:
    return obj


def _float(value: float) -> Any:
    if value - value == 0.0:  # finite: written as json writes it
        return orjson.Fragment(float.__repr__(value))
    raise _Unsupported


def _unsupported(obj: Any) -> Any:
    raise _Unsupported


def _uuid_from_hex(decode: _Convert) -> _Convert:
    """``UUIDAsHex.decode`` (``UUID(hex)``) of what it writes, 32 hex digits, without the
    constructor's clean-up of braces, hyphens and URN prefixes (none can be in 32 letters and
    digits) and its checks (an int of 32 hex digits is in range); anything else as it does."""
    new, set_attribute, unknown = object.__new__, object.__setattr__, SafeUUID.unknown

    def uuid_from_hex(data: Any) -> Any:
        if type(data) is not str or len(data) != 32 or not data.isalnum():
            return decode(data)
        uuid = new(UUID)
        set_attribute(uuid, "int", int(data, 16))
        set_attribute(uuid, "is_safe", unknown)
        return uuid

    return uuid_from_hex
