"""Signatures of the reports the platform hands out (the data-subject report's PDF): Ed25519 over the file's bytes.

Ed25519 rather than an HMAC so that a receiver (the data subject, a lawyer, the authority) can verify a file with
the platform's public key alone, without any secret. The key pair is derived from the deployment's signing key,
so every process of one deployment signs with the same key and a restart keeps it; rotating the signing key
rotates this one (files signed before then verify against the old public key only).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

ALGORITHM = "Ed25519"


class ReportSigner:
    def __init__(self, server_key: str) -> None:
        seed = hmac.new(server_key.encode(), b"bemtevi report signatures", hashlib.sha256).digest()
        self._private = Ed25519PrivateKey.from_private_bytes(seed)
        self._public = self._private.public_key()
        raw = self._public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        # Names the key in a signature's headers, so a receiver holding several knows which one to use.
        self.key_id = hashlib.sha256(raw).hexdigest()[:16]
        self.public_key_pem = self._public.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        ).decode()

    def sign(self, content: bytes) -> str:
        """The signature of ``content``, base64."""
        return base64.b64encode(self._private.sign(content)).decode()

    def verify(self, content: bytes, signature: str) -> bool:
        """Whether ``signature`` (base64) is this key's over exactly ``content``."""
        try:
            self._public.verify(base64.b64decode(signature, validate=True), content)
        except (InvalidSignature, binascii.Error, ValueError):
            return False
        return True
