"""Paging of every list the API answers: a page number and a page size, bounded in the schema.

Each list route takes ``Annotated[Page, Depends(paging(...))]``; only the page size's default,
largest value and name (part of each list's contract) differ between lists. Sorting across pages
is ``order`` (``ordering(...)``), one of the list's allow-listed columns. Both are ``async``: they do no I/O,
and FastAPI runs a plain ``def`` dependency on a worker thread (a hop per dependency per request).
"""

# No ``from __future__ import annotations``: FastAPI reads the dependency's parameter types, and
# these name values of the enclosing call (the page size's name and bounds).

import re
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import Annotated

from fastapi import Query

from bemtevi.api.bounds import KEY_MAX, PAGE_MAX


@dataclass(frozen=True, slots=True)
class Page:
    number: int
    size: int

    @property
    def offset(self) -> int:
        return (self.number - 1) * self.size


def paging(*, default_size: int, max_size: int, size_name: str = "perPage") -> Callable[..., Awaitable[Page]]:
    """The dependency that reads ``page`` (1 to ``PAGE_MAX``) and the page size (1 to ``max_size``)."""

    async def page_query(
        page: Annotated[int, Query(ge=1, le=PAGE_MAX, description="Page number, from 1")] = 1,
        size: Annotated[int, Query(alias=size_name, ge=1, le=max_size, description="Rows per page")] = default_size,
    ) -> Page:
        return Page(page, size)

    return page_query


def ordering(columns: Collection[str]) -> Callable[..., Awaitable[str | None]]:
    """The dependency that reads ``order``: one of ``columns``, '-' before it for descending.

    The allow-list is the schema's pattern, so anything else is a 400 before a query runs; the
    projection maps the key to its own SQL (``projections.base.order_clause``)."""
    keys = sorted(columns)
    pattern = "^-?(" + "|".join(re.escape(k) for k in keys) + ")$"

    async def order_query(
        order: Annotated[
            str | None,
            Query(max_length=KEY_MAX, pattern=pattern, description=f"Sort column ({', '.join(keys)}); '-' descending"),
        ] = None,
    ) -> str | None:
        return order or None

    return order_query
