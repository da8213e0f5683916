"""Stream tickets: a short-lived signed ticket opens one seat's stream of one game, nothing else."""

from __future__ import annotations

from service.integrity.tokens import STREAM_TICKET_SECONDS, StreamTickets, hash_token

HASHES = (hash_token("seat-zero-token"), hash_token("seat-one-token"), "")  # seat 2: held by an account
SEED = "the-secret-seed"
NOW = 1_800_000_000.0
TICKETS = StreamTickets("the-service-secret")


def test_a_ticket_opens_its_seat_until_it_expires() -> None:
    ticket = TICKETS.issue("game-a", 1, SEED, HASHES[1], NOW)
    assert TICKETS.seat_of("game-a", ticket, SEED, HASHES, NOW) == 1
    assert TICKETS.seat_of("game-a", ticket, SEED, HASHES, NOW + STREAM_TICKET_SECONDS) == 1
    assert TICKETS.seat_of("game-a", ticket, SEED, HASHES, NOW + STREAM_TICKET_SECONDS + 1) is None


def test_a_ticket_opens_no_other_game_and_no_other_seat() -> None:
    ticket = TICKETS.issue("game-a", 1, SEED, HASHES[1], NOW)
    assert TICKETS.seat_of("game-b", ticket, SEED, HASHES, NOW) is None
    _seat, expires, mac = ticket.split(".")
    assert TICKETS.seat_of("game-a", f"0.{expires}.{mac}", SEED, HASHES, NOW) is None


def test_forged_or_garbled_tickets_open_nothing() -> None:
    ticket = TICKETS.issue("game-a", 0, SEED, HASHES[0], NOW)
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
        assert TICKETS.seat_of("game-a", candidate, SEED, HASHES, NOW) is None, candidate


def test_a_ticket_carries_no_token() -> None:
    ticket = TICKETS.issue("game-a", 0, SEED, HASHES[0], NOW)
    assert "seat-zero-token" not in ticket and HASHES[0] not in ticket


def test_a_seat_without_a_token_hash_is_still_keyed_by_the_secret_seed() -> None:
    ticket = TICKETS.issue("game-a", 2, SEED, "", NOW)
    assert TICKETS.seat_of("game-a", ticket, SEED, HASHES, NOW) == 2
    assert TICKETS.seat_of("game-a", ticket, "another-seed", HASHES, NOW) is None, (
        "no key known outside the server"
    )


def test_a_ticket_opens_nothing_where_the_service_secret_differs() -> None:
    ticket = TICKETS.issue("game-a", 1, SEED, HASHES[1], NOW)
    assert StreamTickets("another-service-secret").seat_of("game-a", ticket, SEED, HASHES, NOW) is None
