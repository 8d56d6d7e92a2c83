"""Paging of every list the API answers: a page number and a page size, bounded in the schema.

Each list route takes ``Annotated[Page, Depends(paging(...))]``; only the page size's default,
largest value and name (part of each list's contract) differ between lists.
"""

# No ``from __future__ import annotations``: FastAPI reads the dependency's parameter types, and
# these name values of the enclosing call (the page size's name and bounds).

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import Query

from bemtevi.api.bounds import PAGE_MAX


@dataclass(frozen=True, slots=True)
class Page:
    number: int
    size: int

    @property
    def offset(self) -> int:
        return (self.number - 1) * self.size


def paging(*, default_size: int, max_size: int, size_name: str = "perPage") -> Callable[..., Page]:
    """The dependency that reads ``page`` (1 to ``PAGE_MAX``) and the page size (1 to ``max_size``)."""

    def page_query(
        page: Annotated[int, Query(ge=1, le=PAGE_MAX, description="Page number, from 1")] = 1,
        size: Annotated[int, Query(alias=size_name, ge=1, le=max_size, description="Rows per page")] = default_size,
    ) -> Page:
        return Page(page, size)

    return page_query
