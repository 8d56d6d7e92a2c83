"""Query types and categories.

The first cut ships the two built-in unit query types; issue work on query-type management
turns this catalogue into aggregates. A query type says which document it takes and which
result component renders it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from bemtevi.domain.errors import QueryNotAllowed, QueryNotFound


class Category(StrEnum):
    """Credit categories of the specification (section 9)."""

    UNIT = "unit"
    ADVANCED = "advanced"
    BATCH = "batch"
    API = "api"


@dataclass(frozen=True, slots=True)
class QueryType:
    key: str
    name: str
    document_kind: Literal["cpf", "cnpj"]
    component: str
    cache_days: int
    validity_days: int


PERSON_COMPLETE = QueryType("cpf-complete", "Pessoa física completa", "cpf", "person", 30, 90)
COMPANY_COMPLETE = QueryType("cnpj-complete", "Pessoa jurídica completa", "cnpj", "company", 30, 90)

BUILT_IN_QUERY_TYPES: dict[str, QueryType] = {q.key: q for q in (PERSON_COMPLETE, COMPANY_COMPLETE)}
DEFAULT_QUERY_TYPE_BY_KIND = {"cpf": PERSON_COMPLETE, "cnpj": COMPANY_COMPLETE}


def choose_query_type(
    requested: str | None, document_kind: Literal["cpf", "cnpj"], enabled: frozenset[str]
) -> QueryType:
    """The query type to run for a document, refusing what the tenant may not run."""
    if requested:
        query_type = BUILT_IN_QUERY_TYPES.get(requested)
        if query_type is None:
            raise QueryNotFound(field="query_type")
        if query_type.document_kind != document_kind:
            raise QueryNotFound(field="query_type")
    else:
        query_type = DEFAULT_QUERY_TYPE_BY_KIND[document_kind]
    if query_type.key not in enabled:
        raise QueryNotAllowed(field="query_type")
    return query_type
