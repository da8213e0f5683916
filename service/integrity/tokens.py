"""Secrets of the service: seat tokens (only their hashes are stored), seeds and seed commitments."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from domain.core import commitment


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
    """A fresh random seed (256 bits, hex) for a game or tournament created without one."""
    return secrets.token_hex(32)


seed_commitment = commitment  # the public commitment to a seed: SHA-256 of its UTF-8 bytes, hex


STREAM_TICKET_SECONDS = 60  # a stream ticket opens a seat's stream for this long after it is issued


class StreamTickets:
    """Issues and checks stream tickets, keyed by ``secret`` (a secret of the service that no client knows,
    derived from its signing key so every process checks every other's tickets) besides the game's secrets.

    Held by the app that made it, not by the process: two apps with different keys refuse each other's."""

    def __init__(self, secret: str) -> None:
        """Tickets keyed by ``secret``."""
        self._secret = secret.encode()

    def _mac(self, game_id: str, seat: int, expires: int, seed: str, token_hash: str) -> str:
        """The ticket's signature: HMAC-SHA256 keyed by the service's ticket secret, the game's seed and the
        seat's stored token hash.

        The service's secret is what no client can know: a seat held by an account has no token hash, and a
        game's seed is known to whoever chose it (an unrated game's creator, a tournament's organizer), who
        could otherwise forge a ticket for an opponent's seat and watch its hidden picks."""
        key = hashlib.sha256(
            b"stream-ticket\x00" + self._secret + f"\x00{seed}\x00{token_hash}".encode()
        ).digest()
        message = f"{game_id}\x00{seat}\x00{expires}".encode()
        return hmac.new(key, message, hashlib.sha256).hexdigest()

    def issue(self, game_id: str, seat: int, seed: str, token_hash: str, now: float) -> str:
        """A short-lived ticket ``<seat>.<expires>.<mac>`` that opens ``seat``'s stream of ``game_id`` only.

        Signed with server-side secrets of the game, so every server process can check it without shared
        state; the seat's token itself never appears in a URL."""
        expires = int(now) + STREAM_TICKET_SECONDS
        return f"{seat}.{expires}.{self._mac(game_id, seat, expires, seed, token_hash)}"

    def seat_of(
        self, game_id: str, ticket: str, seed: str, token_hashes: tuple[str, ...] | list[str], now: float
    ) -> int | None:
        """The seat a stream ticket of ``game_id`` opens, or None when it is malformed, forged or expired."""
        seat = ticket_seat(ticket)
        _, _, rest = ticket.partition(".")
        expires_text, _, mac = rest.partition(".")
        if seat is None or not (expires_text.isdigit() and len(expires_text) < 16):
            return None
        expires = int(expires_text)
        if seat >= len(token_hashes) or not now <= expires <= now + STREAM_TICKET_SECONDS:
            return None
        expected = self._mac(game_id, seat, expires, seed, token_hashes[seat])
        return seat if hmac.compare_digest(expected, mac) else None


def ticket_seat(ticket: str) -> int | None:
    """The seat a stream ticket names (not checked yet; None if it names none)."""
    seat_text = ticket.partition(".")[0]
    return int(seat_text) if seat_text.isdigit() and len(seat_text) < 4 else None
