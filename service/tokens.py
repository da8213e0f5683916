"""Secrets of the service: seat tokens (only their hashes are stored), seeds and seed commitments."""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_token() -> str:
    """A long random bearer token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """The stored form of a token: its SHA-256, hex."""
    return hashlib.sha256(token.encode()).hexdigest()


def token_matches(token: str, stored_hash: str) -> bool:
    """Constant-time comparison of a presented token with a stored hash."""
    return hmac.compare_digest(hash_token(token), stored_hash)


def new_seed() -> str:
    """A fresh random seed (128 bits, hex) for a game created without one."""
    return secrets.token_hex(16)


def seed_commitment(seed: str) -> str:
    """The public commitment to a seed: SHA-256 of its UTF-8 bytes, hex."""
    return hashlib.sha256(seed.encode()).hexdigest()
