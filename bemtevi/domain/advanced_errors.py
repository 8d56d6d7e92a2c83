"""The advanced query's refusals (issue 36), beside the catalogue of ``errors`` (whose ``catalogue()`` lists them)."""

from __future__ import annotations

from bemtevi.domain.errors import DomainError


class AdvancedCriteriaRequired(DomainError):
    code, message, status = "advanced_criteria_required", "Fill in at least one field to search", 422


class AdvancedCriterionTooShort(DomainError):
    code, message, status = "advanced_criterion_too_short", "Type at least 3 letters or digits to search", 422


class AdvancedNotConfigured(DomainError):
    code, message, status = "advanced_not_configured", "No advanced layout or query configuration found", 404


class AdvancedSearchNotFound(DomainError):
    """A search or one of its results that is not this group's (or no longer matches): nothing was charged."""

    code, message, status = "advanced_search_not_found", "Search not found or no longer available", 404
