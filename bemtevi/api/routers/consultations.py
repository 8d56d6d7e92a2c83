"""POST /api/consultations: a unit lookup by CPF or CNPJ, charged one unit credit."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from bemtevi.api.deps import PlatformDep, allowed_route
from bemtevi.api.schemas import ConsultationData, ConsultationRequest, ConsultationResponse, ErrorResponse
from bemtevi.bootstrap import Platform
from bemtevi.commands.identity import Principal

router = APIRouter(tags=["consultations"])

LOOKUP_PATH = "/consultations"
LOOKUP_ROUTE = "normal-query"


@router.post(
    LOOKUP_PATH,
    response_model=ConsultationResponse,
    responses={
        402: {"model": ErrorResponse, "description": "Not enough credits; nothing was charged"},
        403: {"model": ErrorResponse},
        422: {"model": ErrorResponse, "description": "Invalid document type or document"},
    },
)
async def run_consultation(
    body: ConsultationRequest,
    principal: Annotated[Principal, Depends(allowed_route(LOOKUP_ROUTE))],
    platform: PlatformDep,
) -> ConsultationResponse:
    return await consult(platform, principal, body)


async def consult(platform: Platform, principal: Principal, body: ConsultationRequest) -> ConsultationResponse:
    """The lookup itself, shared by this route and the hot path (``bemtevi.api.hot_path``)."""
    outcome = await platform.consultations.run_unit_query_async(principal, body.document, body.query_type)
    # Built from values that are valid by construction, so not validated again (per lookup); the
    # route's response_model still checks them, and the hot path's tests compare the two answers.
    return ConsultationResponse.model_construct(
        data=ConsultationData.model_construct(
            id=str(outcome.consultation_id),
            document=outcome.document.number,
            documentType=outcome.document.kind,
            queryType=outcome.query_type.key,
            status=outcome.status.value,
            credits=1 if outcome.status.value == "done" else 0,
            createdAt=outcome.created_at.strftime("%Y-%m-%d %H:%M:%S"),
            result=outcome.result,
        ),
        position=outcome.position,
    )
