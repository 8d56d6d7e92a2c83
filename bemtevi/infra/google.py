"""Google sign-in: verify a Google ID token (RS256 JWT) against Google's published keys.

Signature by a key of the configured JWKS URL, audience = our client id, issuer Google's,
not expired, and a verified e-mail. Only the e-mail leaves this module.
"""

from __future__ import annotations

import jwt

from bemtevi.domain.errors import GoogleTokenInvalid

GOOGLE_ISSUERS = ("accounts.google.com", "https://accounts.google.com")


class GoogleIdTokenVerifier:
    def __init__(self, client_id: str, jwks_url: str, timeout: float = 5.0) -> None:
        self.client_id = client_id
        # Keys are cached (an unknown key id fetches the set again).
        self._keys = jwt.PyJWKClient(jwks_url, cache_keys=True, lifespan=3600, timeout=int(max(1, timeout)))

    def verified_email(self, id_token: str) -> str:
        """The token's e-mail, when the token is Google's, for us, current and the e-mail verified."""
        try:
            key = self._keys.get_signing_key_from_jwt(id_token)
            claims = jwt.decode(
                id_token,
                key.key,
                algorithms=["RS256"],
                audience=self.client_id,
                issuer=GOOGLE_ISSUERS,
                options={"require": ["exp", "iss", "aud", "email"]},
            )
        except (jwt.PyJWTError, jwt.PyJWKClientError) as e:
            raise GoogleTokenInvalid() from e
        # Google sends email_verified as a boolean (older tokens: the string "true").
        if claims.get("email_verified") not in (True, "true"):
            raise GoogleTokenInvalid()
        return str(claims["email"]).strip().lower()
