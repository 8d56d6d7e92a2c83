"""Bearer tokens: HS256 JWTs that name a session; the session aggregate decides if it is open."""

from __future__ import annotations

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

    def __init__(self, signing_key: str) -> None:
        self._key = signing_key

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
        try:
            payload = jwt.decode(
                token, self._key, algorithms=[self._ALGORITHM], options={"require": ["exp", "sid", "sub"]}
            )
        except jwt.ExpiredSignatureError as e:
            raise ExpiredToken() from e
        except jwt.PyJWTError as e:
            raise Unauthorized() from e
        try:
            return TokenClaims(
                session_id=UUID(payload["sid"]),
                user_id=UUID(payload["sub"]),
                group_id=UUID(payload["gid"]),
                role=str(payload["role"]),
            )
        except (KeyError, ValueError) as e:
            raise Unauthorized() from e
