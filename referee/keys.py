"""The server's signing key: Ed25519 (``cryptography``), created on first start beside the
database, never exported. Every log record's hash is signed with it; exports carry the public
key and its fingerprint, so ``referee verify --key FINGERPRINT`` can tell that a log was signed
by this server and not re-hashed and re-signed by someone else.

Raises :class:`KeyFileError` when the key file cannot be read or written.
"""

from __future__ import annotations

import base64
import hashlib
import os
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

DOMAIN = b"hera-zeus-referee/log/2:"  # signatures cover this prefix and the record's hash


class KeyFileError(Exception):
    """The key file is unreadable, malformed or cannot be created."""


def fingerprint_of(public_key: bytes) -> str:
    """A short, writable name for a public key: 16 hex digits of its SHA-256, in groups."""
    h = hashlib.sha256(public_key).hexdigest()[:16]
    return "-".join(h[i : i + 4] for i in range(0, 16, 4))


def _message(record_hash: str) -> bytes:
    return DOMAIN + record_hash.encode("ascii")


class Signer:
    """Signs record hashes. ``Signer.generate()`` for tests; ``Signer.load_or_create(path)`` for
    a server."""

    def __init__(self, key: Ed25519PrivateKey) -> None:
        self._key = key
        self.public_key = key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        self.public_b64 = base64.b64encode(self.public_key).decode("ascii")
        self.fingerprint = fingerprint_of(self.public_key)

    @classmethod
    def generate(cls) -> Signer:
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_seed(cls, seed: str) -> Signer:
        """A deterministic key for tests and simulations (never for a server)."""
        raw = hashlib.sha256(f"hera-zeus-test-key:{seed}".encode()).digest()
        return cls(Ed25519PrivateKey.from_private_bytes(raw))

    @classmethod
    def load_or_create(cls, path: str | Path) -> Signer:
        """The key at ``path`` (PEM), created (mode 0600) when the file does not exist.

        Raises KeyFileError when it exists but cannot be read or is not an Ed25519 key, or when
        it cannot be created."""
        p = Path(path)
        if p.exists():
            try:
                key = serialization.load_pem_private_key(p.read_bytes(), password=None)
            except (OSError, ValueError, TypeError) as e:
                raise KeyFileError(f"{p}: not a readable signing key ({e})") from None
            if not isinstance(key, Ed25519PrivateKey):
                raise KeyFileError(f"{p}: not an Ed25519 key")
            return cls(key)
        key = Ed25519PrivateKey.generate()
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        try:
            fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(pem)
        except FileExistsError:  # another process created it first: use that one
            return cls.load_or_create(p)
        except OSError as e:
            raise KeyFileError(f"{p}: cannot create the signing key ({e.strerror})") from None
        return cls(key)

    def sign(self, record_hash: str) -> str:
        return base64.b64encode(self._key.sign(_message(record_hash))).decode("ascii")


def parse_public_key(b64: str) -> bytes:
    """Raises ValueError when ``b64`` is not a base64 Ed25519 public key."""
    try:
        raw = base64.b64decode(b64, validate=True)
    except (ValueError, TypeError):
        raise ValueError("the public key is not base64") from None
    if len(raw) != 32:
        raise ValueError("the public key is not an Ed25519 key (32 bytes)")
    return raw


def signature_ok(public_key: bytes, record_hash: str, sig: str) -> bool:
    try:
        raw = base64.b64decode(sig, validate=True)
        Ed25519PublicKey.from_public_bytes(public_key).verify(raw, _message(record_hash))
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True
