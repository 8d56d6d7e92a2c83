"""Bearer tokens: HS256 JWTs that name a session; the session aggregate decides if it is open."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

import jwt

from bemtevi.domain.errors import ExpiredToken, Unauthorized


@dataclass(frozen=True, slots=True)
class TokenClaims:
    session_id: UUID
    user_id: UUID
    group_id: UUID
    role: str


class TokenIssuer:
    _ALGORITHM = "HS256"
    # Verified tokens remembered by their exact text: checking the signature again on every
    # call was a tenth of a lookup's CPU. A token's claims never change; only its expiry is
    # checked again, and the session it names is still loaded on every call.
    _VERIFIED_MAX = 20_000

    def __init__(self, signing_key: str) -> None:
        self._key = signing_key
        self._verified: dict[str, tuple[TokenClaims, int]] = {}

    def issue(self, claims: TokenClaims, expires_at: datetime) -> str:
        payload = {
            "sid": str(claims.session_id),
            "sub": str(claims.user_id),
            "gid": str(claims.group_id),
            "role": claims.role,
            "exp": int(expires_at.timestamp()),
        }
        return jwt.encode(payload, self._key, algorithm=self._ALGORITHM)

    def read(self, token: str) -> TokenClaims:
        return self.read_expiring(token)[0]

    def read_expiring(self, token: str) -> tuple[TokenClaims, int]:
        """The claims of a valid token that has not expired, and when it expires (epoch seconds)."""
        known = self._verified.get(token)
        if known is not None:
            if time.time() < known[1]:
                return known
            raise ExpiredToken()
        known = self._verify(token)
        if len(self._verified) >= self._VERIFIED_MAX:
            self._verified.clear()
        self._verified[token] = known
        return known

    def _verify(self, token: str) -> tuple[TokenClaims, int]:
        try:
            payload = jwt.decode(
                token, self._key, algorithms=[self._ALGORITHM], options={"require": ["exp", "sid", "sub"]}
            )
        except jwt.ExpiredSignatureError as e:
            raise ExpiredToken() from e
        except jwt.PyJWTError as e:
            raise Unauthorized() from e
        try:
            claims = TokenClaims(
                session_id=UUID(payload["sid"]),
                user_id=UUID(payload["sub"]),
                group_id=UUID(payload["gid"]),
                role=str(payload["role"]),
            )
            return claims, int(payload["exp"])
        except (KeyError, ValueError, TypeError) as e:
            raise Unauthorized() from e
