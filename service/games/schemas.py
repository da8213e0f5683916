"""The shapes the service answers with (msgspec structs, served as JSON and described in the OpenAPI document)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

import msgspec

from service.integrity.schemas import Seat
from service.integrity.signing import SignedHead


class PlayerIn(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A seat at creation, exactly one of: ``name`` (hot-seat: a display name of 1-40 characters whose token
    the creator receives; ``bot: true`` is informational), ``bot: "random" | "greedy" | "strong"`` (the
    server's bot of that level plays the seat; its name defaults to e.g. ``strong-johari``; beside account
    seats the bot's account of that name takes the seat at once),
    ``account: "me"`` (the creator's account takes the seat), ``invite: "<account name>"`` (reserved for
    that account, which joins or declines) or ``open: true`` (any account may join)."""

    name: str | None = None
    bot: bool | str = False
    account: str | None = None
    invite: str | None = None
    open: bool = False


class ClockIn(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A game's clock, one of: ``{decision_seconds, bank_seconds?}`` (each decision may take
    ``decision_seconds``, 1-86400; past that the seat's bank of ``bank_seconds``, 0-604800, runs down) or
    ``{days_per_decision}`` (correspondence, 1-60 days a decision, no bank). ``max_timeouts`` (1-10, default
    3): timeouts after which the stand-in plays the seat for the rest of the game, as on resignation."""

    decision_seconds: int | None = None
    bank_seconds: int | None = None
    days_per_decision: int | None = None
    max_timeouts: int = 3


TOURNAMENT_CLOCK: Final = ClockIn(decision_seconds=60, bank_seconds=600)
"""A tournament's clock unless it chooses another (or none): a minute a decision plus a ten-minute bank."""


def stored_clock(clock: Any) -> dict[str, Any] | None:
    """A clock choice as stored (a jsonb object; null: untimed) as shown to whoever may join."""
    if clock is None:
        return None
    return dict(clock)


def registration_clock(request: dict[str, Any]) -> dict[str, Any] | None:
    """The clock every game of a tournament gets, from its stored creation request (service/tournaments/tournaments.py
    ``_clock``): none if untimed, else the one chosen or ``TOURNAMENT_CLOCK``."""
    if request.get("untimed"):
        return None
    return stored_clock(request.get("clock")) or msgspec.to_builtins(TOURNAMENT_CLOCK)


class CreateGame(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Create a game: which game, the players in seat order, an optional seed, the game's options and its
    clock (none by default)."""

    game: str
    players: list[PlayerIn]
    seed: str | None = None
    options: dict[str, Any] | None = None
    rated: bool = False
    entropy: str | None = None
    clock: ClockIn | None = None


class SeatToken(msgspec.Struct, frozen=True, kw_only=True):
    """A seat, its player's name and its secret bearer token (shown once, at creation). ``token`` is null
    for a seat held by, reserved for or open to an account (the account's own token acts for it); ``name``
    is null for a seat nobody holds yet (invited or open)."""

    seat: int
    name: str | None
    token: str | None
    account: str | None = None
    invited: str | None = None
    open: bool = False


class GameCreated(msgspec.Struct, frozen=True, kw_only=True):
    """The answer to a creation: the id, the version after set-up, the seat tokens and the seed commitment."""

    game_id: str
    game: str
    version: int
    seats: list[SeatToken]
    seed_commitment: str
    status: str = "active"


class PendingDecision(msgspec.Struct, frozen=True, kw_only=True):
    """A seat that must act now and the kind of decision it owes; in a timed game by when (``deadline``)
    and the seat's bank left in seconds (``bank_seconds``)."""

    seat: int
    decision: str
    deadline: datetime | None = None
    bank_seconds: float | None = None


class SeatClockOut(msgspec.Struct, frozen=True, kw_only=True):
    """One seat's clock: its bank left (seconds), its timeouts so far, and while it owes a decision when
    that fell due and its deadline."""

    seat: int
    bank_seconds: float
    timeouts: int
    due_at: datetime | None = None
    deadline: datetime | None = None


class ClockOut(msgspec.Struct, frozen=True, kw_only=True):
    """A timed game's clock: the control it was created with and every seat's clock as of ``at`` (the last
    stamp)."""

    decision_seconds: float
    bank_seconds: float
    days_per_decision: int | None
    max_timeouts: int
    at: datetime
    seats: list[SeatClockOut]


class GameDetail(msgspec.Struct, frozen=True, kw_only=True):
    """A game as the caller may see it: the view, who must act, and the caller's legal commands."""

    game_id: str
    game: str
    status: str
    version: int
    seats: list[Seat]
    you: int | None
    view: Any
    pending: list[PendingDecision]
    legal: list[Any]
    clock: ClockOut | None = None  # a timed game's clock; None: untimed
    result: Any = None
    seed_commitment: str | None = None  # SHA-256 of the seed, public from creation (the seed: once it ends)
    seed_chosen: bool = False  # the creator chose the seed (unrated games only): it may be guessable
    head: SignedHead | None = None  # the hash chain's head at ``version``, signed by the service


class EventOut(msgspec.Struct, frozen=True, kw_only=True):
    """An event as the caller may see it; ``game`` tells whose events ``data`` is one of (clients type it by
    that); ``hash`` is shown only once the game is finished."""

    version: int
    game: str
    type: str
    recorded_at: datetime
    data: Any
    hash: str | None = None


class EventPage(msgspec.Struct, frozen=True, kw_only=True):
    """A slice of a game's history; ``redacted`` is true while the game runs."""

    game_id: str
    version: int
    redacted: bool
    events: list[EventOut]


class StreamTicket(msgspec.Struct, frozen=True, kw_only=True):
    """A short-lived ticket for ``GET /v1/games/{id}/stream?ticket=...``: opens ``seat``'s stream for
    ``expires_in`` seconds (for browsers, whose EventSource cannot send Authorization)."""

    ticket: str
    seat: int
    expires_in: int


class CommandAccepted(msgspec.Struct, frozen=True, kw_only=True):
    """A command accepted: the game's new version and the events it caused (as the caller may see them)."""

    version: int
    events: list[EventOut]
    head: SignedHead | None = None  # the new head, signed (absent on an idempotent retry's stored answer)


class StateAt(msgspec.Struct, frozen=True, kw_only=True):
    """The caller's view of the game right after version ``version`` (``game`` tells whose view it is)."""

    game_id: str
    game: str
    version: int
    view: Any


class ScoreSheetOut(msgspec.Struct, frozen=True, kw_only=True):
    """A score sheet: column names, one row per line of the rule page's sheet, and the winners (when final)."""

    game_id: str
    game: str
    final: bool
    columns: list[str]
    rows: list[list[Any]]
    winners: list[str]


class GameInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A game of the catalog: its players, its options with defaults, and its rule sheet."""

    game: str
    title: str
    min_players: int
    max_players: int
    options: dict[str, Any]
    rules: str


class Catalog(msgspec.Struct, frozen=True, kw_only=True):
    """The games this service offers."""

    games: list[GameInfo]
