"""A JSON request body is read as ``json.loads`` reads it (``bemtevi.api.request_body.json_of``)."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from bemtevi.api.request_body import json_of

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
    | st.text(alphabet=st.characters(codec=None, categories=["Cs"]), max_size=3)  # lone surrogates
)
_VALUES = st.recursive(
    _SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4)
)


def _outcome(read: Any, body: bytes) -> tuple[str, Any]:
    """What reading ``body`` gives: its value (NaN as a marker: it equals nothing) or the error's details."""
    try:
        value = read(body)
    except json.JSONDecodeError as error:
        return "error", (error.msg, error.pos)
    except UnicodeDecodeError as error:
        return "undecodable", error.reason
    return "value", json.dumps(value, sort_keys=True, allow_nan=True, default=repr) if _has_nan(value) else value


def _has_nan(value: Any) -> bool:
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, list):
        return any(_has_nan(item) for item in value)
    if isinstance(value, dict):
        return any(_has_nan(item) for item in value.values())
    return False


@settings(max_examples=examples(600), deadline=None)
@given(value=_VALUES, ascii_only=st.booleans(), spaced=st.booleans())
def test_any_json_body_reads_as_json_reads_it(value: Any, ascii_only: bool, spaced: bool) -> None:
    """Integers beyond 64 bits, NaN and infinities, lone surrogates, any text, nested or not."""
    text = json.dumps(value, ensure_ascii=ascii_only, allow_nan=True, indent=1 if spaced else None)
    body = text.encode("utf-8", "surrogatepass")
    assert _outcome(json_of, body) == _outcome(json.loads, body)


@settings(max_examples=examples(600), deadline=None)
@given(
    body=st.binary(max_size=40)
    | st.sampled_from([b"\xef\xbb\xbf{}", '{"a":"é"}'.encode("utf-16"), b"[1,]", b"1e400", b"-1e400", b"NaN", b""])
)
def test_any_bytes_read_as_json_reads_them_or_fail_as_it_fails(body: bytes) -> None:
    """Malformed JSON, a BOM, other encodings: the same value or the same error (FastAPI answers its place)."""
    assert _outcome(json_of, body) == _outcome(json.loads, body)
