"""The lobby's seat rules as a pure decider: which seats a creation writes, which seat a join takes, what
leaving and declining do, and every refusal with its code (service/lobby/lobby.py runs them around the
repository's reads and writes; docs/decisions/0008-sql-in-repositories.md).

A refusal is raised as ``Refused`` (a ``Rejected`` that also names the kind of answer: a malformed request,
a rule broken, a conflict with the game's seats, or a seat the caller may not take); the service turns it
into its error. Nothing here reads a database, a clock or a random source: the accounts a creation names
are looked up by the service first, and hot-seat tokens are drawn by the service for the seats planned here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

import msgspec

from domain.core import Rejected, shown
from domain.names import looks_repeated, name_problem, skeleton

__all__ = [
    "ACCOUNT",
    "BOT",
    "CANCELLED",
    "HOTSEAT",
    "INVITE",
    "MAX_ENTROPY",
    "OPEN",
    "STARTED",
    "STARTING",
    "WAITING",
    "Holders",
    "PlannedSeat",
    "Refused",
    "Seat",
    "SeatPlan",
    "Taken",
    "check_entropy",
    "declining",
    "given_back",
    "leaving",
    "must_wait",
    "rated_refusal",
    "request_kinds",
    "seat_holders",
    "seat_kind",
    "seat_to_take",
    "seating_a_bot",
    "seats_to_write",
]

MAX_ENTROPY = 128
MAX_SEED = 200
OPEN, INVITE, ACCOUNT, HOTSEAT = "open", "invite", "account", "hotseat"
BOT = "bot"  # a server bot's seat ({bot: level}): hot-seat in a hot-seat game, else its built-in account's
WAITING, STARTING, STARTED, CANCELLED = "waiting", "starting", "started", "cancelled"

Answer = Literal["malformed", "rule", "conflict", "forbidden"]


class Refused(Rejected):
    """A lobby request the seat rules refuse: ``answer`` says how (a malformed request, a rule broken, a
    conflict with the game's seats or status, a seat the caller may not take)."""

    def __init__(self, answer: Answer, code: str, detail: str) -> None:
        super().__init__(code, detail=detail)
        self.answer = answer


class SeatRequest(Protocol):
    """A seat as a creation request asks for it (service/games/schemas.py ``PlayerIn``)."""

    @property
    def name(self) -> str | None: ...
    @property
    def bot(self) -> bool | str: ...
    @property
    def account(self) -> str | None: ...
    @property
    def invite(self) -> str | None: ...
    @property
    def open(self) -> bool: ...


class Member(Protocol):
    """An account as the seat rules see it: its id, its name and, for a server bot's, the game it plays."""

    @property
    def account_id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def bot_game(self) -> str | None: ...


class Seat(msgspec.Struct, frozen=True, kw_only=True):
    """A waiting game's seat as stored: its kind, the account holding it or invited to it, a hot-seat name."""

    seat: int
    kind: str
    account_id: str | None = None
    invited_id: str | None = None
    name: str | None = None


# ----------------------------------------------------------------------------------------------- creation


def seat_kind(player: SeatRequest) -> str:
    """The kind of a seat at creation (refused unless exactly one of name, bot level, account, invite, open is
    given; a server bot's seat may also have a name in a hot-seat game)."""
    server_bot = isinstance(player.bot, str)
    given = [
        kind
        for kind, present in (
            (BOT, server_bot),
            (HOTSEAT, player.name is not None and not server_bot),
            (ACCOUNT, player.account is not None),
            (INVITE, player.invite is not None),
            (OPEN, player.open),
        )
        if present
    ]
    if len(given) != 1:
        raise Refused(
            "rule",
            "bad_seat",
            'each seat is exactly one of {"name"}, {"bot": level}, {"account": "me"}, {"invite"}, {"open": true}',
        )
    if player.account is not None and player.account != "me":
        raise Refused(
            "rule", "bad_seat", 'a seat\'s "account" can only be "me"; invite another account with "invite"'
        )
    if player.bot is True and given[0] != HOTSEAT:
        raise Refused("rule", "bad_seat", '"bot" marks a hot-seat seat only')
    return given[0]


def check_entropy(entropy: str | None) -> None:
    """A client's entropy is at most 128 characters."""
    if entropy is not None and len(entropy) > MAX_ENTROPY:
        raise Refused("malformed", "bad_entropy", f"entropy is at most {MAX_ENTROPY} characters")


def rated_refusal(seats: Sequence[SeatRequest], seed_chosen: bool) -> Refused | None:
    """Why a game with these seats may not be rated (None: it may): every seat must be an account that joins
    it itself (``account: "me"``, ``invite`` or ``open``) or a server bot's account (``bot: level``), at least
    one seat is not a server bot, no client may choose the seed, and it needs two seats or more."""
    if any(seat.name is not None for seat in seats) or all(isinstance(seat.bot, str) for seat in seats):
        return Refused(
            "rule",
            "rated_needs_accounts",
            "a rated game has only account seats (account: me, invite or open): a hot-seat seat's token is "
            "held by its creator",
        )
    if seed_chosen:
        return Refused("rule", "rated_seed_chosen", "a rated game's seed is chosen by the server only")
    if len(seats) < 2:
        return Refused("rule", "rated_needs_opponents", "a one-player game is never rated")
    return None


def request_kinds(
    players: Sequence[SeatRequest], entropy: str | None, rated: bool, seed_chosen: bool
) -> list[str]:
    """The kinds of a creation's seats, once the request's shape passes: each seat's kind, the entropy's
    length, a rated game's fairness, and entropy only beside the creator's account seat (a game of
    hot-seat and server-bot seats only has none)."""
    kinds = [seat_kind(player) for player in players]
    check_entropy(entropy)
    if rated and (refused := rated_refusal(players, seed_chosen)) is not None:
        raise refused
    if all(kind in (HOTSEAT, BOT) for kind in kinds) and entropy is not None:
        raise Refused("rule", "bad_entropy", "entropy comes with the creator's account seat")
    return kinds


@dataclass(frozen=True)
class Holders:
    """The accounts a creation seats beside its creator: invited guests and server bots (taking their seat at
    once), by seat."""

    invited: dict[int, Member] = field(default_factory=dict)
    bots: dict[int, Member] = field(default_factory=dict)


def seat_holders(
    players: Sequence[SeatRequest],
    kinds: Sequence[str],
    game: str,
    entropy: str | None,
    seed: str | None,
    bots: Mapping[int, Member],
    invitees: Mapping[int, Member | None],
) -> Holders:
    """Who holds or is invited to each account game's seat, given the server bots' accounts (``bots``, by
    seat) and the accounts invited (``invitees``, None for a name no account has): a chosen seed is 1-200
    characters, one account seat at most (the creator's) with the entropy beside it, a server bot plays under
    its account's name, an invited server bot accepts only for the game it plays."""
    if seed is not None and (not seed or len(seed) > MAX_SEED):
        raise Refused("malformed", "bad_seed", f"a seed is 1-{MAX_SEED} characters")
    if kinds.count(ACCOUNT) > 1:
        raise Refused("rule", "duplicate_account", "an account holds at most one seat of a game")
    if entropy is not None and ACCOUNT not in kinds:
        raise Refused("rule", "bad_entropy", "entropy comes with the creator's account seat")
    holders = Holders()
    for seat, player in enumerate(players):
        if isinstance(player.bot, str):
            if player.name is not None:
                raise Refused(
                    "rule", "bad_seat", "a server bot in a game with accounts plays under its account's name"
                )
            holders.bots[seat] = bots[seat]
        if player.invite is not None:
            account = invitees[seat]
            if account is None:
                raise Refused("rule", "unknown_account", f"no account called {shown(player.invite)}")
            if account.bot_game is None:
                holders.invited[seat] = account
            elif account.bot_game == game:
                holders.bots[seat] = account  # the server's bot accepts every invitation to its game
            else:
                raise Refused(
                    "rule", "bot_plays_another_game", f"{account.name} plays {account.bot_game} only"
                )
    return holders


@dataclass(frozen=True, kw_only=True)
class PlannedSeat:
    """A seat a creation writes: its kind, who holds it (an account, or a hot-seat ``name``) or is invited
    to it, the entropy it brings, and whether it is taken (joined) at once."""

    seat: int
    kind: str
    holder: Member | None = None
    invited: Member | None = None
    name: str | None = None
    entropy: str | None = None
    joined: bool = False


@dataclass(frozen=True, kw_only=True)
class SeatPlan:
    """The seats a creation writes, in seat order, and whether they fill the game at once (it starts)."""

    seats: list[PlannedSeat]
    full: bool


def seats_to_write(
    players: Sequence[SeatRequest],
    kinds: Sequence[str],
    creator: Member,
    entropy: str | None,
    holders: Holders,
) -> SeatPlan:
    """The seats of an account game: an account holds or is invited to at most one seat, hot-seat names
    are valid and no two player names (hot-seat, the creator's, the bots') look alike; the game is full at
    once when no seat is left open or invited."""
    held = (
        [a.account_id for a in holders.invited.values()]
        + [a.account_id for a in holders.bots.values()]
        + ([creator.account_id] if ACCOUNT in kinds else [])
    )
    if len(set(held)) != len(held):
        raise Refused(
            "rule", "duplicate_account", "an account is invited to (or holds) at most one seat of a game"
        )
    names = [(player.name or "").strip() for player in players if player.name is not None]
    for name in names:
        if problem := name_problem(name):
            raise Refused("rule", "bad_player_name", problem)
    if ACCOUNT in kinds:
        names.append(creator.name)
    names.extend(bot.name for bot in holders.bots.values())
    if looks_repeated(names):
        raise Refused(
            "rule", "duplicate_player_name", "player names must differ (and not look alike) within a game"
        )
    seats: list[PlannedSeat] = []
    for seat, (kind, player) in enumerate(zip(kinds, players, strict=True)):
        if seat in holders.bots:
            seats.append(PlannedSeat(seat=seat, kind=ACCOUNT, holder=holders.bots[seat], joined=True))
        elif kind == HOTSEAT:
            seats.append(PlannedSeat(seat=seat, kind=kind, name=(player.name or "").strip(), joined=True))
        elif kind == ACCOUNT:
            seats.append(PlannedSeat(seat=seat, kind=kind, holder=creator, entropy=entropy, joined=True))
        elif kind == INVITE:
            seats.append(PlannedSeat(seat=seat, kind=kind, invited=holders.invited[seat]))
        else:
            seats.append(PlannedSeat(seat=seat, kind=kind))
    return SeatPlan(seats=seats, full=all(seat.joined for seat in seats))


# ----------------------------------------------------------------------------------------------- seats


def must_wait(status: str) -> None:
    """A game's seats change only while it waits for players."""
    if status == CANCELLED:
        raise Refused("conflict", "game_cancelled", "the game was cancelled")
    if status != WAITING:
        raise Refused("conflict", "game_started", "the game has started: its seats are taken")


def seating_a_bot(creator_id: str | None, caller_id: str, entropy: str | None) -> None:
    """Only the game's creator seats a server bot, which brings no entropy."""
    if creator_id != caller_id:
        raise Refused("forbidden", "not_creator", "only the game's creator seats a server bot in it")
    if entropy is not None:
        raise Refused("rule", "bad_entropy", "entropy comes with a player's own seat, not a bot's")


@dataclass(frozen=True)
class Taken:
    """The seat a join takes, and whether that fills the game (it starts)."""

    seat: int
    fills: bool


def seat_to_take(seats: Sequence[Seat], account_id: str, account_name: str, wanted: int | None) -> Taken:
    """The seat an account joining takes: the ``wanted`` one, else the one reserved for it, else the first
    open one; refused if it holds a seat already, a hot-seat seat has (or looks like) its name, the wanted
    seat does not exist, is reserved for another account or taken, or no seat is free."""
    if any(seat.account_id == account_id for seat in seats):
        raise Refused("conflict", "already_seated", "this account already holds a seat of this game")
    if any(seat.name is not None and skeleton(seat.name) == skeleton(account_name) for seat in seats):
        raise Refused(
            "conflict", "name_in_game", "a hot-seat seat of this game has (or looks like) this account's name"
        )
    free = [seat for seat in seats if seat.kind == OPEN or seat.invited_id == account_id]
    if wanted is not None:
        chosen = next((seat for seat in seats if seat.seat == wanted), None)
        if chosen is None:
            raise Refused("rule", "no_such_seat", f"the game has seats 0..{len(seats) - 1}")
        if chosen.kind == INVITE and chosen.invited_id != account_id:
            raise Refused("forbidden", "seat_reserved", "this seat is reserved for an invited account")
        if chosen not in free:
            raise Refused("conflict", "seat_taken", "this seat is taken")
    else:
        mine = [seat for seat in free if seat.invited_id == account_id]
        chosen = next(iter(mine or free), None)
        if chosen is None:
            raise Refused("conflict", "no_free_seat", "every seat is taken or reserved")
    remaining = sum(1 for seat in seats if seat.kind in (OPEN, INVITE)) - 1
    return Taken(chosen.seat, fills=remaining == 0)


def leaving(status: str, creator_id: str | None, account_id: str) -> bool:
    """Whether an account leaving a waiting game cancels it (its creator does); anyone else gives a seat
    back (it becomes open)."""
    must_wait(status)
    return creator_id == account_id


def given_back(seat: int | None) -> int:
    """The seat an account gave back (refused when it held none)."""
    if seat is None:
        raise Refused("conflict", "not_seated", "this account holds no seat of this game")
    return seat


def declining(status: str, invited_seat: int | None) -> None:
    """Declining an invitation to a waiting game cancels it, as a declined challenge is; refused without
    an invitation."""
    must_wait(status)
    if invited_seat is None:
        raise Refused("conflict", "not_invited", "this account has no invitation to this game")
