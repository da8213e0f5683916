"""Stream tickets (issue 15): a short-lived signed ticket opens one seat's stream of one game, nothing else."""

from __future__ import annotations

from service.tokens import STREAM_TICKET_SECONDS, hash_token, stream_ticket, ticket_seat

HASHES = (hash_token("seat-zero-token"), hash_token("seat-one-token"), "")  # seat 2: held by an account
SEED = "the-secret-seed"
NOW = 1_800_000_000.0


def test_a_ticket_opens_its_seat_until_it_expires() -> None:
    ticket = stream_ticket("game-a", 1, SEED, HASHES[1], NOW)
    assert ticket_seat("game-a", ticket, SEED, HASHES, NOW) == 1
    assert ticket_seat("game-a", ticket, SEED, HASHES, NOW + STREAM_TICKET_SECONDS) == 1
    assert ticket_seat("game-a", ticket, SEED, HASHES, NOW + STREAM_TICKET_SECONDS + 1) is None


def test_a_ticket_opens_no_other_game_and_no_other_seat() -> None:
    ticket = stream_ticket("game-a", 1, SEED, HASHES[1], NOW)
    assert ticket_seat("game-b", ticket, SEED, HASHES, NOW) is None
    _seat, expires, mac = ticket.split(".")
    assert ticket_seat("game-a", f"0.{expires}.{mac}", SEED, HASHES, NOW) is None


def test_forged_or_garbled_tickets_open_nothing() -> None:
    ticket = stream_ticket("game-a", 0, SEED, HASHES[0], NOW)
    seat, expires, mac = ticket.split(".")
    far = int(expires) + 3600  # a later expiry than issued breaks the signature, and is too far ahead anyway
    forged = [
        f"{seat}.{far}.{mac}",
        f"{seat}.{expires}.{'0' * len(mac)}",
        "",
        "x.y.z",
        "0..",
        "9.1.ab",
        ticket + "0",
    ]
    for candidate in forged:
        assert ticket_seat("game-a", candidate, SEED, HASHES, NOW) is None, candidate


def test_a_ticket_carries_no_token() -> None:
    ticket = stream_ticket("game-a", 0, SEED, HASHES[0], NOW)
    assert "seat-zero-token" not in ticket and HASHES[0] not in ticket


def test_a_seat_without_a_token_hash_is_still_keyed_by_the_secret_seed() -> None:
    ticket = stream_ticket("game-a", 2, SEED, "", NOW)
    assert ticket_seat("game-a", ticket, SEED, HASHES, NOW) == 2
    assert ticket_seat("game-a", ticket, "another-seed", HASHES, NOW) is None, (
        "no key known outside the server"
    )
