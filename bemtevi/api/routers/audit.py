"""The audit log: every change with who made it, for which tenant and when; filters and the export (CSV or XLSX).

Admins and owners read their own group's log and their subtree's; the super-admin (at the root)
reads everything. A group outside one's subtree is 'not found'.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Annotated, Any, Literal
from uuid import UUID

from fastapi import APIRouter, Depends, Query, Request, Response

from bemtevi.api.audit_export import audit_table, export_language
from bemtevi.api.bounds import KEY_MAX, SHORT_TEXT_MAX
from bemtevi.api.deps import PlatformDep, PositionQuery, allowed_route, on_the_loop, wait_for_position
from bemtevi.api.exports import Cell, ExportLanguage, file_response, pdf_bytes
from bemtevi.api.group_schemas import (
    AuditActor,
    AuditEventKind,
    AuditResponse,
    AuditRow,
    DataSubjectConsultation,
    DataSubjectResponse,
    SignatureCheckResponse,
    SigningKeyResponse,
)
from bemtevi.api.paging import Page, ordering, paging
from bemtevi.api.schemas import ErrorResponse
from bemtevi.bootstrap import Platform
from bemtevi.commands.data_subject import record_data_subject_report
from bemtevi.domain.batch_errors import FileTooLarge
from bemtevi.domain.documents import Document
from bemtevi.domain.errors import GroupNotFound, InvalidData
from bemtevi.domain.principals import Principal
from bemtevi.projections.audit_queries import AUDIT_ORDER, audit_actors, audit_page, audit_types
from bemtevi.projections.base import SAO_PAULO
from bemtevi.projections.credit_queries import subtree_ids
from bemtevi.projections.data_subject import consultations_of_document, reader_of_report

router = APIRouter(prefix="/audit", tags=["audit"])

AuditReader = Annotated[Principal, Depends(allowed_route("audit-log"))]
# The super-admin and the data-protection officer: the only menus with the report's screen.
DataSubjectReader = Annotated[Principal, Depends(allowed_route("data-subject-report"))]

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


class AuditFilters:
    def __init__(
        self,
        group_id: Annotated[str | None, Query(max_length=KEY_MAX)] = None,
        user_id: Annotated[str | None, Query(max_length=KEY_MAX)] = None,
        type: Annotated[str | None, Query(max_length=SHORT_TEXT_MAX)] = None,
        target: Annotated[
            str | None, Query(max_length=SHORT_TEXT_MAX, description="The target's id or part of its name")
        ] = None,
        start: Annotated[date | None, Query(alias="from")] = None,
        end: Annotated[date | None, Query(alias="to")] = None,
        children: Annotated[bool, Query(description="Include the group's subtree")] = False,
    ) -> None:
        if start and end and start > end:
            raise InvalidData("Invalid date", field="from")
        self.group_id = group_id
        self.user_id = user_id or None
        self.type = type or None
        self.target = (target or "").strip() or None
        self.start = _midnight_utc(start) if start else None
        self.end = _midnight_utc(end + timedelta(days=1)) if end else None
        self.children = children


def _midnight_utc(day: date) -> datetime:
    """A São Paulo calendar day's start as UTC wall time (the read model keeps UTC)."""
    return datetime.combine(day, time(), SAO_PAULO).astimezone(UTC).replace(tzinfo=None)


def _groups(platform: Platform, principal: Principal, filters: AuditFilters) -> list[str]:
    cur = platform.store.cursor()
    mine = subtree_ids(cur, str(principal.group_id))
    group_id = filters.group_id or str(principal.group_id)
    if group_id not in mine:
        raise GroupNotFound()
    if filters.children:
        return subtree_ids(cur, group_id)
    return [group_id]


def _rows(
    platform: Platform, groups: list[str], filters: AuditFilters, **page: Any
) -> tuple[list[dict[str, Any]], int]:
    return audit_page(
        platform.store.cursor(),
        groups,
        user_id=filters.user_id,
        event_type=filters.type,
        target=filters.target,
        start=filters.start,
        end=filters.end,
        **page,
    )


@router.get("", response_model=AuditResponse, responses={404: {"model": ErrorResponse}})
def audit_log(
    principal: AuditReader,
    platform: PlatformDep,
    filters: Annotated[AuditFilters, Depends(on_the_loop(AuditFilters))],
    page: Annotated[Page, Depends(paging(default_size=50, max_size=200))],
    order: Annotated[str | None, Depends(ordering(AUDIT_ORDER))],
    position: PositionQuery = None,
) -> AuditResponse:
    up_to_date = wait_for_position(platform, position)
    groups = _groups(platform, principal, filters)
    rows, total = _rows(platform, groups, filters, order=order, offset=page.offset, limit=page.size)
    return AuditResponse(
        data=[AuditRow.model_validate(r) for r in rows],
        total=total,
        page=page.number,
        perPage=page.size,
        types=audit_types(platform.store.cursor()),
        kinds=list(AuditEventKind),
        actors=[AuditActor.model_validate(a) for a in audit_actors(platform.store.cursor(), groups)],
        upToDate=up_to_date,
    )


@router.get(
    "/export",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}, XLSX: {}}}, 404: {"model": ErrorResponse}},
)
def export_audit(
    request: Request,
    principal: AuditReader,
    platform: PlatformDep,
    filters: Annotated[AuditFilters, Depends(on_the_loop(AuditFilters))],
    order: Annotated[str | None, Depends(ordering(AUDIT_ORDER))],
    lang: Annotated[
        str | None, Query(max_length=KEY_MAX, description="pt-BR or en-US; by default the Accept-Language's")
    ] = None,
    format: Annotated[Literal["csv", "xlsx"], Query()] = "csv",
) -> Response:
    """The rows as the screen says them (one sentence each, names for ids) in the person's language, CSV (';',
    UTF-8) or XLSX, named audit_dd-mm-yyyy_hh-mm-ss, times in São Paulo and in UTC."""
    groups = _groups(platform, principal, filters)
    rows, _ = _rows(platform, groups, filters, order=order, limit=None)
    language = export_language(lang, request.headers.get("accept-language"))
    header, table = audit_table(rows, language)
    return file_response(header, table, format, "audit")


# -- the data-subject report (LGPD art. 18, 37): the super-admin's and the data-protection officer's, across
# every tenant; each run is audited --

DATA_SUBJECT_COLUMNS = {
    "pt-BR": [
        "Data/hora",
        "Empresa",
        "Usuário",
        "E-mail",
        "Canal",
        "Tipo de consulta",
        "Situação",
        "Finalidade",
        "Consulta",
        "Resultado guardado até",
    ],
    "en-US": [
        "Date/time",
        "Company",
        "User",
        "E-mail",
        "Channel",
        "Query type",
        "Status",
        "Purpose",
        "Consultation",
        "Result kept until",
    ],
}


def _data_subject(
    platform: Platform, principal: Principal, document: str, export: str | None
) -> tuple[Document, list[dict[str, Any]], int]:
    parsed = Document.parse(document)
    rows = consultations_of_document(platform.store.cursor(), parsed.number)
    # A vendor's result is personal data held until its validity: the report says which are still held.
    held = platform.kept_results.held_for(parsed.number)
    for row in rows:
        until = held.get(UUID(str(row["consultationId"])))
        row["keptUntil"] = datetime.fromtimestamp(until, UTC).replace(tzinfo=None) if until else None
    position = record_data_subject_report(platform.app, principal.actor, parsed, len(rows), export)
    return parsed, rows, position


def _sao_paulo(moment: datetime | None) -> str:
    return moment.replace(tzinfo=UTC).astimezone(SAO_PAULO).strftime("%d/%m/%Y %H:%M:%S") if moment else "-"


DocumentQuery = Annotated[
    str, Query(max_length=SHORT_TEXT_MAX, description="A CPF or CNPJ, with or without punctuation")
]


@router.get(
    "/data-subject",
    response_model=DataSubjectResponse,
    responses={403: {"model": ErrorResponse}},
)
def data_subject_report(
    principal: DataSubjectReader, platform: PlatformDep, document: DocumentQuery, position: PositionQuery = None
) -> DataSubjectResponse:
    """Every consultation of a CPF or CNPJ in every tenant: who, which group, when, channel, query type, the
    purpose its user gave, and until when its result is still held."""
    wait_for_position(platform, position)
    parsed, rows, position = _data_subject(platform, principal, document, None)
    return DataSubjectResponse(
        document=parsed.number,
        documentType=parsed.kind,
        data=[DataSubjectConsultation.model_validate(r) for r in rows],
        position=position,
    )


PDF_WIDTHS = (26, 30, 26, 36, 14, 22, 16, 44, 34, 26)  # mm, the columns above on a landscape A4
PDF_TEXTS = {
    "pt-BR": {
        "title": "Relatório do titular de dados (LGPD art. 18)",
        "document": "Documento",
        "issued": "Emitido em",
        "by": "Emitido por",
        "count": "Consultas",
        "footer": "Arquivo assinado pela plataforma ({algorithm}, chave {key_id}). A assinatura está no cabeçalho "
        "X-Signature da resposta que o entregou; verifique-a com a chave pública da plataforma ou enviando o "
        "arquivo e a assinatura a /api/audit/data-subject/verify.",
    },
    "en-US": {
        "title": "Data-subject report (LGPD art. 18)",
        "document": "Document",
        "issued": "Issued at",
        "by": "Issued by",
        "count": "Consultations",
        "footer": "File signed by the platform ({algorithm}, key {key_id}). The signature is in the X-Signature header "
        "of the answer that delivered it; verify it with the platform's public key or by sending the file and the "
        "signature to /api/audit/data-subject/verify.",
    },
}
VERIFY_MAX_BYTES = 10 * 1024 * 1024
ALGORITHM: Literal["Ed25519"] = "Ed25519"  # the platform's report signer (infra/report_signing.py)
PDF_BODY = {"content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}}}


@router.get(
    "/data-subject/export",
    response_class=Response,
    responses={
        200: {
            "content": {"text/csv": {}, "application/pdf": {}},
            "headers": {
                "X-Signature": {"description": "PDF only: the Ed25519 signature of the file's bytes, base64"},
                "X-Signature-Key-Id": {"description": "PDF only: which platform key signed it"},
            },
        },
        400: {"model": ErrorResponse},
        403: {"model": ErrorResponse},
    },
)
def export_data_subject_report(
    principal: DataSubjectReader,
    platform: PlatformDep,
    document: DocumentQuery,
    lang: ExportLanguage = "pt-BR",
    format: Annotated[Literal["csv", "pdf"], Query(description="pdf: signed by the platform")] = "csv",
) -> Response:
    """The report as a file: CSV, or a PDF signed by the platform (Ed25519 over its bytes, in ``X-Signature``)."""
    parsed, rows, _ = _data_subject(platform, principal, document, format)
    table = (
        [
            _sao_paulo(r["createdAt"]),
            r["groupName"] or r["groupId"],
            r["userName"] or "-",
            r["userEmail"] or "-",
            r["channel"],
            r["queryType"],
            r["status"],
            r["purpose"] or "-",
            r["consultationId"],
            _sao_paulo(r["keptUntil"]),
        ]
        for r in rows
    )
    signer = platform.report_signer

    def report_pdf(header: Sequence[str], cells: Iterable[Sequence[Cell]]) -> bytes:
        texts = PDF_TEXTS[lang]
        now = datetime.now(SAO_PAULO).strftime("%d/%m/%Y %H:%M:%S")
        facts = [
            (texts["document"], f"{parsed.kind.upper()} {parsed.number}"),
            (texts["issued"], now),
            (texts["by"], reader_of_report(platform.store.cursor(), str(principal.user_id))),
            (texts["count"], str(len(rows))),
        ]
        footer = texts["footer"].format(algorithm=ALGORITHM, key_id=signer.key_id)
        return pdf_bytes(texts["title"], facts, header, cells, PDF_WIDTHS, footer=footer)

    base = "relatorio_titular" if lang == "pt-BR" else "data_subject_report"
    response = file_response(DATA_SUBJECT_COLUMNS[lang], table, format, f"{base}_{parsed.number}", pdf=report_pdf)
    if format == "pdf":  # signed over the bytes answered
        response.headers.update(
            {
                "X-Signature": signer.sign(bytes(response.body)),
                "X-Signature-Algorithm": ALGORITHM,
                "X-Signature-Key-Id": signer.key_id,
            }
        )
    return response


# -- checking a signed report: public, a receiver of the file has no account --


@router.get("/data-subject/signing-key", response_model=SigningKeyResponse)
def report_signing_key(platform: PlatformDep) -> SigningKeyResponse:
    """The platform's public key that signs the report's PDF, to verify a file offline."""
    signer = platform.report_signer
    return SigningKeyResponse(algorithm=ALGORITHM, keyId=signer.key_id, publicKeyPem=signer.public_key_pem)


@router.post(
    "/data-subject/verify",
    response_model=SignatureCheckResponse,
    responses={413: {"model": ErrorResponse}},
    openapi_extra={"requestBody": {"required": True, **PDF_BODY}},
)
async def verify_report_signature(
    request: Request,
    platform: PlatformDep,
    signature: Annotated[str, Query(max_length=SHORT_TEXT_MAX, description="The X-Signature the file came with")],
) -> SignatureCheckResponse:
    """Whether the file sent as the body is, byte for byte, one the platform signed with that signature."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > VERIFY_MAX_BYTES:
        raise FileTooLarge()
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > VERIFY_MAX_BYTES:
            raise FileTooLarge()
        chunks.append(chunk)
    signer = platform.report_signer
    return SignatureCheckResponse(
        valid=signer.verify(b"".join(chunks), signature.strip()), algorithm=ALGORITHM, keyId=signer.key_id
    )
