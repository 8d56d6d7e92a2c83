"""Password hashing with argon2id (argon2-cffi)."""

from __future__ import annotations

from argon2 import PasswordHasher as Argon2Hasher
from argon2.exceptions import InvalidHashError, VerificationError


class PasswordHasher:
    def __init__(self, time_cost: int = 2, memory_cost: int = 19_456) -> None:
        self._hasher = Argon2Hasher(time_cost=time_cost, memory_cost=memory_cost, parallelism=1)

    def hash(self, password: str) -> str:
        return self._hasher.hash(password)

    def verify(self, password_hash: str, password: str) -> bool:
        try:
            return self._hasher.verify(password_hash, password)
        except (VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, password_hash: str) -> bool:
        return self._hasher.check_needs_rehash(password_hash)
