"""The error catalogue of the specification (section 8).

Every refusal the product gives is a ``DomainError`` with a stable ``code`` (the web app
translates by code) and the specification's English ``message`` (what API clients read).
The HTTP status lives here too so that the API layer stays a thin mapping. Every refusal is
declared in this module or in ``batch_errors``, ``advanced_errors``, ``two_factor_errors`` and
``api_client_errors`` (a test walks the package for others): ``catalogue()`` is then the whole list,
which the API publishes in its OpenAPI schema for the web app's translations.
"""

from __future__ import annotations

import sys


class DomainError(Exception):
    code: str = "unexpected_error"
    message: str = "An unexpected error has occurred. Please try again later."
    status: int = 400

    def __init__(self, message: str | None = None, *, field: str | None = None) -> None:
        self.message = message or type(self).message
        self.field = field
        super().__init__(self.message)


class InvalidCredentials(DomainError):
    code, message, status = "invalid_credentials", "Invalid email or password", 401


class Unauthorized(DomainError):
    code, message, status = "unauthorized", "Unauthorized", 401


class ExpiredToken(DomainError):
    code, message, status = "expired_token", "Expired token", 401


class AccessDenied(DomainError):
    code, message, status = "access_denied", "Access denied", 403


class UserNotFound(DomainError):
    code, message, status = "user_not_found", "User is not found", 404


class UserInactive(DomainError):
    code, message, status = "user_inactive", "User is inactive", 403


class GroupNotFound(DomainError):
    code, message, status = "group_not_found", "Group does not exist", 404


class GroupInactive(DomainError):
    code, message, status = "group_inactive", "Group is inactive", 403


class SessionUserInactive(Unauthorized):
    """An open session of a user since inactivated or archived: 401, to sign in again (refused)."""

    code, message = UserInactive.code, UserInactive.message


class SessionGroupInactive(Unauthorized):
    """An open session of a group (or under a group) since inactivated."""

    code, message = GroupInactive.code, GroupInactive.message


class InvalidDocumentType(DomainError):
    code, message, status = "invalid_document_type", "Invalid document type", 422


class InvalidDocument(DomainError):
    code, message, status = "invalid_document", "The informed document is invalid", 422


class InvalidEmail(DomainError):
    code, message, status = "invalid_email", "Invalid email", 422


class InvalidPhone(DomainError):
    code, message, status = "invalid_phone", "Invalid phone", 422


class WeakPassword(DomainError):
    code, message, status = "weak_password", "Your password is weak", 422


class PasswordsDoNotMatch(DomainError):
    code, message, status = "passwords_do_not_match", "Passwords do not match", 422


class QueryNotAllowed(DomainError):
    code, message, status = "query_not_allowed", "Group does not have permission for this query type", 403


class QueryNotFound(DomainError):
    code, message, status = "query_not_found", "Query not found or not available", 404


class NotEnoughCredits(DomainError):  # refused before anything is charged (HTTP 402 Payment Required)
    code, message, status = "not_enough_credits", "Not enough manual query credits", 402


class NotEnoughToProvide(DomainError):  # a parent tried to grant more than it has available
    code, message, status = "not_enough_to_provide", "Not enough manual query to provide to this group", 409


class SearchFailed(DomainError):
    code, message, status = "search_failed", "Error performing search", 502


class CreditsUnavailable(DomainError):
    code, message, status = (
        "credits_unavailable",
        "Credits could not be checked right now. Please try again in a moment.",
        503,
    )


class DuplicateValue(DomainError):
    code, message, status = "duplicate", "Already registered", 409


class InvalidData(DomainError):
    code, message, status = "invalid_data", "Invalid data structure: missing required fields", 422


class InvalidPeriod(DomainError):
    """A report's period: a custom one without both days, ending before it starts, or longer than allowed."""

    code, message, status = "invalid_period", "Invalid period", 422


# -- users and profiles ----------------------------------------------------------------------


class CannotDeleteYourself(DomainError):
    code, message, status = "cannot_delete_yourself", "You cannot delete yourself", 403


class CannotChangeYourStatus(DomainError):
    code, message, status = "cannot_change_your_status", "You cannot change your status", 403


class CannotChangeYourRole(DomainError):
    code, message, status = "cannot_change_your_role", "You cannot change your own role", 403


class RoleNeedsPlatformGroup(DomainError):  # the officer's report spans every tenant: never a customer's user
    code, message, status = "role_needs_platform_group", "This role is for the platform's own users only", 422


class WrongCurrentPassword(DomainError):
    code, message, status = "wrong_current_password", "Current password is incorrect", 422


class ImageTooLarge(DomainError):
    code, message, status = "image_too_large", "File size exceeds 1MB limit", 413


class InvalidImage(DomainError):
    code, message, status = "invalid_image", "The file is not a PNG, JPEG or WebP image", 422


class ImageDimensionsTooLarge(DomainError):
    """A file whose header declares more pixels than accepted: refused before it is decoded."""

    code, message, status = "image_dimensions_too_large", "The image has too many pixels", 422

    def __init__(self, size: tuple[int, int] | None, max_pixels: int, *, field: str | None = None) -> None:
        if size is None:  # refused by the decoder's own bound, before it said the size
            message = f"The image declares more than {max_pixels:,} pixels"
        else:
            message = f"The image is {size[0]}x{size[1]} pixels: at most {max_pixels:,} pixels are accepted"
        super().__init__(message, field=field)


class ImageWrongSize(DomainError):
    """A brand image whose pixels are not exactly the specification's size (section 3); the expected
    size travels in the message and as ``expectedWidth``/``expectedHeight``."""

    code, message, status = "image_wrong_size", "The image does not have the expected size in pixels", 422

    def __init__(self, expected: tuple[int, int], actual: tuple[int, int], *, field: str | None = None) -> None:
        super().__init__(
            f"The image must be {expected[0]}x{expected[1]} pixels (it is {actual[0]}x{actual[1]})", field=field
        )
        self.expected_width, self.expected_height = expected


class TextTooLong(DomainError):  # the field's limit travels in the message and as ``limit``
    code, message, status = "text_too_long", "The text is too long", 422

    def __init__(self, limit: int, *, field: str | None = None) -> None:
        super().__init__(f"The text is too long: at most {limit} characters", field=field)
        self.limit = limit


class RequiredField(DomainError):
    code, message, status = "required_field", "Required field", 422


class PurposeRequired(DomainError):  # the group's setting: every consultation says what it is for (LGPD art. 6 I)
    code, message, status = "purpose_required", "This group requires the purpose of each consultation", 422


class TooManyAttempts(DomainError):
    """Too many failed sign-ins or code tries for an account or a client address (HTTP 429)."""

    code, message, status = "too_many_attempts", "Too many attempts, try again in {minutes} minutes", 429

    def __init__(self, minutes: int) -> None:
        super().__init__(f"Too many attempts, try again in {minutes} minutes")
        self.minutes = minutes


class UserNotFoundCreateAccount(DomainError):
    code, message, status = "user_not_found_create_account", "User not found (create an account)", 404


class InvalidCode(DomainError):
    code, message, status = "invalid_code", "Invalid code", 400


class FirstAccessRequired(DomainError):
    """A user at first access must choose a password before anything else."""

    code, message, status = "first_access_required", "Choose a new password to continue", 403


class TermsNotAccepted(DomainError):
    code, message, status = "terms_not_accepted", "You must accept the terms of use", 422


class GoogleTokenInvalid(DomainError):
    code, message, status = "google_token_invalid", "The Google sign-in could not be verified", 401


class ParentDoesNotAllow(DomainError):
    """A child asked for a toggle or query type its parent does not have (section 6)."""

    code, message, status = "parent_does_not_allow", "Parent group does not allow this permission", 403


class TooManyContactRequests(DomainError):
    """The public contact form's per-address limit (it is not a relay)."""

    code, message, status = "too_many_requests", "Too many requests. Please try again in a few minutes.", 429


class ExportFailed(DomainError):
    code, message, status = "export_failed", "Error exporting CSV", 500


# -- the enrichment catalogue: query types and layouts -----------------------------------------


class DefaultQueryNotFound(DomainError):
    """A lookup named no query type and the catalogue has no active default for its document."""

    code, message, status = "default_query_not_found", "Default query not found", 404


class DefaultQueryRequired(DomainError):
    """A change would leave a document kind (CPF or CNPJ) without a default query type."""

    code, message, status = "default_query_required", "At least one default query required", 409


class QueryTypeInactive(DomainError):
    code, message, status = "query_type_inactive", "This query type is inactive: it runs no new lookups", 403


class NameTooShort(DomainError):
    code, message, status = "name_too_short", "The name must have at least 3 characters", 422


class CacheExceedsValidity(DomainError):
    code, message, status = "cache_exceeds_validity", "Cache days must not exceed validity days", 422


class LayoutNotFound(DomainError):
    code, message, status = "layout_not_found", "Layout not found", 404


class InvalidLayout(DomainError):
    """A layout whose rows cannot read or write a line (order repeated, size missing, ...)."""

    code, message, status = "invalid_layout", "The layout's rows are invalid", 422


class LayoutNotAllowed(DomainError):
    code, message, status = "layout_not_allowed", "Group does not have permission for this layout", 403


# -- suppliers (HTTP vendors) -----------------------------------------------------------------


class BearerTokenRequired(DomainError):
    code, message, status = "bearer_token_required", "Bearer token required", 422


class InvalidRequestBody(DomainError):
    code, message, status = "invalid_request_body", "Request body must be valid JSON", 422


class SupplierNotFound(DomainError):
    code, message, status = "supplier_not_found", "Supplier not found", 404


class SupplierFailed(SearchFailed):
    """Every supplier that could answer failed (timeout, error, open circuit, bad answer): nothing was charged."""

    code, message = "supplier_failed", "The supplier did not answer. No credit was charged; please try again later."


class ResultExpired(DomainError):
    """A kept result asked for after the query type's validity (it was deleted, as LGPD asks)."""

    code, message, status = "result_expired", "This result is no longer available", 404


def catalogue() -> list[type[DomainError]]:
    """Every refusal of the product, ``DomainError`` (the unexpected error) first."""
    # Imported here: the other error modules build on this module's DomainError.
    from bemtevi.domain import advanced_errors, api_client_errors, batch_errors, two_factor_errors

    values = [
        *vars(sys.modules[__name__]).values(),
        *vars(batch_errors).values(),
        *vars(advanced_errors).values(),
        *vars(two_factor_errors).values(),
        *vars(api_client_errors).values(),
    ]
    found = [value for value in values if isinstance(value, type) and issubclass(value, DomainError)]
    return sorted(found, key=lambda cls: (cls is not DomainError, cls.code, cls.__name__))
