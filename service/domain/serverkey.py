"""The server's key: one 32-byte secret from the config, from which two keys are derived.

- a sealing key (AES-GCM) for what must stay secret while a match runs but cannot be in the log:
  the seed and its salt, kept in the match's meta hash. A dump of Redis alone reveals no hand;
- an Ed25519 signing key for checkpoints: a signed (match, version, head hash) lets an auditor prove
  that an exported log is the one the server holds.

The secret comes from ``MATCHLOG_SECRET_KEY`` (base64url), else from ``<data dir>/server.key``,
created on first use (``matchlog serve`` and workers on the same data folder share it). Every
process of a deployment must use the same secret: a process with another one cannot read the seeds
of existing matches.
"""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
from pathlib import Path
from typing import Protocol

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


class WrongServerKey(RuntimeError):
    """A misconfiguration no retry mends: this process's ``MATCHLOG_SECRET_KEY`` is not the one the
    deployment's data was sealed with. A worker that meets it stops, saying so."""


def new_secret() -> str:
    return base64.urlsafe_b64encode(secrets.token_bytes(32)).decode().rstrip("=")


def secret_from_file(path: Path) -> str:
    """The secret kept in ``path``, made (readable by its owner only) if there is none yet."""
    try:
        return _secret_in(path)
    except OSError as error:
        raise RuntimeError(
            f"no server secret: set MATCHLOG_SECRET_KEY, or let this process write {path} "
            f"({error.strerror or error})"
        ) from None


def _secret_in(path: Path) -> str:
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process made it first: use theirs
            return path.read_text().strip()
        with os.fdopen(descriptor, "w") as file:
            file.write(new_secret() + "\n")
    return path.read_text().strip()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Claimable(Protocol):
    """Where ``ServerKey.claim`` records the deployment's fingerprint: a Redis client (the domain names no
    store)."""

    def set(self, name: str, value: str, nx: bool = False) -> object: ...

    def get(self, name: str) -> bytes | str | None: ...


class ServerKey:
    def __init__(self, secret: str):
        master = _unb64(secret)
        if len(master) < 32:
            raise ValueError("the server secret must hold at least 32 bytes (base64url)")
        self._sealing = AESGCM(self._derive(master, b"matchlog seal v1"))
        self._signing = Ed25519PrivateKey.from_private_bytes(self._derive(master, b"matchlog sign v1"))

    @staticmethod
    def _derive(master: bytes, purpose: bytes) -> bytes:
        return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=purpose).derive(master)

    def seal(self, plain: bytes, context: bytes) -> bytes:
        """``plain`` encrypted and bound to ``context`` (a match id: a sealed value moved to another
        match does not open)."""
        nonce = secrets.token_bytes(12)
        return nonce + self._sealing.encrypt(nonce, plain, context)

    def open(self, sealed: bytes, context: bytes) -> bytes:
        """What ``seal`` sealed; WrongServerKey when it does not open (sealed with another secret, or altered)."""
        try:
            return self._sealing.decrypt(sealed[:12], sealed[12:], context)
        except InvalidTag:
            raise WrongServerKey(
                f"a value sealed for {context.decode(errors='replace')!r} does not open with this process's server "
                f"secret (MATCHLOG_SECRET_KEY, key fingerprint {self.fingerprint()}): every API and worker "
                "process of a deployment must use the same one (or the value was altered in Redis)"
            ) from None

    def fingerprint(self) -> str:
        """The first 16 hex digits of SHA-256 of the public signing key: which secret, without telling it."""
        return hashlib.sha256(self.public_key.encode()).hexdigest()[:16]

    def claim(self, redis_client: Claimable, key: str) -> None:
        """Record this key's fingerprint under ``key`` if no process of the deployment has yet, else compare:
        WrongServerKey when it differs (a process started with another MATCHLOG_SECRET_KEY)."""
        mine = self.fingerprint()
        redis_client.set(key, mine, nx=True)
        recorded = redis_client.get(key)
        recorded = recorded.decode() if isinstance(recorded, bytes) else recorded
        if recorded != mine:
            raise WrongServerKey(
                f"MATCHLOG_SECRET_KEY is not this deployment's: its server key fingerprint is {recorded} (recorded "
                f"in Redis at {key} by the first API or worker to start), this process's is {mine}. Every API and "
                "worker process must use the same secret: this one could not open the matches' sealed seeds"
            )

    def sign(self, message: bytes) -> str:
        return _b64(self._signing.sign(message))

    @property
    def public_key(self) -> str:
        """The Ed25519 public key, raw bytes in base64url: what an auditor checks signatures with."""
        return _b64(
            self._signing.public_key().public_bytes(
                serialization.Encoding.Raw, serialization.PublicFormat.Raw
            )
        )


def verify(public_key: str, message: bytes, signature: str) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(_unb64(public_key)).verify(_unb64(signature), message)
        return True
    except Exception:  # cryptography raises InvalidSignature, or ValueError for a malformed key
        return False
