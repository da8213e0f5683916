"""The lobby's tables (lobby_games, game_seats): the interface LobbyService depends on, its PostgreSQL
implementation and an in-memory twin passing the same contract tests (docs/decisions/0008-sql-in-repositories.md).

Every change of a waiting game's seats happens under ``locked``: one transaction that first locks the game's
lobby row (``SELECT ... FOR UPDATE``), so changes of one game take turns across every process; the twin takes
an ``asyncio.Lock`` per game instead and keeps the block's writes only when it ends without an error, as a
transaction would. A start runs under ``starting``: one transaction holding an advisory lock named after the
game (the twin: a second lock per game), so a game is started once whichever processes try. A creation with
invited seats locks the invitations of its creator and of each invitee (an advisory lock per account; the
twin: one lock) and checks their counts in the transaction that lists it, so concurrent creations cannot
together pass a bound on open invitations (service/lobby/lobby.py). Creations of one account's games of
server bots only take turns under ``bot_games_locked``: a transaction holding an advisory lock named after the
account, kept while the game is counted and created (the twin: a lock per account).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import UTC, datetime
from typing import Any, Protocol

import msgspec

from domain.lobby import ACCOUNT, CANCELLED, INVITE, OPEN, STARTED, STARTING, WAITING, Seat
from eventstore.keys import KeyStore
from service.accounts.accounts import Account
from service.games.schemas import ClockIn, stored_clock
from service.lobby.schemas import LobbyGame, LobbySeat, MyGame
from service.runtime.sql import Pool, PostgresRepository, Where, record, records

START_LOCK = 0x6C6F_6262  # advisory lock namespace (b"lobb"): one start of a game at a time
INVITATION_LOCK = (
    0x696E_7669  # advisory lock namespace (b"invi"): an account's invitations change one at a time
)
BOT_GAMES_LOCK = (
    0x626F_7473  # advisory lock namespace (b"bots"): an account's bot-only games created one at a time
)
# every lock of a creation's accounts (in a namespace: $1) in one statement, in the order of their keys, so two
# creations locking accounts they share take them in the same order (no deadlock)
LOCK_ACCOUNTS = (
    "SELECT pg_advisory_xact_lock($1, key)"
    " FROM (SELECT DISTINCT hashtext(account_id) AS key FROM unnest($2::text[]) account_id ORDER BY key) keys"
)
SENT = (
    "SELECT count(*) FROM lobby_games l JOIN game_seats s USING (game_id)"
    " WHERE l.status = 'waiting' AND l.creator_id = $1 AND s.invited_id IS NOT NULL AND s.account_id IS NULL"
)
RECEIVED = (
    "SELECT count(*) FROM game_seats s JOIN lobby_games l USING (game_id)"
    " WHERE s.invited_id = $1 AND s.account_id IS NULL AND l.status = 'waiting'"
)


class LockedLobby(msgspec.Struct, frozen=True, kw_only=True):
    """A game's lobby row as a change of its seats reads it (locked)."""

    status: str
    creator_id: str | None
    game: str


class StartingLobby(msgspec.Struct, frozen=True, kw_only=True):
    """A game's lobby row as its start reads it."""

    game: str
    options: dict[str, Any]
    rated: bool
    seed: str | None
    status: str
    clock: dict[str, Any] | None
    creator_id: str | None


class StartingSeat(msgspec.Struct, frozen=True, kw_only=True):
    """A seat as the start reads it: with its account's name and, for a server bot's, its level."""

    seat: int
    kind: str
    account_id: str | None
    name: str | None
    token_hash: str | None
    entropy: str | None
    account_name: str | None
    bot_level: str | None


class NewLobbyGame(msgspec.Struct, frozen=True, kw_only=True):
    """A game entering the lobby: ``status`` waiting, or starting when its seats are all filled at once."""

    game_id: str
    game: str
    options: dict[str, Any]
    rated: bool
    seed: str | None
    creator_id: str
    status: str
    seats: int
    clock: ClockIn | None


class NewSeat(msgspec.Struct, frozen=True, kw_only=True):
    """A seat written at creation; ``joined``: taken at once (its ``joined_at`` is the creation's time)."""

    seat: int
    kind: str
    account_id: str | None = None
    invited_id: str | None = None
    name: str | None = None
    token_hash: str | None = None
    entropy: str | None = None
    joined: bool = False


class Listing(msgspec.Struct, frozen=True, kw_only=True):
    """Which lobby games to read: one by id, or the waiting ones filtered by game, options contained, rated,
    and after a (created_at, game_id) position."""

    game_id: str | None = None
    waiting: bool = False
    game: str | None = None
    options: dict[str, Any] | None = None
    rated: bool | None = None
    after: tuple[datetime, str] | None = None


class LockedGame(Protocol):
    """A game whose lobby row is locked for one transaction: its seats, read and changed."""

    @property
    def lobby(self) -> LockedLobby: ...

    async def seats(self) -> list[Seat]:
        """Its seats, in seat order."""
        ...

    async def take(self, seat: int, account_id: str, entropy: str | None) -> None:
        """The account takes the seat (any invitation to it is spent), bringing its entropy."""
        ...

    async def mark_starting(self) -> None:
        """Its last seat is filled: it starts."""
        ...

    async def give_back(self, account_id: str) -> int | None:
        """The account's seat becomes open; which seat (None: it held none)."""
        ...

    async def invitation(self, account_id: str) -> int | None:
        """The seat reserved for (or once reserved for) the account, if any."""
        ...

    async def cancel(self) -> None:
        """The game is cancelled."""
        ...


class StartingGame(Protocol):
    """A game whose seats are all filled, read under the start's lock."""

    @property
    def lobby(self) -> StartingLobby: ...

    @property
    def seats(self) -> list[StartingSeat]: ...

    async def started(self) -> None:
        """Its opening events are appended: it is started."""
        ...


class InvitationCounts(Protocol):
    """How many invitations are open: read at once, or in the transaction of a creation."""

    async def invitations_sent(self, inviter_id: str) -> int:
        """Seats still reserved for other accounts in the account's games waiting for players."""
        ...

    async def invitations_received(self, invitee_id: str) -> int:
        """Seats still reserved for the account in games waiting for players."""
        ...


# what a creation with invited seats runs on the counts, under its accounts' locks (raising refuses it)
InvitationCheck = Callable[[InvitationCounts], Awaitable[None]]


class LobbyRepository(InvitationCounts, Protocol):
    """The lobby's games and seats."""

    async def create(
        self, game: NewLobbyGame, seats: Sequence[NewSeat], check: InvitationCheck | None = None
    ) -> None:
        """List a new game with its seats (one transaction). With invited seats, ``check`` runs first on
        the counts in that transaction, which holds the invitations of the creator and of each invitee
        locked until it ends: concurrent creations pass it one at a time; an error from it lists nothing."""
        ...

    def locked(self, game_id: str) -> AbstractAsyncContextManager[LockedGame | None]:
        """The game locked for one transaction of seat changes (None: never in the lobby)."""
        ...

    def starting(self, game_id: str) -> AbstractAsyncContextManager[StartingGame | None]:
        """The game under its start's lock for one transaction (None: absent, or not starting)."""
        ...

    def bot_games_locked(self, account_id: str) -> AbstractAsyncContextManager[None]:
        """The account's creations of games of server bots only take turns, across every process, while the
        block runs: what one counts and creates in it, the next one sees."""
        ...

    async def games(self, listing: Listing, limit: int) -> list[LobbyGame]:
        """Lobby games with their seats, newest first."""
        ...

    async def games_of(self, account_id: str, after: tuple[datetime, str] | None, limit: int) -> list[MyGame]:
        """The games where the account holds or is invited to a seat, newest first, after ``after``."""
        ...


def seat_status(kind: str) -> str:
    """A seat as the lobby shows it: ``open``, ``invited`` or ``taken``."""
    return {OPEN: "open", INVITE: "invited"}.get(kind, "taken")


# ----------------------------------------------------------------------------------------------- PostgreSQL


class PostgresLockedGame:
    """A game's lobby row locked by the transaction of ``connection``."""

    def __init__(self, connection: Any, game_id: str, lobby: LockedLobby) -> None:
        self.connection = connection
        self.game_id = game_id
        self.lobby = lobby

    async def seats(self) -> list[Seat]:
        """Its seats, in seat order."""
        rows = await self.connection.fetch(
            "SELECT seat, kind, account_id, invited_id, name FROM game_seats WHERE game_id = $1 ORDER BY seat",
            self.game_id,
        )
        return records(Seat, rows)

    async def take(self, seat: int, account_id: str, entropy: str | None) -> None:
        """The account takes the seat (any invitation to it is spent), bringing its entropy."""
        await self.connection.execute(
            "UPDATE game_seats SET kind = $3, account_id = $4, invited_id = NULL, entropy = $5,"
            " joined_at = now() WHERE game_id = $1 AND seat = $2",
            self.game_id,
            seat,
            ACCOUNT,
            account_id,
            entropy,
        )

    async def mark_starting(self) -> None:
        """Its last seat is filled: it starts."""
        await self.connection.execute(
            "UPDATE lobby_games SET status = $2 WHERE game_id = $1", self.game_id, STARTING
        )

    async def give_back(self, account_id: str) -> int | None:
        """The account's seat becomes open; which seat (None: it held none)."""
        seat: int | None = await self.connection.fetchval(
            "UPDATE game_seats SET kind = $3, account_id = NULL, entropy = NULL, joined_at = NULL"
            " WHERE game_id = $1 AND account_id = $2 RETURNING seat",
            self.game_id,
            account_id,
            OPEN,
        )
        return seat

    async def invitation(self, account_id: str) -> int | None:
        """The seat reserved for the account, if any."""
        seat: int | None = await self.connection.fetchval(
            "SELECT seat FROM game_seats WHERE game_id = $1 AND invited_id = $2", self.game_id, account_id
        )
        return seat

    async def cancel(self) -> None:
        """The game is cancelled."""
        await self.connection.execute(
            "UPDATE lobby_games SET status = $2 WHERE game_id = $1", self.game_id, CANCELLED
        )


class PostgresStartingGame:
    """A game read under its start's advisory lock, in the transaction of ``connection``."""

    def __init__(
        self, connection: Any, game_id: str, lobby: StartingLobby, seats: list[StartingSeat]
    ) -> None:
        self.connection = connection
        self.game_id = game_id
        self.lobby = lobby
        self.seats = seats

    async def started(self) -> None:
        """Its opening events are appended: it is started."""
        await self.connection.execute(
            "UPDATE lobby_games SET status = $2, started_at = now() WHERE game_id = $1", self.game_id, STARTED
        )


class PostgresInvitationCounts:
    """The open invitations as the statements of ``connection`` see them."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection

    async def invitations_sent(self, inviter_id: str) -> int:
        """Seats still reserved for other accounts in the account's games waiting for players."""
        sent: int = await self.connection.fetchval(SENT, inviter_id)
        return sent

    async def invitations_received(self, invitee_id: str) -> int:
        """Seats still reserved for the account in games waiting for players."""
        received: int = await self.connection.fetchval(RECEIVED, invitee_id)
        return received


class PostgresLobby(PostgresRepository):
    """The lobby in PostgreSQL (tables of migration 0007_accounts and later)."""

    def __init__(self, pool: Pool, acquire_timeout: float | None = None) -> None:
        super().__init__(pool, acquire_timeout)
        # per account: this process's lock of its bot-only game creations, and how many hold or wait for it
        self.bot_game_turns: dict[str, tuple[asyncio.Lock, int]] = {}

    async def invitations_sent(self, inviter_id: str) -> int:
        """Seats still reserved for other accounts in the account's games waiting for players."""
        async with self.connection() as connection:
            return await PostgresInvitationCounts(connection).invitations_sent(inviter_id)

    async def invitations_received(self, invitee_id: str) -> int:
        """Seats still reserved for the account in games waiting for players."""
        async with self.connection() as connection:
            return await PostgresInvitationCounts(connection).invitations_received(invitee_id)

    async def create(
        self, game: NewLobbyGame, seats: Sequence[NewSeat], check: InvitationCheck | None = None
    ) -> None:
        """List a new game with its seats (one transaction); with invited seats, first lock the invitations
        of the creator and of each invitee and run ``check`` on the counts the transaction reads (each of
        its statements sees what the creations before it committed)."""
        invitees = [seat.invited_id for seat in seats if seat.invited_id is not None]
        async with self.connection() as connection, connection.transaction():
            if invitees and check is not None:
                await connection.execute(LOCK_ACCOUNTS, INVITATION_LOCK, [game.creator_id, *invitees])
                await check(PostgresInvitationCounts(connection))
            await connection.execute(
                "INSERT INTO lobby_games (game_id, game, options, rated, seed, creator_id, status, seats, clock)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                game.game_id,
                game.game,
                game.options,
                game.rated,
                game.seed,
                game.creator_id,
                game.status,
                game.seats,
                game.clock,
            )
            await connection.executemany(
                "INSERT INTO game_seats (game_id, seat, kind, account_id, invited_id, name, token_hash,"
                " entropy, joined_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8,"
                " CASE WHEN $9 THEN now() END)",
                [
                    (
                        game.game_id,
                        seat.seat,
                        seat.kind,
                        seat.account_id,
                        seat.invited_id,
                        seat.name,
                        seat.token_hash,
                        seat.entropy,
                        seat.joined,
                    )
                    for seat in seats
                ],
            )

    @asynccontextmanager
    async def locked(self, game_id: str) -> AsyncIterator[PostgresLockedGame | None]:
        """The game's lobby row locked (``FOR UPDATE``) for one transaction (None: never in the lobby)."""
        async with self.connection() as connection, connection.transaction():
            row = await connection.fetchrow(
                "SELECT status, creator_id, game FROM lobby_games WHERE game_id = $1 FOR UPDATE", game_id
            )
            yield None if row is None else PostgresLockedGame(connection, game_id, record(LockedLobby, row))

    @asynccontextmanager
    async def bot_games_locked(self, account_id: str) -> AsyncIterator[None]:
        """The account's bot-only game creations take turns: in this process on a lock of its own (so its
        waiting creations hold no pooled connection), across processes on an advisory lock named after the
        account, held by a transaction open until the block ends."""
        turn, users = self.bot_game_turns.get(account_id, (asyncio.Lock(), 0))
        self.bot_game_turns[account_id] = (turn, users + 1)
        try:
            async with turn, self.connection() as connection, connection.transaction():
                await connection.execute(LOCK_ACCOUNTS, BOT_GAMES_LOCK, [account_id])
                yield
        finally:  # the process's lock of the account is dropped once no creation holds or waits for it
            _, users = self.bot_game_turns[account_id]
            if users == 1:
                del self.bot_game_turns[account_id]
            else:
                self.bot_game_turns[account_id] = (turn, users - 1)

    @asynccontextmanager
    async def starting(self, game_id: str) -> AsyncIterator[PostgresStartingGame | None]:
        """The game under an advisory lock named after it, for one transaction (None: absent, or not
        starting)."""
        async with self.connection() as connection, connection.transaction():
            await connection.execute("SELECT pg_advisory_xact_lock($1, hashtext($2))", START_LOCK, game_id)
            lobby = await connection.fetchrow(
                "SELECT game, options, rated, seed, status, clock, creator_id FROM lobby_games WHERE game_id = $1",
                game_id,
            )
            if lobby is None or lobby["status"] != STARTING:
                yield None
                return
            seats = await connection.fetch(
                "SELECT s.seat, s.kind, s.account_id, s.name, s.token_hash, s.entropy, a.name AS account_name,"
                " a.bot_level"
                " FROM game_seats s LEFT JOIN accounts a USING (account_id)"
                " WHERE s.game_id = $1 ORDER BY s.seat",
                game_id,
            )
            yield PostgresStartingGame(
                connection, game_id, record(StartingLobby, lobby), records(StartingSeat, seats)
            )

    async def games(self, listing: Listing, limit: int) -> list[LobbyGame]:
        """Lobby games with their seats, newest first."""
        where = Where(*(["g.status = 'waiting'"] if listing.waiting else []))
        where.add_if(listing.game_id, "g.game_id = {}")
        where.add_if(listing.game, "g.game = {}")
        where.add_if(listing.options, "g.options @> {}")
        where.add_if(listing.rated, "g.rated = {}")
        if listing.after is not None:
            where.add("(g.created_at, g.game_id) < ({}, {})", *listing.after)
        async with self.connection() as connection:
            rows = await connection.fetch(
                "SELECT g.game_id, g.game, g.options, g.rated, g.status, g.created_at, c.name AS creator,"
                " k.commitment AS seed_commitment, g.seed IS NOT NULL AS seed_chosen, g.clock"
                " FROM lobby_games g LEFT JOIN accounts c ON c.account_id = g.creator_id"
                f" LEFT JOIN seed_commits k ON k.subject_id = g.game_id {where.sql}"
                f" ORDER BY g.created_at DESC, g.game_id DESC LIMIT {int(limit)}",
                *where.args,
            )
            seats = await connection.fetch(
                "SELECT s.game_id, s.seat, s.kind, s.name, a.name AS account, i.name AS invited"
                " FROM game_seats s LEFT JOIN accounts a ON a.account_id = s.account_id"
                " LEFT JOIN accounts i ON i.account_id = s.invited_id"
                " WHERE s.game_id = ANY($1) ORDER BY s.game_id, s.seat",
                [row["game_id"] for row in rows],
            )
        by_game: dict[str, list[LobbySeat]] = {}
        for seat in seats:
            by_game.setdefault(seat["game_id"], []).append(
                LobbySeat(
                    seat=seat["seat"],
                    status=seat_status(seat["kind"]),
                    name=seat["account"] or seat["name"],
                    invited=seat["invited"],
                )
            )
        return [
            record(
                LobbyGame,
                {
                    **dict(row.items()),
                    "seats": by_game.get(row["game_id"], []),
                    "clock": stored_clock(row["clock"]),
                },
            )
            for row in rows
        ]

    async def games_of(self, account_id: str, after: tuple[datetime, str] | None, limit: int) -> list[MyGame]:
        """The games where the account holds or is invited to a seat, newest first (lobby status while
        waiting, the listing's once started), after ``after``; a seat of a game in neither table is left out."""
        where = Where(args=[account_id])
        if after is not None:
            where.add("(created_at, game_id) < ({}, {})", *after)
        async with self.connection() as connection:
            rows = await connection.fetch(
                "SELECT * FROM ("
                " SELECT s.game_id, s.seat, s.invited_id IS NOT NULL AS invited,"
                "  coalesce(l.game, g.game) AS game, coalesce(l.created_at, g.created_at) AS created_at,"
                "  CASE WHEN l.status IN ('waiting', 'starting') THEN 'waiting'"
                "       WHEN l.status = 'cancelled' THEN 'cancelled'"
                "       ELSE coalesce(g.status, 'active') END AS status,"
                "  coalesce(l.rated, false) AS rated, g.tournament, r.score, r.rank,"
                "  coalesce(r.lower_is_better, false) AS lower_is_better, r.solved,"
                "  coalesce(g.seed_commitment, k.commitment) AS seed_commitment, l.clock"
                " FROM game_seats s LEFT JOIN lobby_games l USING (game_id)"
                " LEFT JOIN game_listing g USING (game_id)"
                " LEFT JOIN seed_commits k ON k.subject_id = s.game_id"
                " LEFT JOIN game_results r ON r.game_id = s.game_id AND r.seat = s.seat"
                " WHERE s.account_id = $1 OR s.invited_id = $1) mine"
                f" {where.sql} ORDER BY created_at DESC, game_id DESC LIMIT {int(limit)}",
                *where.args,
            )
        return [
            record(
                MyGame, {**dict(row.items()), "game": row["game"] or "", "clock": stored_clock(row["clock"])}
            )
            for row in rows
            if row["created_at"] is not None
        ]


# ----------------------------------------------------------------------------------------------- in memory


class AccountsById(Protocol):
    """Where the twin finds the accounts its seats name (service/accounts)."""

    async def by_ids(self, account_ids: list[str]) -> dict[str, Account]:
        """The accounts with these ids."""
        ...


class SeatTables(Protocol):
    """The accounts twin's copy of who holds which seat and each game's lobby status (in PostgreSQL, the
    lobby's own tables, which the accounts read)."""

    def hold_seat(self, game_id: str, seat: int, account_id: str | None) -> None:
        """The seat is held by this account (None: by none)."""
        ...

    def set_lobby_status(self, game_id: str, status: str) -> None:
        """The game's lobby status."""
        ...


class StoredGame(msgspec.Struct, kw_only=True):
    """A lobby game as the twin keeps it."""

    new: NewLobbyGame
    status: str
    created_at: datetime
    seats: list[NewSeat]


def json_equal(stored: Any, wanted: Any) -> bool:
    """Two JSON scalars are equal as jsonb compares them (true is no number)."""
    return isinstance(stored, bool) == isinstance(wanted, bool) and stored == wanted


def contains(options: dict[str, Any], wanted: dict[str, Any]) -> bool:
    """``options @> wanted`` for objects of scalars: every wanted key is there with an equal value."""
    return all(key in options and json_equal(options[key], value) for key, value in wanted.items())


class InMemoryLockedGame:
    """A game locked by the twin: changes go to a copy, kept only when the block ends without an error."""

    def __init__(self, stored: StoredGame) -> None:
        self.stored = msgspec.structs.replace(stored, seats=list(stored.seats))
        self.lobby = LockedLobby(status=stored.status, creator_id=stored.new.creator_id, game=stored.new.game)

    async def seats(self) -> list[Seat]:
        """Its seats, in seat order."""
        return [
            Seat(seat=s.seat, kind=s.kind, account_id=s.account_id, invited_id=s.invited_id, name=s.name)
            for s in self.stored.seats
        ]

    async def take(self, seat: int, account_id: str, entropy: str | None) -> None:
        """The account takes the seat (any invitation to it is spent), bringing its entropy."""
        self.stored.seats[seat] = msgspec.structs.replace(
            self.stored.seats[seat],
            kind=ACCOUNT,
            account_id=account_id,
            invited_id=None,
            entropy=entropy,
            joined=True,
        )

    async def mark_starting(self) -> None:
        """Its last seat is filled: it starts."""
        self.stored.status = STARTING

    async def give_back(self, account_id: str) -> int | None:
        """The account's seat becomes open; which seat (None: it held none)."""
        for index, seat in enumerate(self.stored.seats):
            if seat.account_id == account_id:
                self.stored.seats[index] = msgspec.structs.replace(
                    seat, kind=OPEN, account_id=None, entropy=None, joined=False
                )
                return seat.seat
        return None

    async def invitation(self, account_id: str) -> int | None:
        """The seat reserved for the account, if any."""
        return next((seat.seat for seat in self.stored.seats if seat.invited_id == account_id), None)

    async def cancel(self) -> None:
        """The game is cancelled."""
        self.stored.status = CANCELLED


class InMemoryStartingGame:
    """A game read under the twin's start lock."""

    def __init__(self, lobby: StartingLobby, seats: list[StartingSeat]) -> None:
        self.lobby = lobby
        self.seats = seats
        self.is_started = False

    async def started(self) -> None:
        """Its opening events are appended: it is started (when the block ends without an error)."""
        self.is_started = True


class InMemoryLobby:
    """The lobby in memory, for service tests without a database: the same semantics as PostgresLobby, an
    ``asyncio.Lock`` per game in place of its row lock and another in place of its start lock. It keeps the
    lobby's games only: it reads account names from ``accounts`` and seed commitments from ``keys``, and
    knows no started game's listing (a started game's status is ``active``) or results. Every change it
    keeps is copied to ``seats`` (the accounts twin), which reads the lobby's tables in PostgreSQL."""

    def __init__(self, accounts: AccountsById, keys: KeyStore, seats: SeatTables | None = None) -> None:
        self.accounts = accounts
        self.keys = keys
        self.seat_tables = seats
        self.stored: dict[str, StoredGame] = {}
        self.row_locks: dict[str, asyncio.Lock] = {}
        self.start_locks: dict[str, asyncio.Lock] = {}
        self.invitation_lock = asyncio.Lock()
        self.bot_game_locks: dict[str, asyncio.Lock] = {}

    async def invitations_sent(self, inviter_id: str) -> int:
        """Seats still reserved for other accounts in the account's games waiting for players."""
        return sum(
            1
            for game in self.stored.values()
            if game.status == WAITING and game.new.creator_id == inviter_id
            for seat in game.seats
            if seat.invited_id is not None and seat.account_id is None
        )

    async def invitations_received(self, invitee_id: str) -> int:
        """Seats still reserved for the account in games waiting for players."""
        return sum(
            1
            for game in self.stored.values()
            if game.status == WAITING
            for seat in game.seats
            if seat.invited_id == invitee_id and seat.account_id is None
        )

    async def create(
        self, game: NewLobbyGame, seats: Sequence[NewSeat], check: InvitationCheck | None = None
    ) -> None:
        """List a new game with its seats (a game id is listed once); with invited seats, ``check`` runs
        first on the counts, under one lock for every creation's invitations."""
        if game.game_id in self.stored:
            raise ValueError(f"the lobby has a game {game.game_id}")
        async with self.invitation_lock:
            if check is not None and any(seat.invited_id is not None for seat in seats):
                await check(self)
            self._keep(
                StoredGame(
                    new=game,
                    status=game.status,
                    created_at=datetime.now(UTC),
                    seats=sorted(seats, key=lambda s: s.seat),
                )
            )

    def _keep(self, stored: StoredGame) -> None:
        """Keep the game as it is now, and copy its seats and status to the accounts twin."""
        self.stored[stored.new.game_id] = stored
        if self.seat_tables is not None:
            for seat in stored.seats:  # first free every seat: an account holds one seat of a game at most
                self.seat_tables.hold_seat(stored.new.game_id, seat.seat, None)
            for seat in stored.seats:
                self.seat_tables.hold_seat(stored.new.game_id, seat.seat, seat.account_id)
            self.seat_tables.set_lobby_status(stored.new.game_id, stored.status)

    @asynccontextmanager
    async def locked(self, game_id: str) -> AsyncIterator[InMemoryLockedGame | None]:
        """The game under its lock; its changes are kept when the block ends without an error."""
        async with self.row_locks.setdefault(game_id, asyncio.Lock()):
            stored = self.stored.get(game_id)
            if stored is None:
                yield None
                return
            locked = InMemoryLockedGame(stored)
            yield locked
            self._keep(locked.stored)

    @asynccontextmanager
    async def bot_games_locked(self, account_id: str) -> AsyncIterator[None]:
        """The account's bot-only game creations take turns on a lock per account."""
        async with self.bot_game_locks.setdefault(account_id, asyncio.Lock()):
            yield

    @asynccontextmanager
    async def starting(self, game_id: str) -> AsyncIterator[InMemoryStartingGame | None]:
        """The game under its start lock (None: absent, or not starting); marked started when the block ends
        without an error."""
        async with self.start_locks.setdefault(game_id, asyncio.Lock()):
            stored = self.stored.get(game_id)
            if stored is None or stored.status != STARTING:
                yield None
                return
            holders = await self.accounts.by_ids(
                [s.account_id for s in stored.seats if s.account_id is not None]
            )
            new = stored.new
            lobby = StartingLobby(
                game=new.game,
                options=new.options,
                rated=new.rated,
                seed=new.seed,
                status=stored.status,
                clock=None if new.clock is None else msgspec.to_builtins(new.clock),
                creator_id=new.creator_id,
            )
            seats = [
                StartingSeat(
                    seat=s.seat,
                    kind=s.kind,
                    account_id=s.account_id,
                    name=s.name,
                    token_hash=s.token_hash,
                    entropy=s.entropy,
                    account_name=holders[s.account_id].name if s.account_id is not None else None,
                    bot_level=holders[s.account_id].bot_level if s.account_id is not None else None,
                )
                for s in stored.seats
            ]
            starting = InMemoryStartingGame(lobby, seats)
            yield starting
            if starting.is_started:
                async with self.row_locks.setdefault(game_id, asyncio.Lock()):
                    self._keep(msgspec.structs.replace(self.stored[game_id], status=STARTED))

    async def games(self, listing: Listing, limit: int) -> list[LobbyGame]:
        """Lobby games with their seats, newest first."""
        chosen = sorted(
            (game for game in self.stored.values() if self._listed(game, listing)),
            key=lambda game: (game.created_at, game.new.game_id),
            reverse=True,
        )[:limit]
        ids = {
            i
            for game in chosen
            for s in game.seats
            for i in (s.account_id, s.invited_id, game.new.creator_id)
        }
        named = await self.accounts.by_ids([i for i in ids if i is not None])

        def name(account_id: str | None) -> str | None:
            return None if account_id is None or account_id not in named else named[account_id].name

        games = []
        for game in chosen:
            committed = await self.keys.committed(game.new.game_id)
            games.append(
                LobbyGame(
                    game_id=game.new.game_id,
                    game=game.new.game,
                    options=game.new.options,
                    rated=game.new.rated,
                    status=game.status,
                    creator=name(game.new.creator_id),
                    seats=[
                        LobbySeat(
                            seat=s.seat,
                            status=seat_status(s.kind),
                            name=name(s.account_id) or s.name,
                            invited=name(s.invited_id),
                        )
                        for s in game.seats
                    ],
                    created_at=game.created_at,
                    seed_commitment=None if committed is None else committed.commitment,
                    seed_chosen=game.new.seed is not None,
                    clock=None if game.new.clock is None else msgspec.to_builtins(game.new.clock),
                )
            )
        return games

    @staticmethod
    def _listed(game: StoredGame, listing: Listing) -> bool:
        """Whether the listing's conditions all hold for the game."""
        new = game.new
        return (
            (not listing.waiting or game.status == WAITING)
            and listing.game_id in (None, new.game_id)
            and listing.game in (None, new.game)
            and (listing.options is None or contains(new.options, listing.options))
            and listing.rated in (None, new.rated)
            and (listing.after is None or (game.created_at, new.game_id) < listing.after)
        )

    async def games_of(self, account_id: str, after: tuple[datetime, str] | None, limit: int) -> list[MyGame]:
        """The lobby games where the account holds or is invited to a seat, newest first, after ``after``."""
        mine = sorted(
            (
                (game, seat)
                for game in self.stored.values()
                for seat in game.seats
                if account_id in (seat.account_id, seat.invited_id)
                and (after is None or (game.created_at, game.new.game_id) < after)
            ),
            key=lambda pair: (pair[0].created_at, pair[0].new.game_id),
            reverse=True,
        )[:limit]
        games = []
        for game, seat in mine:
            committed = await self.keys.committed(game.new.game_id)
            games.append(
                MyGame(
                    game_id=game.new.game_id,
                    game=game.new.game,
                    seat=seat.seat,
                    invited=seat.invited_id is not None,
                    status=my_status(game.status),
                    rated=game.new.rated,
                    tournament=None,
                    created_at=game.created_at,
                    seed_commitment=None if committed is None else committed.commitment,
                    clock=None if game.new.clock is None else msgspec.to_builtins(game.new.clock),
                )
            )
        return games


def my_status(status: str) -> str:
    """A lobby game's status as an account's games show it (the twin knows no listing: started is active)."""
    return {WAITING: "waiting", STARTING: "waiting", CANCELLED: "cancelled"}.get(status, "active")
