"""The public API's operations. Each is the panel's own path for the same thing (the lookup's command, the
batch routes, the balances), called with the token's principal: no rule is written twice. A lookup goes
on the ``api`` channel and a batch is submitted on the API category: both are charged to the group's API credits."""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Header, Query, Request, Response
from fastapi.responses import FileResponse
from starlette.concurrency import run_in_threadpool

from bemtevi.api.batch_schemas import BatchResponse, BatchUpload, SubmitBatchRequest, SubmittedBatch
from bemtevi.api.bounds import KEY_MAX
from bemtevi.api.credit_schemas import BalancesResponse
from bemtevi.api.deps import PositionQuery, wait_for_position
from bemtevi.api.exports import XLSX, ExportLanguage, SpreadsheetFormat
from bemtevi.api.report_schemas import ReportResponse
from bemtevi.api.routers import batches as panel_batches
from bemtevi.api.routers import credits as panel_credits
from bemtevi.api.routers import reports as panel_reports
from bemtevi.api.routers import suppliers as panel_results
from bemtevi.api.routers.batches import UPLOAD_BODY
from bemtevi.api.routers.consultations import consultation_json
from bemtevi.api.routers.suppliers import KeptResultResponse
from bemtevi.api.schemas import ConsultationResponse
from bemtevi.api.v1.deps import CallerDep
from bemtevi.api.v1.schemas import BatchSubmitRequest, LookupRequest, TokenInfo, TokenQueryType
from bemtevi.domain.errors import DomainError
from bemtevi.domain.query_types import Category

# Each operation's summary and docstring are what the API screen shows in en-US, in the app's terms ("query");
# the web app keeps only their pt-BR words, by operationId.
router = APIRouter()
BATCH_OPERATION = "POST /api/v1/batches"


def _platform(request: Request) -> Any:
    return request.app.state.platform


@router.get("/me", response_model=TokenInfo, tags=["token"], summary="Token info")
def token_info(caller: CallerDep, request: Request) -> TokenInfo:
    """The calling token: the query types it may run and its limits."""
    platform = _platform(request)
    types = []
    for key in sorted(caller.query_types):
        try:
            query_type = platform.query_types.get(key)
        except DomainError:
            continue  # removed from the catalogue since
        types.append(
            TokenQueryType(
                key=key, name=query_type.name, description=query_type.description, documentType=query_type.document_kind
            )
        )
    return TokenInfo(
        accessKey=caller.access_key,
        groupId=str(caller.principal.group_id),
        queryTypes=types,
        perSecond=caller.limits.per_second,
        perDay=caller.limits.per_day,
    )


IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        max_length=255,
        description="A key of your own (a UUID): a retry with the same key and body answers the first outcome, "
        "never charged again (kept 24 h)",
    ),
]


@router.post("/lookups", response_model=ConsultationResponse, tags=["lookups"], summary="Unit query")
async def lookup(
    body: LookupRequest, caller: CallerDep, request: Request, idempotency_key: IdempotencyKey = None
) -> Response:
    """A query by CPF or CNPJ: one API credit when found (`data.credits`), nothing otherwise."""
    outcome = await _platform(request).api_lookups.lookup(
        caller,
        body.document,
        body.queryType,
        idempotency_key=idempotency_key,
        body=b"" if idempotency_key is None else body.model_dump_json().encode(),  # a key's fingerprint only
        purpose=body.purpose,
    )
    return Response(consultation_json(outcome), media_type="application/json")


@router.get("/lookups/{lookup_id}", response_model=KeptResultResponse, tags=["lookups"], summary="Reopen a query")
def reopen_lookup(lookup_id: str, caller: CallerDep, request: Request, position: PositionQuery = None) -> Any:
    """A query's result again, free, within its query type's validity (a query of the token's group)."""
    return panel_results.kept_result(lookup_id, caller.principal, _platform(request), position)


@router.post(
    "/batches/uploads",
    status_code=201,
    response_model=BatchUpload,
    tags=["batches"],
    openapi_extra=UPLOAD_BODY,
    summary="Upload a batch file",
)
async def upload_batch(
    request: Request,
    caller: CallerDep,
    layoutId: Annotated[str, Query(min_length=1, max_length=KEY_MAX)],
    fileName: Annotated[str, Query(min_length=1, max_length=255)],
    queryType: Annotated[str | None, Query(max_length=KEY_MAX)] = None,
) -> Any:
    """Check and preview a file (the body is the file): free. Submit it with `POST /batches`."""
    return await panel_batches.upload_preview(
        request, caller.principal, _platform(request), layoutId, fileName, queryType, Category.API
    )


@router.post("/batches", status_code=201, response_model=SubmittedBatch, tags=["batches"], summary="Submit a batch")
async def submit_batch(
    body: BatchSubmitRequest, caller: CallerDep, request: Request, idempotency_key: IdempotencyKey = None
) -> Any:
    """Submit an uploaded file: one API credit per valid document reserved now, charged for those found."""
    platform = _platform(request)
    panel_body = SubmitBatchRequest(
        uploadId=body.uploadId,
        observation=body.observation,
        webhookUrl=body.webhookUrl,
        webhookSecret=body.webhookSecret,
        purpose=body.purpose,
    )

    async def first(_: UUID | None = None) -> SubmittedBatch:
        submitted: SubmittedBatch = await run_in_threadpool(
            panel_batches.submit_upload, panel_body, caller.principal, platform, Category.API
        )
        return submitted

    if idempotency_key is None:
        return await first()
    return await platform.api_lookups.idempotency.run(
        caller,
        idempotency_key,
        BATCH_OPERATION,
        body.model_dump_json().encode(),
        first,
        lambda batch_id: SubmittedBatch(id=str(batch_id), position=platform.app.max_position()),
        lambda submitted: UUID(submitted.id),
        lambda _: False,  # a batch's id is its command's own: a dead claim's submission is tried again
    )


@router.get("/batches/{batch_id}", response_model=BatchResponse, tags=["batches"], summary="Batch status")
def batch_status(batch_id: str, caller: CallerDep, request: Request, position: PositionQuery = None) -> Any:
    """A batch of the token's: its status, counts and progress."""
    return panel_batches.get_batch(batch_id, caller.principal, _platform(request), position)


@router.get(
    "/batches/{batch_id}/return",
    response_class=FileResponse,
    tags=["batches"],
    responses={200: {"content": {"application/octet-stream": {}}}},
    summary="Return file",
)
def batch_return(batch_id: str, caller: CallerDep, request: Request) -> Any:
    """The return file, once the batch is available."""
    return panel_batches.download_return_file(batch_id, caller.principal, _platform(request))


@router.get("/balances", response_model=BalancesResponse, tags=["balances"], summary="Balances")
def balances(caller: CallerDep, request: Request, position: PositionQuery = None) -> Any:
    """Used and limit per credit category of the token's group."""
    return panel_credits.balances(caller.principal, _platform(request), position)


@router.get("/reports", response_model=ReportResponse, tags=["reports"], summary="Report")
def report(
    caller: CallerDep, request: Request, filters: panel_reports.FiltersQuery, position: PositionQuery = None
) -> Any:
    """The query report of the token's group (`includeChildren`: with every group below it), as the
    reports screen shows it."""
    platform = _platform(request)
    up_to_date = wait_for_position(platform, position)
    # The token stands for its group, whose administrators issued it: it may add the groups below.
    return ReportResponse(data=panel_reports.build_report(platform, caller.principal, filters, True, up_to_date))


@router.get(
    "/reports/export",
    response_class=Response,
    tags=["reports"],
    responses={200: {"content": {"text/csv": {}, XLSX: {}}}},
    summary="Export the report",
)
def export_report(
    caller: CallerDep,
    request: Request,
    filters: panel_reports.FiltersQuery,
    format: SpreadsheetFormat = "csv",
    lang: ExportLanguage = "pt-BR",
) -> Response:
    """The report's rows as a file: `;` CSV (UTF-8) or XLSX."""
    data = panel_reports.build_report(_platform(request), caller.principal, filters, True)
    return panel_reports.export_response(data, format, lang)
