"""Sealing suppliers' secrets at rest with the server's key (Fernet: AES-128-CBC + HMAC-SHA256)."""

from __future__ import annotations

from cryptography.fernet import Fernet, InvalidToken


class SecretBox:
    def __init__(self, key: str) -> None:
        self._fernet = Fernet(key.encode())

    def seal(self, plain: str) -> str:
        return self._fernet.encrypt(plain.encode()).decode() if plain else ""

    def open(self, sealed: str) -> str:
        """The plain secret; "" for none, or for one sealed with another key (it must be typed again)."""
        if not sealed:
            return ""
        try:
            return self._fernet.decrypt(sealed.encode()).decode()
        except InvalidToken:
            return ""
