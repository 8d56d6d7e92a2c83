"""POST /api/consultations: a unit lookup by CPF or CNPJ, charged one unit credit."""

from __future__ import annotations

from typing import Annotated

import orjson
from fastapi import APIRouter, Depends, Response

from bemtevi.api.deps import PlatformDep, allowed_route
from bemtevi.api.schemas import (
    ConsultationData,
    ConsultationRequest,
    ConsultationResponse,
    ErrorResponse,
    utc_text,
)
from bemtevi.commands.consultations import ConsultationOutcome
from bemtevi.domain.principals import Principal

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
) -> Response:
    outcome = await platform.consultations.run_unit_query_async(
        principal, body.document, body.query_type, purpose=body.purpose
    )
    # The answer's bytes as the response model writes them (``consultation_json``), without FastAPI
    # validating again what the lookup built: API clients call this route in loops.
    return Response(consultation_json(outcome), media_type="application/json")


def consultation_response(outcome: ConsultationOutcome) -> ConsultationResponse:
    """The route's answer for a lookup's outcome, as its response model (``consultation_json`` writes it)."""
    # Built from values that are valid by construction, so not validated again (per lookup).
    return ConsultationResponse.model_construct(
        data=ConsultationData.model_construct(
            id=str(outcome.consultation_id),
            document=outcome.document.number,
            documentType=outcome.document.kind,
            queryType=outcome.query_type.key,
            status=outcome.status.value,
            credits=1 if outcome.status.value == "done" else 0,
            createdAt=outcome.created_at,
            result=outcome.result,
        ),
        position=outcome.position,
    )


# Values orjson writes, or may write, its own way (dates, dataclasses, subclasses of str, int,
# dict, list) are refused instead, as are those it cannot write (integers beyond 64 bits, keys
# that are not strings): such an answer is written by pydantic, as the route writes it.
_PLAIN_JSON_ONLY = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS


def consultation_json(outcome: ConsultationOutcome) -> bytes:
    """The bytes of the route's answer for ``outcome``: what FastAPI would write for
    ``consultation_response(outcome)`` through the route's response model.

    For the plain JSON values a supplier answers with, orjson writes the same bytes for a third of
    the CPU; anything else is written by pydantic. tests/api/test_consultation_answer.py compares
    them with FastAPI's own serialisation of the response model, byte for byte.
    """
    status = outcome.status.value
    answer = {
        "data": {
            # orjson writes a UUID as str() does, without str()'s Python code.
            "id": outcome.consultation_id,
            "document": outcome.document.number,
            "documentType": outcome.document.kind,
            "queryType": outcome.query_type.key,
            "status": status,
            "credits": 1 if status == "done" else 0,
            "createdAt": utc_text(outcome.created_at),
            "result": outcome.result,
        },
        "position": outcome.position,
    }
    try:
        return orjson.dumps(answer, option=_PLAIN_JSON_ONLY)
    except orjson.JSONEncodeError:
        return consultation_response(outcome).model_dump_json().encode()
