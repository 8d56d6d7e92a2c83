"""Bounds of what a request may carry, defined once for every route and request model."""

from __future__ import annotations

# A page number: (PAGE_MAX - 1) * the largest page size stays far inside the read side's 64-bit
# OFFSET, and no screen pages that far.
PAGE_MAX = 1_000_000
