"""Dependencies: the platform, the caller's principal, route permissions, read-your-writes."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Query, Request

from bemtevi.api.access_log import note_tenant
from bemtevi.api.bounds import POSITION_MAX
from bemtevi.api.request_body import header_of
from bemtevi.bootstrap import Platform
from bemtevi.domain.errors import AccessDenied, Unauthorized
from bemtevi.domain.menus import may_open
from bemtevi.domain.principals import Principal

T = TypeVar("T")

# Dependencies that do no I/O are ``async`` so FastAPI runs them on the event loop instead of
# spending a thread-pool hop on each (bench/routes.py). The permission checks call
# ``current_principal`` themselves rather than depend on it: each level of dependencies FastAPI
# solves costs every request that uses it.


async def get_platform(request: Request) -> Platform:
    platform: Platform = request.app.state.platform
    return platform


PlatformDep = Annotated[Platform, Depends(get_platform)]


def bearer_token(request: Request) -> str:
    return token_of(header_of(request.scope, b"authorization") or "")


def token_of(authorization: str) -> str:
    """The token of an ``Authorization: Bearer …`` header; ``Unauthorized`` otherwise."""
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized()
    return token.strip()


def principal_of(request: Request, *, allow_first_access: bool = False) -> Principal:
    """The caller of ``request``, its tenant noted for the access log (``Unauthorized`` without a valid session)."""
    platform: Platform = request.app.state.platform
    principal = platform.identity.authenticate(bearer_token(request), allow_first_access=allow_first_access)
    note_tenant(request.scope, principal.group_id)
    return principal


async def current_principal(request: Request) -> Principal:
    # On the event loop: a cached session check costs less than the thread-pool hop it saves. The
    # platform read here, not as a dependency: one level less for FastAPI to solve per request.
    return principal_of(request)


PrincipalDep = Annotated[Principal, Depends(current_principal)]


async def first_access_principal(request: Request) -> Principal:
    """The caller, also when at first access: for choosing the password and for logout only."""
    return principal_of(request, allow_first_access=True)


FirstAccessPrincipalDep = Annotated[Principal, Depends(first_access_principal)]


def client_address(request: Request) -> str | None:
    """The caller's address, the key of per-address attempt limits."""
    return request.client.host if request.client else None


def allowed_route(route: str) -> Callable[[Request], Awaitable[Principal]]:
    """The API enforces the same route permissions as the role menu shows."""

    async def check(request: Request) -> Principal:
        principal = principal_of(request)
        if not may_open(principal.role, route):
            raise AccessDenied()
        return principal

    # Marks the dependency for the test that walks every endpoint of the app.
    check.allowed_routes = (route,)  # type: ignore[attr-defined]
    return check


def allowed_any_route(*routes: str) -> Callable[[Request], Awaitable[Principal]]:
    """For an endpoint two screens share (e.g. one's own brand and a customer's): any of them;
    the command still decides which one applies to the target."""

    async def check(request: Request) -> Principal:
        principal = principal_of(request)
        if not any(may_open(principal.role, route) for route in routes):
            raise AccessDenied()
        return principal

    check.allowed_routes = routes  # type: ignore[attr-defined]
    return check


def on_the_loop(kind: type[T]) -> Callable[..., Awaitable[T]]:
    """A dependency class that does no I/O (query parameters read into an object), made ``async``: FastAPI
    builds a class dependency on a worker thread, a hop per request. The same parameters, so the same schema."""

    async def build(**values: Any) -> T:
        return kind(**values)

    build.__signature__ = inspect.signature(kind, eval_str=True).replace(return_annotation=kind)  # type: ignore[attr-defined]
    build.__name__ = build.__qualname__ = kind.__name__
    build.__doc__ = kind.__doc__
    return build


# Read-your-writes: a query may name the event-store position it must include (bounded wait).
PositionQuery = Annotated[
    int | None, Query(ge=0, le=POSITION_MAX, description="Wait until the read side has this event")
]


def wait_for_position(platform: Platform, position: int | None) -> bool:
    """Bounded read-your-writes wait; True when the read side includes ``position``."""
    if position is None:
        return True
    return platform.projector.wait_for(position, platform.settings.read_wait_seconds)
