"""The data-subject report (LGPD art. 18, 37): the super-admin's and the data-protection officer's, across every
tenant; each run is audited. Every consultation of a CPF or CNPJ: its unit lookups (``consultations``) and the
batches whose run looked it up (the read side's index of the batches over, ``subject_batch_documents``; the files of
those still running, or canceled while running and not yet stopped by their runner, ``BatchCommands.looked_up``;
each described by ``subject_batches``), in JSON, CSV or a PDF signed by the platform; the signature's public check.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Annotated, Any, Literal
from uuid import UUID

from fastapi import APIRouter, Depends, Query, Request, Response

from bemtevi.api.bounds import SHORT_TEXT_MAX
from bemtevi.api.deps import PlatformDep, PositionQuery, allowed_route, wait_for_position
from bemtevi.api.exports import Cell, ExportLanguage, file_response, pdf_bytes
from bemtevi.api.group_schemas import (
    DataSubjectConsultation,
    DataSubjectResponse,
    SignatureCheckResponse,
    SigningKeyResponse,
)
from bemtevi.api.schemas import ErrorResponse
from bemtevi.commands.data_subject import record_data_subject_report
from bemtevi.domain.batch_errors import FileTooLarge
from bemtevi.domain.documents import Document
from bemtevi.domain.principals import Principal
from bemtevi.projections.base import SAO_PAULO
from bemtevi.projections.data_subject import (
    batch_consultations_of_document,
    batches_of_document,
    consultations_of_document,
    reader_of_report,
)

router = APIRouter(prefix="/audit", tags=["audit"])

# The super-admin and the data-protection officer: the only menus with the report's screen.
DataSubjectReader = Annotated[Principal, Depends(allowed_route("data-subject-report"))]

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
        "Referência",
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
        "Reference",
        "Result kept until",
    ],
}


# How the files name a batch a document was looked up in ("Reference"), by how it came (``batch_origin``).
BATCH_ORIGINS = {
    "pt-BR": {"batch": "Lote", "manual": "Enriquecimento manual", "api": "Lote pela API"},
    "en-US": {"batch": "Batch", "manual": "Manual enrichment", "api": "API batch"},
}


def _reference(row: dict[str, Any], lang: str) -> str:
    """A unit lookup's id; a batch's kind, file name and id."""
    if row["batchId"] is None:
        return str(row["consultationId"])
    origin = BATCH_ORIGINS[lang].get(row["origin"], row["origin"])
    return f"{origin} {row['fileName']} ({row['batchId']})"


def _data_subject(
    platform: PlatformDep, principal: Principal, document: str, export: str | None
) -> tuple[Document, list[dict[str, Any]], int]:
    parsed = Document.parse(document)
    cur = platform.store.cursor()
    looked_up, running = batches_of_document(cur, parsed.number)
    looked_up |= platform.batches.looked_up(running, parsed.number)
    # Newest first across both, each in its own order (the lookups' is the log's).
    rows = list(
        heapq.merge(
            consultations_of_document(cur, parsed.number),
            batch_consultations_of_document(cur, parsed.number, looked_up),
            key=lambda r: r["createdAt"],
            reverse=True,
        )
    )
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
    """Every consultation of a CPF or CNPJ in every tenant, a batch's documents among them: who, which group,
    when, channel, query type, the purpose its user gave (a batch's: its sender's), the batch it was in, and until
    when its result is still held."""
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
            _reference(r, lang),
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
