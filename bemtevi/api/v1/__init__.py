"""The public API for token holders, versioned under /api/v1 with an OpenAPI schema of its own."""
