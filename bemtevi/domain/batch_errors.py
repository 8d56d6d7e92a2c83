"""The error catalogue's refusals of batches and their files (issue 18; spec section 8).

Part of the catalogue of ``errors`` (its ``catalogue()`` lists these too): the same ``DomainError`` with a
stable ``code``, the specification's English ``message`` and the HTTP status.
"""

from __future__ import annotations

from bemtevi.domain.errors import DomainError

# -- batches and manual enrichment (issue 18) ---------------------------------------------------


class BatchNotFound(DomainError):
    code, message, status = "batch_not_found", "Batch not found", 404


class BatchStillOpen(DomainError):
    """Only an enrichment that is over is activated or inactivated (a running one is canceled instead)."""

    code, message, status = "batch_still_open", "Only a finished enrichment can be activated or inactivated", 409


class BatchInactive(DomainError):
    """An inactivated enrichment's return file is not served until it is activated again."""

    code, message, status = "batch_inactive", "This enrichment is inactive", 409


class BatchDisabled(DomainError):
    """The group's ``allowUploadingManualQueries`` is off."""

    code, message, status = "batch_disabled", "Batch query is disabled", 403


class BatchLimitReached(DomainError):
    """Too many of the group's batches are waiting or processing at once."""

    code, message, status = "batch_limit_reached", "Group has reached the maximum number of batch queries", 429


class WebhookNotAllowed(DomainError):
    """A webhook URL that is not http(s), or whose host resolves to an address of the deployment's own network
    (loopback, private, link-local, reserved): the server would be the customer's way into it."""

    code, message, status = (
        "webhook_not_allowed",
        "The webhook URL must be an http:// or https:// address on the public internet",
        422,
    )


class UploadNotFound(DomainError):
    """An upload id that is unknown, of another user, or already submitted."""

    code, message, status = "upload_not_found", "Upload not found: send the file again", 404


class FileTooLarge(DomainError):
    code, message, status = "file_too_large", "File size exceeds 10MB limit", 413


class EntryRequired(DomainError):
    code, message, status = "entry_required", "Entry must be greater than zero", 422


class ReturnRequired(DomainError):
    code, message, status = "return_required", "Return cannot be empty", 422


class NoValidDocuments(DomainError):
    code, message, status = "no_valid_documents", "The file has no valid CPF or CNPJ", 422


class BatchNotCancellable(DomainError):
    code, message, status = "batch_not_cancellable", "Only a waiting or processing batch can be canceled", 409


class BatchNotDeletable(DomainError):
    code, message, status = "batch_not_deletable", "Cancel the batch before deleting it", 409


class BatchNotRunnable(DomainError):
    """A runner's step on a batch that is over (or not started): the step is refused, nothing moves."""

    code, message, status = "batch_not_runnable", "The batch is not being processed", 409


class ReturnNotReady(DomainError):
    code, message, status = "return_not_ready", "The return file is not available yet", 404


# -- batch files (issue 18) ---------------------------------------------------------------------


class FileEmpty(DomainError):
    code, message, status = "file_empty", "The file is empty", 422


class FileTypeNotAllowed(DomainError):
    code, message, status = "file_type_not_allowed", "Only TXT, CSV and XLSX files are accepted", 422


class FilePasswordProtected(DomainError):
    code, message, status = "file_password_protected", "Password-protected files are not accepted", 422


class XlsxUnreadable(DomainError):
    code, message, status = "xlsx_unreadable", "Erro ao ler arquivo XLSX.", 422


class TooManyRecords(DomainError):
    """A batch file past the records a batch may hold (``BEMTEVI_BATCH_MAX_RECORDS``), found while reading it."""

    code, message, status = "too_many_records", "The file has more records than a batch accepts", 413

    def __init__(self, limit: int) -> None:
        super().__init__(f"The file has more than {limit:,} records, the most a batch accepts", field="file")
        self.limit = limit


class FileEncoding(DomainError):
    code, message, status = "file_encoding", "The file's text must be UTF-8 or Latin-1", 422


class BatchStopped(DomainError):
    """A batch's run stopped between chunks because it was asked to (canceled, past its time limit)."""

    code, message, status = "batch_stopped", "The batch was stopped", 409
