"""The request handler of every API route: FastAPI's steps, planned once per route instead of per request.

FastAPI's handler (``fastapi.routing.get_request_handler`` inside ``request_response``) works out again on
every request what a route needs: two exit stacks, an exception wrapper, a throw-away ``Response`` per level
of dependencies, each dependency's cache key and kind, the query string, headers and cookies parsed at each
level whether a parameter reads them or not, the content type parsed with ``email.message``, and lookups of
OpenTelemetry's context, and each parameter's field examined again (is it a model, a sequence, a JSON field,
its request keys, a copy of its default). For the API's small routes that was most of their CPU. ``plan_of``
reads the route's dependency tree once; ``RouteHandler`` then does per request only what the tree asks for, in
FastAPI's order and with FastAPI's own functions for each step (the body, the answer, each parameter's
validation; ``Params`` reads a source's parameters as ``request_params_to_args`` does, with each field's facts
worked out once), so answers and errors are the same (tests/api/test_route_path.py compares them).

Cost to a reader: this module follows FastAPI's handler step by step (the names below say which part), and
must follow it when FastAPI changes it. What it does not plan (a dependency with ``yield``, background tasks,
a ``Response`` parameter, security scopes, form bodies, streamed answers) gets FastAPI's own handler, as does
every request while ``app.dependency_overrides`` names something.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fastapi import params
from fastapi._compat import ModelField, Undefined
from fastapi.datastructures import DefaultPlaceholder
from fastapi.dependencies.models import (
    Dependant,
    _get_cache_key,
    _is_async_gen_callable,
    _is_coroutine_callable,
    _is_gen_callable,
)
from fastapi.dependencies.utils import (
    _get_form_models,
    _should_embed_body_fields,
    _validate_value_with_model_field,
    request_body_to_args,
)
from fastapi.exceptions import EndpointContext, RequestValidationError
from fastapi.routing import _extract_endpoint_context, serialize_response
from fastapi.telemetry._api import _validation_failed
from fastapi.types import DependencyCacheKey
from fastapi.utils import is_body_allowed_for_status_code
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Message, Receive, Scope, Send

from bemtevi.api.request_body import PlannedRequest, header_of, is_json_content_type, json_of
from bemtevi.api.route_params import Params

if TYPE_CHECKING:
    from fastapi.routing import APIRoute

# Headers a request's answer carries whatever the answer is, set in its scope by a dependency (the public API's
# rate-limit headers, ``bemtevi.api.v1.deps``): ``(name, value)`` byte pairs, added where the answer is built, by
# ``RouteHandler`` or by the error handlers (``bemtevi.api.errors``), not by an ASGI layer around every request.
ANSWER_HEADERS = "bemtevi.answer_headers"


def add_answer_headers(scope: Scope, response: Response) -> Response:
    """``response`` with the headers its request's dependencies asked for (``ANSWER_HEADERS``)."""
    extra = scope.get(ANSWER_HEADERS)
    if extra:
        response.raw_headers.extend(extra)
    return response


@dataclass(frozen=True, slots=True)
class Step:
    """One dependency of a dependant (``solve_dependencies``' loop body), with what FastAPI works out per request."""

    plan: Plan
    call: Callable[..., Any]
    name: str | None
    key: DependencyCacheKey
    use_cache: bool
    is_coroutine: bool


@dataclass(frozen=True, slots=True)
class Plan:
    """A dependant: its dependencies in order, then the parameters it reads (``solve_dependencies``)."""

    steps: tuple[Step, ...]
    path_params: Params | None
    query_params: Params | None
    header_params: Params | None
    cookie_params: Params | None
    body_params: list[ModelField]
    single_body: ModelField | None  # the body is this one field's value, unless the route embeds it
    request_names: tuple[str, ...]  # the parameters given the request itself
    request_only: bool  # the request is all this dependant reads


def plan_of(dependant: Dependant) -> Plan | None:
    """The plan of ``dependant``, or None when it uses what ``solve_dependencies`` does that a plan does not."""
    if (
        dependant.background_tasks_param_name
        or dependant.response_param_name
        or dependant.security_scopes_param_name
        or dependant.websocket_param_name
        or dependant.own_oauth_scopes
        or dependant.parent_oauth_scopes
        or any(isinstance(f.field_info, params.Form) for f in dependant.body_params)
    ):
        return None
    steps = []
    for sub in dependant.dependencies:
        plan = plan_of(sub)
        call = sub.call
        if (
            plan is None
            or call is None
            or sub.scope is not None
            or sub.concurrency is not None
            or _is_gen_callable(call)
            or _is_async_gen_callable(call)
        ):
            return None
        steps.append(
            Step(plan, call, sub.name, _get_cache_key(dependant=sub), sub.use_cache, _is_coroutine_callable(call))
        )
    reads = (
        dependant.path_params,
        dependant.query_params,
        dependant.header_params,
        dependant.cookie_params,
        dependant.body_params,
    )
    return Plan(
        steps=tuple(steps),
        path_params=Params.of(dependant.path_params),
        query_params=Params.of(dependant.query_params),
        header_params=Params.of(dependant.header_params),
        cookie_params=Params.of(dependant.cookie_params),
        body_params=dependant.body_params,
        single_body=(
            dependant.body_params[0]
            if len(dependant.body_params) == 1
            and not _should_embed_body_fields(dependant.body_params)
            and not _get_form_models(dependant.body_params[0])
            else None
        ),
        request_names=tuple(
            name for name in (dependant.request_param_name, dependant.http_connection_param_name) if name
        ),
        request_only=not steps and not any(reads),
    )


def repeats_a_dependency(plan: Plan) -> bool:
    """Whether a dependency occurs twice in the tree: only then can FastAPI's per-request cache of solved
    dependencies answer one (else ``solve`` keeps none)."""
    keys: list[DependencyCacheKey] = []

    def walk(of: Plan) -> None:
        for step in of.steps:
            keys.append(step.key)
            walk(step.plan)

    walk(plan)
    return len(set(keys)) != len(keys)


async def solve(
    plan: Plan,
    request: Request,
    body: Any,
    embed: bool,
    cache: dict[DependencyCacheKey, Any] | None,
    errors: list[Any],
) -> dict[str, Any]:
    """``solve_dependencies`` for a plan: the values of its parameters; their errors appended to ``errors``.
    ``embed``: the route's ``_embed_body_fields``; ``cache``: None when no dependency repeats."""
    values: dict[str, Any] = {}
    for step in plan.steps:
        if step.plan.request_only:  # the common dependency (the caller, the platform): no level to solve
            arguments = dict.fromkeys(step.plan.request_names, request)
        else:
            step_errors: list[Any] = []
            arguments = await solve(step.plan, request, body, embed, cache, step_errors)
            if step_errors:
                errors.extend(step_errors)
                continue
        if cache is not None and step.use_cache and step.key in cache:
            solved = cache[step.key]
        elif step.is_coroutine:
            solved = await step.call(**arguments)
        else:
            solved = await run_in_threadpool(step.call, **arguments)
        if step.name is not None:
            values[step.name] = solved
        if cache is not None and step.key not in cache:
            cache[step.key] = solved
    # Each source is read only when a parameter reads it (FastAPI parses all four at every level).
    if plan.path_params is not None:
        found, wrong = plan.path_params.read(request.path_params)
        values.update(found)
        errors += wrong
    if plan.query_params is not None:
        found, wrong = plan.query_params.read(request.query_params)
        values.update(found)
        errors += wrong
    if plan.header_params is not None:
        found, wrong = plan.header_params.read(request.headers)
        values.update(found)
        errors += wrong
    if plan.cookie_params is not None:
        found, wrong = plan.cookie_params.read(request.cookies)
        values.update(found)
        errors += wrong
    if plan.single_body is not None and not embed:  # request_body_to_args' common case, its condition planned
        value, wrong = _validate_value_with_model_field(field=plan.single_body, value=body, values={}, loc=("body",))
        values[plan.single_body.name] = value
        errors.extend(wrong)
    elif plan.body_params:
        found, wrong = await request_body_to_args(
            body_fields=plan.body_params, received_body=body, embed_body_fields=embed
        )
        values.update(found)
        errors.extend(wrong)
    for name in plan.request_names:
        values[name] = request
    return values


class RouteHandler:
    """The ASGI app of one API route (``APIRoute.app``): ``request_response`` and ``get_request_handler``
    for a planned route.

    Unlike ``request_response`` it neither opens the two exit stacks (nothing planned registers on them) nor
    wraps the route in the app's exception handlers: an error goes up to the app's ``ExceptionMiddleware``
    just outside the router, which answers it with the same handlers (the routes are the app's own, not a
    mounted app's). The app's ``RouteDispatch`` calls ``answer`` itself, answering errors as that middleware."""

    def __init__(self, route: APIRoute, plan: Plan, framework: Callable[[Scope, Receive, Send], Any]) -> None:
        self.route = route
        self.plan = plan
        self.framework = framework  # FastAPI's own app of the route, for dependency overrides
        self.call: Callable[..., Any] = route.dependant.call  # type: ignore[assignment]
        self.is_coroutine = _is_coroutine_callable(self.call)
        self.body_field = route.body_field
        self.embed = route._embed_body_fields
        response_class = route.response_class
        self.use_dump_json = route.response_field is not None and isinstance(response_class, DefaultPlaceholder)
        self.response_class: type[Response] = (
            response_class.value if isinstance(response_class, DefaultPlaceholder) else response_class
        )
        strict = route.strict_content_type
        self.strict_content_type: bool = strict.value if isinstance(strict, DefaultPlaceholder) else strict
        self.overrides = route.dependency_overrides_provider
        self.caches = repeats_a_dependency(plan)
        self._contexts: dict[tuple[str, str], EndpointContext] = {}

    def planned(self) -> bool:
        """False while the app's ``dependency_overrides`` name something: FastAPI's own handler reads them."""
        return self.overrides is None or not getattr(self.overrides, "dependency_overrides", None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.planned():
            await self.framework(scope, receive, _sending_answer_headers(scope, send))
            return
        request = PlannedRequest(scope, receive, send)
        response = await self.answer(request)
        await add_answer_headers(scope, response)(scope, receive, send)

    def _context(self, request: Request) -> EndpointContext:
        """The endpoint's place for error messages (``get_request_handler``'s ``endpoint_ctx``), kept per
        method and mount path: FastAPI builds it for every request, for the rare answer that fails."""
        key = (request.scope["method"], request.scope.get("root_path", ""))
        context = self._contexts.get(key)
        if context is None:
            context = _extract_endpoint_context(self.call).copy()
            context["path"] = f"{key[0]} {key[1].rstrip('/')}{self.route.dependant.path}"
            self._contexts[key] = context
        return context

    async def answer(self, request: Request) -> Response:
        body: Any = Undefined
        if self.body_field is not None:
            body = await self._body(request)
        errors: list[Any] = []
        values = await solve(self.plan, request, body, self.embed, {} if self.caches else None, errors)
        if errors:
            error = RequestValidationError(
                errors, body=None if body is Undefined else body, endpoint_ctx=self._context(request)
            )
            _validation_failed(error)
            raise error
        route = self.route
        if self.is_coroutine:
            raw = await self.call(**values)
        else:
            raw = await run_in_threadpool(self.call, **values)
        if isinstance(raw, Response):
            return raw
        arguments: dict[str, Any] = {"background": None}
        if route.status_code is not None:
            arguments["status_code"] = route.status_code
        content = await serialize_response(
            field=route.response_field,
            response_content=raw,
            include=route.response_model_include,
            exclude=route.response_model_exclude,
            by_alias=route.response_model_by_alias,
            exclude_unset=route.response_model_exclude_unset,
            exclude_defaults=route.response_model_exclude_defaults,
            exclude_none=route.response_model_exclude_none,
            is_coroutine=self.is_coroutine,
            endpoint_ctx=self._context(request),
            dump_json=self.use_dump_json,
        )
        if self.use_dump_json:
            response = Response(content=content, media_type="application/json", **arguments)
        else:
            response = self.response_class(content, **arguments)
        if not is_body_allowed_for_status_code(response.status_code):
            response.body = b""
        return response

    async def _body(self, request: Request) -> Any:
        """The request's body as ``get_request_handler`` reads it for a JSON body field."""
        try:
            body_bytes = await request.body()
            if not body_bytes:
                return Undefined
            content_type = header_of(request.scope, b"content-type")
            if not content_type:
                return body_bytes if self.strict_content_type else json_of(body_bytes)
            if is_json_content_type(content_type):
                return json_of(body_bytes)
            return body_bytes
        except json.JSONDecodeError as e:
            error = RequestValidationError(
                [
                    {
                        "type": "json_invalid",
                        "loc": ("body", e.pos),
                        "msg": "JSON decode error",
                        "input": {},
                        "ctx": {"error": e.msg},
                    }
                ],
                body=e.doc,
                endpoint_ctx=self._context(request),
            )
            _validation_failed(error)
            raise error from e
        except HTTPException:
            raise
        except Exception as e:
            raise HTTPException(status_code=400, detail="There was an error parsing the body") from e


def _sending_answer_headers(scope: Scope, send: Send) -> Send:
    """``send`` adding ``ANSWER_HEADERS`` to FastAPI's own answer (its handler builds the response itself), unless
    an error handler already added them (FastAPI's handler answers errors inside, with the app's handlers)."""

    async def sending(message: Message) -> None:
        extra = scope.get(ANSWER_HEADERS)
        if message["type"] == "http.response.start" and extra:
            headers = list(message.get("headers", ()))
            if extra[0] not in headers:
                message = {**message, "headers": [*headers, *extra]}
        await send(message)

    return sending
