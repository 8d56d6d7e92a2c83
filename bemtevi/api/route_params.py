"""A route's parameters of one source (path, query, headers, cookies), read as FastAPI's
``request_params_to_args`` reads them, with each field's facts worked out once per route instead of per request
(``bemtevi.api.route_handler`` plans the rest of the route; tests/api/test_route_path.py compares the answers)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi._compat import ModelField, Undefined, field_annotation_is_sequence
from fastapi.dependencies.utils import (
    _get_param_aliases,
    _get_param_model,
    _is_json_field,
    _validate_value_with_model_field,
    request_params_to_args,
)
from starlette.datastructures import Headers, ImmutableMultiDict

# Defaults that ``deepcopy`` answers as they are.
_IMMUTABLE = (type(None), bool, int, float, str, bytes)


@dataclass(frozen=True, slots=True)
class Param:
    """A parameter read from the path, query, headers or cookies, with what ``request_params_to_args`` and
    ``_get_multidict_value`` work out about its field on every request: its request keys in order of
    preference, whether it takes every value of its key, where its errors are told."""

    field: ModelField
    keys: tuple[str, ...]
    sequence: bool  # an empty list of values is no value
    multi: bool  # every value of the key (a sequence, not a JSON field), where the source has several
    location: str
    absent: Any  # its value when not sent, when that is one immutable default (a copy of it is itself); else Undefined


@dataclass(frozen=True, slots=True)
class Params:
    """The parameters of one source (``request_params_to_args``' ``fields``): read with each field's ``Param``;
    by FastAPI's function when one is a model of parameters (``Query()`` of a model: not planned)."""

    fields: list[ModelField]
    planned: tuple[Param, ...] | None

    @staticmethod
    def of(fields: list[ModelField]) -> Params | None:
        if not fields:
            return None
        if any(_get_param_model(field) is not None for field in fields):
            return Params(fields, None)
        planned = []
        for field in fields:
            sequence = field_annotation_is_sequence(field.field_info.annotation)
            info = field.field_info
            plain_default = (
                not info.is_required()
                and info.default_factory is None
                and not info.validate_default
                and type(info.default) in _IMMUTABLE
            )
            planned.append(
                Param(
                    field,
                    tuple(key for _, key in _get_param_aliases(field)),
                    sequence,
                    sequence and not _is_json_field(field),
                    info.in_.value,  # type: ignore[attr-defined]
                    info.default if plain_default else Undefined,
                )
            )
        return Params(fields, tuple(planned))

    def read(self, received: Any) -> tuple[dict[str, Any], list[Any]]:
        """``request_params_to_args(self.fields, received)``."""
        if self.planned is None:
            return request_params_to_args(self.fields, received)
        values: dict[str, Any] = {}
        errors: list[Any] = []
        several = isinstance(received, (ImmutableMultiDict, Headers))
        for param in self.planned:
            if param.multi and several:
                key = next((key for key in param.keys if key in received), param.keys[0])
                value = received.getlist(key)
            else:  # one look-up per alias: ``in`` and then ``get`` would each scan the headers
                key = param.keys[0]
                value = received.get(key, None)
                if value is None and len(param.keys) > 1:
                    key = next((key for key in param.keys[1:] if key in received), key)
                    value = received.get(key, None)
            if value is None or (param.sequence and len(value) == 0):
                if param.absent is not Undefined:
                    values[param.field.name] = param.absent
                    continue
                value = Undefined  # the default is applied by the validation
            found, wrong = _validate_value_with_model_field(
                field=param.field, value=value, values=values, loc=(param.location, key)
            )
            if wrong:
                errors.extend(wrong)
            else:
                values[param.field.name] = found
        return values, errors
