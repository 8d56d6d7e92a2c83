"""Request and answer models of the public API (its own, versioned with it)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from bemtevi.api.bounds import KEY_MAX, DocumentText, Key, PurposeText, purpose_field


class LookupRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    document: DocumentText = Field(min_length=1, description="CPF (11 digits) or CNPJ (14 digits), punctuation allowed")
    queryType: Key | None = Field(
        default=None, description="Query type key (one the token may run); the document's default if absent"
    )
    purpose: PurposeText | None = purpose_field()


class BatchSubmitRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    uploadId: str = Field(max_length=KEY_MAX, description="From `POST /batches/uploads`")
    observation: str | None = Field(default=None, max_length=500)
    purpose: PurposeText | None = purpose_field()
    webhookUrl: str | None = Field(default=None, max_length=2000, description="Called when the batch is over")
    webhookSecret: str | None = Field(
        default=None,
        max_length=200,
        description="Signs the webhook's body: header X-Signature: sha256=<hex HMAC-SHA256 of the raw body>",
    )


class TokenQueryType(BaseModel):
    key: str
    name: str
    description: str
    documentType: str = Field(description="cpf or cnpj: the document its lookups take first")


class TokenInfo(BaseModel):
    """The calling token: what it may run and its limits."""

    accessKey: str
    groupId: str
    queryTypes: list[TokenQueryType]
    perSecond: int | None
    perDay: int | None
