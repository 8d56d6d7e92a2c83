"""API tokens' secrets: made at random, kept only as an HMAC-SHA256 keyed with the server's key.

A keyed hash, not a password hash: the secret is 256 random bits (nothing to guess), it is checked on every
API call (argon2 would cost a lookup's time many times over), and without the server's key a copied table of
hashes cannot even be tested against a guess.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from bemtevi.domain.api_tokens import ACCESS_KEY_PREFIX


class ApiSecrets:
    def __init__(self, server_key: str) -> None:
        # A key of its own, derived from the server's: a token hash is no JWT signature of the same key.
        self._key = hmac.new(server_key.encode(), b"bemtevi api tokens", hashlib.sha256).digest()

    @staticmethod
    def new_access_key() -> str:
        return ACCESS_KEY_PREFIX + secrets.token_hex(12)

    @staticmethod
    def new_secret() -> str:
        return secrets.token_urlsafe(32)

    def digest(self, secret: str) -> str:
        return hmac.new(self._key, secret.encode(), hashlib.sha256).hexdigest()

    def matches(self, secret: str, digest: str) -> bool:
        return hmac.compare_digest(self.digest(secret), digest)
