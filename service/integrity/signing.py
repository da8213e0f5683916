"""Signed heads: the service's Ed25519 signature over ``(game_id, version, head_hash)``, so a client that keeps
the heads it was shown can later prove that a history was rewritten (``verify --receipts``; docs/audit.md).
Signed games: its signature over a finished game's facts (id, rules, seats, version, head hash, result, ...),
carried by the export, so that an export proves itself without any client's receipts.

The signed message is the UTF-8 text ``"bazaar-games/signed-head/v1\\n<game_id>\\n<version>\\n<head_hash hex>"``;
a game's, ``"bazaar-games/finished-game/v1\\n"`` followed by its facts as canonical JSON (game_message).
Only the standard library and ``cryptography`` (a maintained implementation of Ed25519) are used, so an
auditor's verifier needs nothing else.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import os
from collections.abc import Mapping
from pathlib import Path

import msgspec
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

ALGORITHM = "Ed25519"
MESSAGE_PREFIX = "bazaar-games/signed-head/v1"
GAME_MESSAGE_PREFIX = "bazaar-games/finished-game/v1"
KEY_FILE_NAME = "signing-key.pem"


class SignedHead(msgspec.Struct, frozen=True, kw_only=True):
    """A game's head hash at a version, signed by the service (``public_key``: the signer's raw key, hex)."""

    game_id: str
    version: int
    head_hash: str
    signature: str
    public_key: str


class GameSignature(msgspec.Struct, frozen=True, kw_only=True):
    """The service's signature of a finished game's facts (game_message), and the signer's raw key (hex)."""

    public_key: str
    signature: str


class SigningKeyInfo(msgspec.Struct, frozen=True, kw_only=True):
    """The service's public signing key: raw 32 bytes as hex, and its id (the first 16 hex digits of its
    SHA-256)."""

    algorithm: str
    public_key: str
    key_id: str
    message_format: str


def head_message(game_id: str, version: int, head_hash: str) -> bytes:
    """The bytes a signed head signs."""
    return f"{MESSAGE_PREFIX}\n{game_id}\n{version}\n{head_hash}".encode()


def game_message(facts: Mapping[str, object]) -> bytes:
    """The bytes a game signature signs: the prefix, a newline, and the facts as canonical JSON (keys sorted,
    no whitespace, non-ASCII characters as themselves, UTF-8), which any JSON library can reproduce."""
    canonical = json.dumps(facts, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return f"{GAME_MESSAGE_PREFIX}\n{canonical}".encode()


def key_id(public_key: str) -> str:
    """A public key's id: the first 16 hex digits of the SHA-256 of its raw bytes."""
    return hashlib.sha256(bytes.fromhex(public_key)).hexdigest()[:16]


def raw_public_key(key: Ed25519PublicKey) -> bytes:
    """The 32 raw bytes of a public key."""
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


class Signer:
    """Signs heads with the service's private key."""

    def __init__(self, private_key: Ed25519PrivateKey) -> None:
        self._key = private_key
        self.public_key = raw_public_key(private_key.public_key()).hex()
        # Ed25519 signatures are deterministic, and a head once signed (in a command's answer) is signed
        # again for every view and poll of that version: the last few thousand are kept (a signature costs
        # 37 us here, a kept one well under 1 us; measured).
        self._signature = functools.lru_cache(maxsize=4096)(private_key.sign)

    @property
    def info(self) -> SigningKeyInfo:
        """What ``GET /v1/signing-key`` publishes."""
        return SigningKeyInfo(
            algorithm=ALGORITHM,
            public_key=self.public_key,
            key_id=key_id(self.public_key),
            message_format=f"{MESSAGE_PREFIX}\\n<game_id>\\n<version>\\n<head_hash hex>",
        )

    def secret_for(self, purpose: str) -> str:
        """A secret for ``purpose`` derived from the private key (HMAC-SHA256 keyed with it): every process
        with the same key derives the same secret, and it reveals nothing of the key."""
        raw = self._key.private_bytes(
            serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
        )
        return hmac.new(raw, purpose.encode(), hashlib.sha256).hexdigest()

    def sign(self, game_id: str, version: int, head_hash: bytes) -> SignedHead:
        """The signed head of ``game_id`` at ``version``."""
        head = head_hash.hex()
        signature = self._signature(head_message(game_id, version, head))
        return SignedHead(
            game_id=game_id,
            version=version,
            head_hash=head,
            signature=signature.hex(),
            public_key=self.public_key,
        )

    def sign_game(self, facts: Mapping[str, object]) -> GameSignature:
        """The service's signature of a finished game's facts."""
        signature = self._key.sign(game_message(facts))
        return GameSignature(public_key=self.public_key, signature=signature.hex())


def verify_game(facts: Mapping[str, object], signed: GameSignature) -> bool:
    """Whether ``signed.signature`` is ``signed.public_key``'s signature of these facts."""
    return _verifies(signed.public_key, signed.signature, game_message(facts))


def verify_head(head: SignedHead) -> bool:
    """Whether ``head.signature`` is ``head.public_key``'s signature of its game id, version and head hash."""
    return _verifies(
        head.public_key, head.signature, head_message(head.game_id, head.version, head.head_hash)
    )


def _verifies(public_key: str, signature: str, message: bytes) -> bool:
    """Whether ``signature`` (hex) is the Ed25519 signature of ``message`` by ``public_key`` (raw, hex)."""
    try:
        key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_key))
        key.verify(bytes.fromhex(signature), message)
    except (ValueError, InvalidSignature):
        return False
    return True


def load_signer(configured: str | None, data_dir: Path) -> Signer:
    """The service's signer: SIGNING_KEY (a PEM private key, or the path of one) when configured, else the key
    kept in ``data_dir/signing-key.pem``, generated there on first start (linked into place whole and only if
    absent, so processes starting together end up with the same key)."""
    if configured:
        text = configured if "-----BEGIN" in configured else Path(configured).read_text()
        return Signer(_private_key(text.encode()))
    path = data_dir / KEY_FILE_NAME
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        pem = Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        temporary = path.with_name(f"{KEY_FILE_NAME}.{os.getpid()}")
        descriptor = os.open(
            temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600
        )  # never readable by others
        with os.fdopen(descriptor, "wb") as file:
            file.write(pem)
        try:
            os.link(temporary, path)  # atomic, and refused if another process made it first: then use theirs
        except FileExistsError:
            pass
        finally:
            temporary.unlink()
    return Signer(_private_key(path.read_bytes()))


def _private_key(pem: bytes) -> Ed25519PrivateKey:
    """An Ed25519 private key from PEM (ValueError if it is something else)."""
    key = serialization.load_pem_private_key(pem, password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError("the signing key is not an Ed25519 private key")
    return key
