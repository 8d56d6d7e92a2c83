"""The advanced query (issue 36): search (free, recorded), a page of its list, and a result opened (one advanced
credit, once per search and document; the answer is a unit lookup's, for the same result screen)."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Body, Depends, Path, Response

from bemtevi.api.advanced_schemas import (
    AdvancedCriteriaData,
    AdvancedQueryForm,
    AdvancedResultRow,
    AdvancedResultsResponse,
    AdvancedSearchData,
    AdvancedSearchResponse,
    OpenResultRequest,
)
from bemtevi.api.deps import PlatformDep, allowed_route
from bemtevi.api.paging import Page, ordering, paging
from bemtevi.api.routers.consultations import consultation_json
from bemtevi.api.schemas import ConsultationResponse, ErrorResponse
from bemtevi.commands.advanced_queries import SORTS
from bemtevi.domain.advanced_errors import AdvancedSearchNotFound
from bemtevi.domain.advanced_query import CREDITS_PER_RESULT, MAX_MATCHES
from bemtevi.domain.principals import Principal

router = APIRouter(tags=["advanced-query"])
SCREEN = "advanced-query"
Searcher = Annotated[Principal, Depends(allowed_route(SCREEN))]
_ERRORS: dict[int | str, dict[str, object]] = {
    402: {"model": ErrorResponse, "description": "Not enough advanced query credits; nothing was charged"},
    404: {"model": ErrorResponse, "description": "No advanced query configuration, or no such search"},
}


def _search_id(value: str) -> UUID:
    try:
        return UUID(value)
    except ValueError:
        raise AdvancedSearchNotFound() from None


@router.post("/advanced-queries", response_model=AdvancedSearchResponse, responses=_ERRORS)
def advanced_search(body: AdvancedQueryForm, principal: Searcher, platform: PlatformDep) -> AdvancedSearchResponse:
    outcome = platform.advanced.search(principal, body.model_dump())
    return AdvancedSearchResponse(
        data=AdvancedSearchData(
            id=str(outcome.search_id),
            total=outcome.total,
            capped=outcome.capped,
            maxMatches=MAX_MATCHES,
            costPerResult=CREDITS_PER_RESULT,
            available=outcome.available,
        ),
        position=outcome.position,
    )


@router.get("/advanced-queries/{search_id}/results", response_model=AdvancedResultsResponse, responses=_ERRORS)
def advanced_results(
    search_id: Annotated[str, Path(max_length=64)],
    principal: Searcher,
    platform: PlatformDep,
    page: Annotated[Page, Depends(paging(default_size=10, max_size=100))],
    order: Annotated[str | None, Depends(ordering(SORTS))] = None,
) -> AdvancedResultsResponse:
    key = (order or "name").lstrip("-")
    listed = platform.advanced.results(
        principal, _search_id(search_id), page.offset, page.size, key, bool(order and order.startswith("-"))
    )
    return AdvancedResultsResponse(
        data=[AdvancedResultRow(**row) for row in listed.rows],
        total=listed.total,
        capped=listed.capped,
        page=page.number,
        perPage=page.size,
        costPerResult=CREDITS_PER_RESULT,
        criteria=AdvancedCriteriaData(**listed.criteria),
    )


@router.post(
    "/advanced-queries/{search_id}/results/{ref}",
    response_model=ConsultationResponse,
    responses=_ERRORS,
)
async def open_advanced_result(
    search_id: Annotated[str, Path(max_length=64)],
    ref: Annotated[int, Path(ge=1, le=2**62)],
    principal: Searcher,
    platform: PlatformDep,
    body: Annotated[OpenResultRequest | None, Body(description="Optional: what the opening is for")] = None,
) -> Response:
    purpose = body.purpose if body is not None else None
    outcome = await platform.advanced.open_async(principal, _search_id(search_id), ref, purpose)
    return Response(consultation_json(outcome), media_type="application/json")
