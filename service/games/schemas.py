"""The shapes the service answers with (msgspec structs, served as JSON and described in the OpenAPI document)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Final

import msgspec

from domain.core import Result, ScoreSheet, TimeControl
from service.integrity.signing import GameSignature, SignedHead


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
    """A game's clock (issue 14), one of: ``{decision_seconds, bank_seconds?}`` (each decision may take
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
    """A clock choice as stored (a JSON text or object; null: untimed) as shown to whoever may join."""
    if clock is None:
        return None
    shown: dict[str, Any] = json.loads(clock) if isinstance(clock, str) else dict(clock)
    return shown


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


class Seat(msgspec.Struct, frozen=True, kw_only=True):
    """A seat and its player's name."""

    seat: int
    name: str
    bot: bool = False


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
    clock: ClockOut | None = None  # a timed game's clock (issue 14); None: untimed
    result: Any = None
    seed_commitment: str | None = None  # SHA-256 of the seed, public from creation (the seed: once it ends)
    seed_chosen: bool = False  # the creator chose the seed (unrated games only): it may be guessable
    head: SignedHead | None = None  # the hash chain's head at ``version``, signed by the service


class GameSummary(msgspec.Struct, frozen=True, kw_only=True):
    """One game of the listing; ``result`` once it is finished (the game's Result: scores, ranks and winners
    by seat; ``note`` left empty); ``seed_commitment`` as published at creation."""

    game_id: str
    game: str
    status: str
    version: int
    players: list[str]
    tournament: str | None
    created_at: datetime
    updated_at: datetime
    seed_commitment: str | None = None
    result: Result | None = None


class GamePage(msgspec.Struct, frozen=True, kw_only=True):
    """A page of the listing; pass ``next_cursor`` as ``cursor`` for the next page (null: no more)."""

    games: list[GameSummary]
    next_cursor: str | None


class PlayerGame(msgspec.Struct, frozen=True, kw_only=True):
    """One game of a player's history: the game as listed, the player's seat and, once finished, their
    score and rank (a Bazaar solitaire score is the turns taken, ``lower_is_better``, with ``solved``: Z-12)."""

    game_id: str
    game: str
    status: str
    version: int
    seat: int
    players: list[str]
    tournament: str | None
    created_at: datetime
    updated_at: datetime
    seed_commitment: str | None = None
    score: int | None = None
    rank: int | None = None
    lower_is_better: bool = False
    solved: bool | None = None


class PlayerGamePage(msgspec.Struct, frozen=True, kw_only=True):
    """A page of a player's games, newest first; pass ``next_cursor`` as ``cursor`` for the next page."""

    name: str
    games: list[PlayerGame]
    next_cursor: str | None


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


class SeedReveal(msgspec.Struct, frozen=True, kw_only=True):
    """A finished game's seed, its commitment, and whether the seed matches it: SHA-256(seed) equals the
    commitment, or for a commit-reveal game (``server_seed`` and ``entropies`` given) SHA-256(server_seed)
    does and the seed is the server's half mixed with the seats' entropies (docs/audit.md)."""

    seed: str
    commitment: str
    matches: bool
    server_seed: str | None = None
    entropies: list[str] | None = None


class AuditReport(msgspec.Struct, frozen=True, kw_only=True):
    """The audit of a game: hash chain, replay, set-up re-derived from the seed (finished games only)."""

    game_id: str
    status: str
    version: int
    ok: bool
    chain_ok: bool
    head_hash: str | None
    replay_ok: bool
    setup_ok: bool | None
    seed: SeedReveal | None
    problems: list[str]
    moves_ok: bool | None = None  # every move re-decided to exactly its stored events; None: not re-checked
    moves_checked: int = 0  # how many moves were re-decided
    notes: list[str] = []  # what the audit could not check, and why


EXPORT_FORMAT = "bazaar-games/game-export"
EXPORT_FORMAT_VERSION = 4  # 2: each move's command (``command``), the keyed chain (``chain_keyed``);
# 3: the parts of a commit-reveal seed (``server_seed``, ``entropies``); 4: the service's signature of the
# finished game (``signature``) and whether its moves' commands were stored (``commands_recorded``)
READABLE_EXPORT_VERSIONS = (1, 2, 3, 4)


class ExportedCommand(msgspec.Struct, frozen=True, kw_only=True):
    """The command that produced an event and the ones after it up to the next command: who sent it and
    its body, as the game's command decoder reads it."""

    seat: int
    command: Any


class ExportedEvent(msgspec.Struct, frozen=True, kw_only=True):
    """An event as stored, with its chained hash: ``hash`` = SHA-256(previous event's hash, or 32 zero bytes
    || "<game_id>\\n<version>\\n<type>\\n<schema_version>\\n" || ``data`` as compact UTF-8 JSON: no
    whitespace, keys in the order given)."""

    version: int
    type: str
    schema_version: int
    recorded_at: datetime
    data: Any
    hash: str
    command: ExportedCommand | None = None  # on the first event of each move; None for opening events


class GameExport(msgspec.Struct, frozen=True, kw_only=True):
    """A finished game in one self-contained document: everything an auditor needs to re-verify it offline
    (``python -m service verify FILE``): seats, options, the revealed seed and its commitment, every event
    as stored with its chained hash, the head hash, the result and the score sheet. No seat tokens."""

    format: str = EXPORT_FORMAT
    format_version: int = EXPORT_FORMAT_VERSION
    game_id: str
    game: str
    created_at: datetime
    finished_at: datetime
    seats: list[Seat]
    options: dict[str, Any]
    tournament: str | None = None
    rated: bool = False
    seed: str
    seed_commitment: str
    # a commit-reveal seed (lobby games): the server's committed half and the seats' entropies in seat
    # order; seed = mixed_seed(server_seed, entropies) and SHA-256(server_seed) = seed_commitment
    server_seed: str | None = None
    entropies: list[str] | None = None
    version: int
    head_hash: str
    chain_keyed: bool = (
        False  # hashes keyed with SHA-256("bazaar-games/chain-key" 0x00 || seed); docs/audit.md
    )
    events: list[ExportedEvent]
    result: Result
    scoresheet: ScoreSheet
    clock: TimeControl | None = None  # a timed game's clock as created (issue 14): part of its set-up
    # false only for a game played before commands were stored (its moves cannot be re-decided); a document
    # of format_version 2 or later that says true (or leaves it out) must carry every move's command
    commands_recorded: bool = True
    # the service's signature of the finished game's facts (service/integrity/audit.py signed_facts; docs/audit.md):
    # null in documents before format_version 4, which therefore prove nothing about who played
    signature: GameSignature | None = None


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


class CreateTournamentIn(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Create a tournament: name, game, players, rounds, and optionally table size, options, duplicate, seed.

    Players are either all ``{name}`` (each gets a player token, as a hot-seat seat does) or accounts:
    ``{account: "me"}`` (the organizer's account plays) and ``{invite: "<account>"}``; with ``open: true``
    any account may register itself too. An account tournament registers players until its first round
    is seated. Every game gets the tournament's clock: ``clock``, by default ``TOURNAMENT_CLOCK``;
    ``untimed: true`` for none."""

    name: str
    game: str
    players: list[PlayerIn]
    rounds: int
    table_size: int | None = None
    options: dict[str, Any] | None = None
    duplicate: bool = False
    seed: str | None = None
    open: bool = False
    clock: ClockIn | None = None  # None: the tournament default (TOURNAMENT_CLOCK), unless ``untimed``
    untimed: bool = False  # games without a clock


class PlayerNameIn(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A tournament player, by name: the one to withdraw, or a late entry (1-40 characters)."""

    name: str


class AdjudicationIn(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The game of the current round to adjudicate (its result as it stands now is recorded)."""

    game_id: str


class PlayerToken(msgspec.Struct, frozen=True, kw_only=True):
    """A tournament player and their secret token (their seat's bearer token in every game of the tournament)."""

    name: str
    token: str


class TournamentCreatedOut(msgspec.Struct, frozen=True, kw_only=True):
    """The answer to a tournament creation: its id, the organizer's token and each player's token (shown
    once), and ``seed_commitment``: SHA-256 of the tournament's secret seed (revealed once it is completed)."""

    tournament_id: str
    organizer_token: str
    players: list[PlayerToken]
    registering: bool = False
    seed_commitment: str = ""


class PlayerRating(msgspec.Struct, frozen=True, kw_only=True):
    """A player's rating in one game: OpenSkill Plackett-Luce ``mu``/``sigma``, ``ordinal`` = mu - 3 sigma."""

    rank: int
    name: str
    game: str
    mu: float
    sigma: float
    ordinal: float
    games: int


class RatingList(msgspec.Struct, frozen=True, kw_only=True):
    """A page of a game's rated players, best ordinal first, and how many rated games went into them; pass
    ``next_cursor`` as ``cursor`` for the next page (null: no more)."""

    game: str
    games: int
    players: list[PlayerRating]
    next_cursor: str | None


class PlayerProfile(msgspec.Struct, frozen=True, kw_only=True):
    """A player's rating in every game they have played rated games of."""

    name: str
    ratings: list[PlayerRating]
