"""A tenant's host as the product keys it: the white-label or request URL normalised, and the forms a request's
host matches a group's domain by."""

from __future__ import annotations


def normalise_domain(domain_url: str | None) -> str | None:
    """'https://Acme.example:8443/x' → 'acme.example:8443'; empty → None."""
    if not domain_url:
        return None
    value = domain_url.strip().lower()
    for prefix in ("https://", "http://"):
        if value.startswith(prefix):
            value = value[len(prefix) :]
    value = value.split("/", 1)[0]
    return value or None


def domain_candidates(domain_url: str | None) -> list[str]:
    """A host matches its exact form first, then without the port."""
    domain = normalise_domain(domain_url)
    if domain is None:
        return []
    bare = domain.rsplit(":", 1)[0] if ":" in domain else domain
    return [domain] if bare == domain else [domain, bare]
