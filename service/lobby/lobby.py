"""The lobby: games created with seats open to any account, reserved for an invited account, or taken by the
creator's account, which start (their opening events appended) when the last seat is filled; and which
games may be rated.

Every change of a waiting game's seats runs in one transaction that first locks the game's lobby row
(``SELECT ... FOR UPDATE``), so joins, leaves and declines of one game take turns across every process:
of two accounts racing for the last seat exactly one gets it. The transaction that fills the last seat
marks the game ``starting``; the opening events are appended after it commits, and a start cut short (a
crash in between) is finished by the next lobby read or join of that game (GameCommands.create keeps what
was already stored).

Rated means fair: a game is rated only if every seat is held by an account that joined it itself (the
creator's own seat counts as joined) and the server chose the seed; one-player games are never rated.

Commit-reveal seeds (service/integrity/seeds.py): when the server chooses the seed, it draws a secret half at
creation and keeps it write-once (``seed_commits``) before the game is listed, so its commitment is public
from the first answer on; each seat's entropy (given when creating or joining) is fixed once the last seat
is filled (the game is ``starting``: nobody can join, leave or change an entropy any more), and the start
mixes them into the game's seed. The server's half is revealed only with the finished game.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import asyncpg
import msgspec
import structlog

from domain.bots.core import Level
from domain.core import shown
from domain.names import looks_repeated, name_problem, skeleton
from service.accounts.accounts import Account, AccountService
from service.games.clocks import rated_clock, time_control
from service.games.commands import BOTS_OWNER, server_bot_levels
from service.games.schemas import ClockIn, CreateGame, GameCreated, PlayerIn, SeatToken, stored_clock
from service.games.service import GameService
from service.integrity.seeds import SeedMix
from service.integrity.tokens import hash_token, new_seed, new_token
from service.readmodels.projections import decode_cursor, encode_cursor
from service.runtime import errors

log = structlog.get_logger("service.lobby.lobby")

MAX_ENTROPY = 128
BOT_GAMES_RETRY_AFTER_SECONDS = "60"  # a bot-only game lasts minutes: ask again in a minute
INVITATIONS_RETRY_AFTER_SECONDS = "60"  # invitations are answered by people: ask again in a minute
START_LOCK = 0x6C6F_6262  # advisory lock namespace (b"lobb"): one start of a game at a time
MAX_PAGE = 200
OPEN, INVITE, ACCOUNT, HOTSEAT = "open", "invite", "account", "hotseat"
BOT = "bot"  # a server bot's seat ({bot: level}): hot-seat in a hot-seat game, else its built-in account's
WAITING, STARTING, STARTED, CANCELLED = "waiting", "starting", "started", "cancelled"


class JoinIn(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Join a waiting game: optionally which seat, and the client's ``entropy`` (at most 128 characters,
    kept with the seat; mixed into a rated game's seed); or, from the game's creator, ``bot``: seat the
    server's bot of that level (its built-in account) in an open seat instead."""

    seat: int | None = None
    entropy: str | None = None
    bot: Level | None = None


class LobbySeat(msgspec.Struct, frozen=True, kw_only=True):
    """A seat of a lobby game: ``taken`` (by ``name``: an account, or a hot-seat name), ``invited`` (reserved
    for the account ``invited``) or ``open``."""

    seat: int
    status: str
    name: str | None = None
    invited: str | None = None


def is_option_value(value: Any) -> bool:
    """A game option's value is a scalar (null, true/false, a number or text): no game has nested options."""
    return value is None or isinstance(value, bool | int | float | str)


class LobbyGame(msgspec.Struct, frozen=True, kw_only=True):
    """A game of the lobby: ``waiting`` for players, ``started`` (play it at /v1/games/{game_id}) or
    ``cancelled``; ``seed_commitment``: SHA-256 of the server's secret seed half (or of a chosen seed), public
    from creation (null for a game listed before commitments were kept); ``seed_chosen``: the creator chose
    the seed (unrated games only), so it may be guessable: a player sees it before joining, which cannot be
    undone."""

    game_id: str
    game: str
    options: dict[str, Any]
    rated: bool
    status: str
    creator: str | None
    seats: list[LobbySeat]
    created_at: datetime
    seed_commitment: str | None = None
    seed_chosen: bool = False
    clock: dict[str, Any] | None = None  # the clock the game starts with (null: untimed), as chosen


class LobbyPage(msgspec.Struct, frozen=True, kw_only=True):
    """Waiting games, newest first; pass ``next_cursor`` as ``cursor`` for the next page (null: no more)."""

    games: list[LobbyGame]
    next_cursor: str | None


class MyGame(msgspec.Struct, frozen=True, kw_only=True):
    """A game of the caller's: the seat held (or reserved by invitation), and the game's status
    (``waiting``, ``active``, ``finished``, ``cancelled``)."""

    game_id: str
    game: str
    seat: int
    invited: bool
    status: str
    rated: bool
    tournament: str | None
    created_at: datetime
    score: int | None = None
    rank: int | None = None
    lower_is_better: bool = False  # a Bazaar solitaire score is the turns taken, with ``solved`` (Z-12)
    solved: bool | None = None
    seed_commitment: str | None = None
    clock: dict[str, Any] | None = None  # a lobby game's clock as chosen (null: untimed, or not known here)


class MyGamePage(msgspec.Struct, frozen=True, kw_only=True):
    """A page of the caller's games, newest first."""

    games: list[MyGame]
    next_cursor: str | None


def rated_refusal(seats: Sequence[PlayerIn], seed_chosen: bool) -> errors.RuleViolation | None:
    """Why a game with these seats may not be rated (None: it may): every seat must be an account that joins
    it itself (``account: "me"``, ``invite`` or ``open``) or a server bot's account (``bot: level``), at least
    one seat is not a server bot, no client may choose the seed, and it needs two seats or more."""
    if any(seat.name is not None for seat in seats) or all(isinstance(seat.bot, str) for seat in seats):
        return errors.RuleViolation(
            "rated_needs_accounts",
            "a rated game has only account seats (account: me, invite or open): a hot-seat seat's token is "
            "held by its creator",
        )
    if seed_chosen:
        return errors.RuleViolation("rated_seed_chosen", "a rated game's seed is chosen by the server only")
    if len(seats) < 2:
        return errors.RuleViolation("rated_needs_opponents", "a one-player game is never rated")
    return None


def seat_kind(player: PlayerIn) -> str:
    """The kind of a seat at creation (422 unless exactly one of name, bot level, account, invite, open is
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
        raise errors.RuleViolation(
            "bad_seat",
            'each seat is exactly one of {"name"}, {"bot": level}, {"account": "me"}, {"invite"}, {"open": true}',
        )
    if player.account is not None and player.account != "me":
        raise errors.RuleViolation(
            "bad_seat", 'a seat\'s "account" can only be "me"; invite another account with "invite"'
        )
    if player.bot is True and given[0] != HOTSEAT:
        raise errors.RuleViolation("bad_seat", '"bot" marks a hot-seat seat only')
    return given[0]


def check_entropy(entropy: str | None) -> None:
    """A client's entropy is at most 128 characters (400 otherwise)."""
    if entropy is not None and len(entropy) > MAX_ENTROPY:
        raise errors.Malformed("bad_entropy", f"entropy is at most {MAX_ENTROPY} characters")


class LobbyService:
    """Creates games (hot-seat ones directly, account ones through the lobby), seats accounts, starts games."""

    def __init__(
        self,
        games: GameService,
        accounts: AccountService,
        bot_games_per_account: int = 3,
        invitations_per_inviter: int = 20,
        invitations_per_invitee: int = 10,
    ) -> None:
        """``bot_games_per_account``: how many games of server bots only one account may have running;
        ``invitations_per_inviter`` and ``_per_invitee``: how many open invitations one account may have
        sent, and have received (0: any number, for each)."""
        self.games = games
        self.accounts = accounts
        self.bot_games_per_account = bot_games_per_account
        self.invitations_per_inviter = invitations_per_inviter
        self.invitations_per_invitee = invitations_per_invitee

    async def check_invitations(self, inviter: Account, guests: list[Account]) -> None:
        """Open invitations (seats reserved for an account in games waiting for players) are bounded: one
        account may have sent at most ``invitations_per_inviter`` and received at most
        ``invitations_per_invitee``; past either, 429 with Retry-After (``too_many_invitations``,
        ``invitee_has_too_many_invitations``), so nobody can flood another's invitations or the lobby."""
        sent_limit, received_limit = self.invitations_per_inviter, self.invitations_per_invitee
        async with self.accounts.connection() as connection:
            if sent_limit > 0:
                sent = await connection.fetchval(
                    "SELECT count(*) FROM lobby_games l JOIN game_seats s USING (game_id)"
                    " WHERE l.status = 'waiting' AND l.creator_id = $1"
                    " AND s.invited_id IS NOT NULL AND s.account_id IS NULL",
                    inviter.account_id,
                )
                if sent + len(guests) > sent_limit:
                    raise errors.TooMany(
                        "too_many_invitations",
                        f"an account may have at most {sent_limit} invitations open (seats reserved for other"
                        " accounts in its games waiting for players); wait until some are answered",
                        headers={"Retry-After": INVITATIONS_RETRY_AFTER_SECONDS},
                    )
            if received_limit > 0:
                for guest in guests:
                    received = await connection.fetchval(
                        "SELECT count(*) FROM game_seats s JOIN lobby_games l USING (game_id)"
                        " WHERE s.invited_id = $1 AND s.account_id IS NULL AND l.status = 'waiting'",
                        guest.account_id,
                    )
                    if received >= received_limit:
                        raise errors.TooMany(
                            "invitee_has_too_many_invitations",
                            f"{guest.name} has {received_limit} open invitations already; invite them once"
                            " they have answered some",
                            headers={"Retry-After": INVITATIONS_RETRY_AFTER_SECONDS},
                        )

    async def bot_game_owner(self, token: str | None) -> Account:
        """The account creating a game of server bots only: such a game needs one (401 account_required), and
        each account may have at most ``bot_games_per_account`` of them running (429 too_many_bot_games): the
        server's bots think on its cores for as long as those games last, with no person to pace them."""
        account = None if token is None else await self.accounts.by_token(token)
        if account is None:
            raise errors.Unauthorized(
                "account_required",
                'a game of server bots only needs an account: send "Authorization: Bearer <account token>"'
                " (sign up with POST /v1/accounts)",
            )
        limit = self.bot_games_per_account
        if limit > 0:
            running = await self.games.store.list_streams(
                status="active", metadata_contains={BOTS_OWNER: account.account_id}, limit=limit
            )
            if len(running) >= limit:
                raise errors.TooMany(
                    "too_many_bot_games",
                    f"an account may have at most {limit} games of server bots only running at once;"
                    " create another once one has ended",
                    headers={"Retry-After": BOT_GAMES_RETRY_AFTER_SECONDS},
                )
        return account

    # ----------------------------------------------------------------- creation

    async def create(self, request: CreateGame, token: str | None) -> GameCreated:
        """Create a game. Only hot-seat and server-bot seats: created at once, every token to the creator,
        never rated. Any account seat: listed in the lobby (creator's account token required) and started
        when its last seat is filled; rated only as ``rated_refusal`` allows. There a server bot's seat
        (``bot: level``, or an invitation of a bot's built-in account) is taken by the bot's account at once,
        and the server's bot runner plays it."""
        kinds = [seat_kind(player) for player in request.players]
        check_entropy(request.entropy)
        if request.rated:
            refused = rated_refusal(request.players, request.seed is not None)
            if refused is not None:
                raise refused
        if all(kind in (HOTSEAT, BOT) for kind in kinds):
            if request.entropy is not None:
                raise errors.RuleViolation("bad_entropy", "entropy comes with the creator's account seat")
            if all(server_bot_levels(request)):  # 422 for an unknown level first
                owner = await self.bot_game_owner(token)
                return await self.games.commands.create(request, owner=owner.account_id)
            return await self.games.commands.create(request)
        server_bot_levels(request)  # 422 for an unknown level
        creator = await self.accounts.require(token)
        game = self.games.commands.game_named(request.game)
        config = self.games.commands.configure(
            game, [f"seat {i}" for i in range(len(kinds))], request.options
        )
        if request.rated:  # always timed, at least the rated floor: the clock is shown to whoever joins
            request = msgspec.structs.replace(request, clock=rated_clock(request.clock))
        time_control(
            request.clock, self.games.commands.now()
        )  # 422 for a bad clock now; it starts with the game
        if request.seed is not None and (not request.seed or len(request.seed) > 200):
            raise errors.Malformed("bad_seed", "a seed is 1-200 characters")
        if kinds.count(ACCOUNT) > 1:
            raise errors.RuleViolation("duplicate_account", "an account holds at most one seat of a game")
        if request.entropy is not None and ACCOUNT not in kinds:
            raise errors.RuleViolation("bad_entropy", "entropy comes with the creator's account seat")
        invited: dict[int, Account] = {}
        bots: dict[int, Account] = {}  # seats taken at once by a server bot's built-in account
        for seat, player in enumerate(request.players):
            if isinstance(player.bot, str):
                if player.name is not None:
                    raise errors.RuleViolation(
                        "bad_seat", "a server bot in a game with accounts plays under its account's name"
                    )
                bots[seat] = await self.accounts.server_bot(game.name, player.bot)
            if player.invite is not None:
                account = await self.accounts.by_name(player.invite)
                if account is None:
                    raise errors.RuleViolation("unknown_account", f"no account called {shown(player.invite)}")
                if account.bot_game is None:
                    invited[seat] = account
                elif account.bot_game == game.name:
                    bots[seat] = account  # the server's bot accepts every invitation to its game
                else:
                    raise errors.RuleViolation(
                        "bot_plays_another_game", f"{account.name} plays {account.bot_game} only"
                    )
        if len(bots) == len(kinds):  # every seat a server bot's account: counted as the creator's
            await self.bot_game_owner(token)
        held = (
            [a.account_id for a in invited.values()]
            + [a.account_id for a in bots.values()]
            + ([creator.account_id] if ACCOUNT in kinds else [])
        )
        if len(set(held)) != len(held):
            raise errors.RuleViolation(
                "duplicate_account", "an account is invited to (or holds) at most one seat of a game"
            )
        hotseat_names = [(p.name or "").strip() for p in request.players if p.name is not None]
        for name in hotseat_names:
            if problem := name_problem(name):
                raise errors.RuleViolation("bad_player_name", problem)
        if ACCOUNT in kinds:
            hotseat_names.append(creator.name)
        hotseat_names.extend(bot.name for bot in bots.values())
        if looks_repeated(hotseat_names):
            raise errors.RuleViolation(
                "duplicate_player_name", "player names must differ (and not look alike) within a game"
            )
        if invited:
            await self.check_invitations(creator, list(invited.values()))
        game_id = str(uuid.uuid4())
        seats: list[SeatToken] = []
        rows: list[tuple[Any, ...]] = []
        for seat, (kind, player) in enumerate(zip(kinds, request.players, strict=True)):
            if seat in bots:
                bot = bots[seat]
                seats.append(SeatToken(seat=seat, name=bot.name, token=None, account=bot.name))
                rows.append((game_id, seat, ACCOUNT, bot.account_id, None, None, None, None, True))
            elif kind == HOTSEAT:
                name = (player.name or "").strip()
                token = new_token()
                seats.append(SeatToken(seat=seat, name=name, token=token))
                rows.append((game_id, seat, kind, None, None, name, hash_token(token), None, True))
            elif kind == ACCOUNT:
                seats.append(SeatToken(seat=seat, name=creator.name, token=None, account=creator.name))
                rows.append(
                    (game_id, seat, kind, creator.account_id, None, None, None, request.entropy, True)
                )
            elif kind == INVITE:
                guest = invited[seat]
                seats.append(SeatToken(seat=seat, name=None, token=None, invited=guest.name))
                rows.append((game_id, seat, kind, None, guest.account_id, None, None, None, False))
            else:
                seats.append(SeatToken(seat=seat, name=None, token=None, open=True))
                rows.append((game_id, seat, kind, None, None, None, None, None, False))
        full = all(kind in (ACCOUNT, HOTSEAT) or seat in bots for seat, kind in enumerate(kinds))
        # committed (write-once) before the game is listed: the server's half, mixed with the seats'
        # entropies at the start, or the seed the client chose (unrated games only)
        commitment = await self.games.keys.commit(
            game_id, request.seed if request.seed is not None else new_seed()
        )
        async with self.accounts.connection() as connection, connection.transaction():
            await connection.execute(
                "INSERT INTO lobby_games (game_id, game, options, rated, seed, creator_id, status, seats, clock)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                game_id,
                game.name,
                config.options,
                request.rated,
                request.seed,
                creator.account_id,
                STARTING if full else WAITING,
                len(kinds),
                request.clock,
            )
            await connection.executemany(
                "INSERT INTO game_seats (game_id, seat, kind, account_id, invited_id, name, token_hash,"
                " entropy, joined_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8,"
                " CASE WHEN $9 THEN now() END)",
                rows,
            )
        log.info("lobby_game_created", game_id=game_id, game=game.name, seats=len(kinds), rated=request.rated)
        if full:
            started = await self.start(game_id)
            assert started is not None  # nobody else knows the game yet
            return msgspec.structs.replace(started, seats=seats)
        return GameCreated(
            game_id=game_id,
            game=game.name,
            version=0,
            seats=seats,
            seed_commitment=commitment,
            status=WAITING,
        )

    # ----------------------------------------------------------------- seats

    async def _locked(self, connection: Any, game_id: str) -> asyncpg.Record:
        """The lobby row of a game, locked for this transaction (404 if the game was never in the lobby)."""
        row = await connection.fetchrow(
            "SELECT status, creator_id, game FROM lobby_games WHERE game_id = $1 FOR UPDATE", game_id
        )
        if row is None:
            raise errors.NotFound("game_not_found", f"no game {game_id} in the lobby")
        return row

    @staticmethod
    def _must_wait(status: str) -> None:
        """409 unless the game still waits for players."""
        if status == CANCELLED:
            raise errors.Conflict("game_cancelled", "the game was cancelled")
        if status != WAITING:
            raise errors.Conflict("game_started", "the game has started: its seats are taken")

    async def join(self, game_id: str, token: str | None, request: JoinIn) -> LobbyGame:
        """Take a seat: the given one, else the one reserved for the caller, else the first open one; the game
        starts when this fills its last seat. 409 if the caller already holds a seat, no seat is free, or
        the game started or was cancelled; 403 for a seat reserved for another account."""
        account = await self.accounts.require(token)
        check_entropy(request.entropy)
        async with self.accounts.connection() as connection, connection.transaction():
            lobby = await self._locked(connection, game_id)
            status, filled = lobby["status"], False
            if status == WAITING:
                seated = account if request.bot is None else await self._bot_for(lobby, account, request)
                filled = await self._take_seat(connection, game_id, seated, request)
        if status == STARTING:
            await self.start(game_id)  # a start cut short: finish it (this join is still too late)
        self._must_wait(status)
        if filled:
            await self.start(game_id)
        return await self.lobby_game(game_id)

    async def _bot_for(self, lobby: asyncpg.Record, caller: Account, request: JoinIn) -> Account:
        """The server bot's account the creator seats with ``bot`` (403 for anyone else; a bot brings no
        entropy and takes an open seat, never one reserved for an invited account)."""
        if lobby["creator_id"] != caller.account_id:
            raise errors.Forbidden("not_creator", "only the game's creator seats a server bot in it")
        if request.entropy is not None:
            raise errors.RuleViolation("bad_entropy", "entropy comes with a player's own seat, not a bot's")
        assert request.bot is not None
        return await self.accounts.server_bot(lobby["game"], request.bot)

    async def _take_seat(self, connection: Any, game_id: str, account: Account, request: JoinIn) -> bool:
        """Seat the account (in the locked transaction); whether that filled the game."""
        seats = await connection.fetch(
            "SELECT seat, kind, account_id, invited_id, name FROM game_seats WHERE game_id = $1 ORDER BY seat",
            game_id,
        )
        if any(row["account_id"] == account.account_id for row in seats):
            raise errors.Conflict("already_seated", "this account already holds a seat of this game")
        if any(row["name"] is not None and skeleton(row["name"]) == skeleton(account.name) for row in seats):
            raise errors.Conflict(
                "name_in_game", "a hot-seat seat of this game has (or looks like) this account's name"
            )
        free = [row for row in seats if row["kind"] == OPEN or row["invited_id"] == account.account_id]
        if request.seat is not None:
            chosen = next((row for row in seats if row["seat"] == request.seat), None)
            if chosen is None:
                raise errors.RuleViolation("no_such_seat", f"the game has seats 0..{len(seats) - 1}")
            if chosen["kind"] == INVITE and chosen["invited_id"] != account.account_id:
                raise errors.Forbidden("seat_reserved", "this seat is reserved for an invited account")
            if chosen not in free:
                raise errors.Conflict("seat_taken", "this seat is taken")
        else:
            mine = [row for row in free if row["invited_id"] == account.account_id]
            chosen = (mine or free or [None])[0]
            if chosen is None:
                raise errors.Conflict("no_free_seat", "every seat is taken or reserved")
        await connection.execute(
            "UPDATE game_seats SET kind = $3, account_id = $4, invited_id = NULL, entropy = $5,"
            " joined_at = now() WHERE game_id = $1 AND seat = $2",
            game_id,
            chosen["seat"],
            ACCOUNT,
            account.account_id,
            request.entropy,
        )
        remaining = sum(1 for row in seats if row["kind"] in (OPEN, INVITE)) - 1
        if remaining == 0:
            await connection.execute(
                "UPDATE lobby_games SET status = $2 WHERE game_id = $1", game_id, STARTING
            )
        log.info("lobby_seat_taken", game_id=game_id, seat=chosen["seat"], account_id=account.account_id)
        return remaining == 0

    async def leave(self, game_id: str, token: str | None) -> LobbyGame:
        """Give a seat back before the start (it becomes open); the creator leaving cancels the game."""
        account = await self.accounts.require(token)
        async with self.accounts.connection() as connection, connection.transaction():
            lobby = await self._locked(connection, game_id)
            self._must_wait(lobby["status"])
            if lobby["creator_id"] == account.account_id:
                await self._cancel(connection, game_id)
            else:
                left = await connection.fetchval(
                    "UPDATE game_seats SET kind = $3, account_id = NULL, entropy = NULL, joined_at = NULL"
                    " WHERE game_id = $1 AND account_id = $2 RETURNING seat",
                    game_id,
                    account.account_id,
                    OPEN,
                )
                if left is None:
                    raise errors.Conflict("not_seated", "this account holds no seat of this game")
        return await self.lobby_game(game_id)

    async def decline(self, game_id: str, token: str | None) -> LobbyGame:
        """Decline an invitation: the game is cancelled, as a declined challenge is (409 without one)."""
        account = await self.accounts.require(token)
        async with self.accounts.connection() as connection, connection.transaction():
            lobby = await self._locked(connection, game_id)
            self._must_wait(lobby["status"])
            invited = await connection.fetchval(
                "SELECT seat FROM game_seats WHERE game_id = $1 AND invited_id = $2",
                game_id,
                account.account_id,
            )
            if invited is None:
                raise errors.Conflict("not_invited", "this account has no invitation to this game")
            await self._cancel(connection, game_id)
        log.info("lobby_invitation_declined", game_id=game_id, account_id=account.account_id)
        return await self.lobby_game(game_id)

    @staticmethod
    async def _cancel(connection: Any, game_id: str) -> None:
        """Cancel a waiting game (in the locked transaction)."""
        await connection.execute("UPDATE lobby_games SET status = $2 WHERE game_id = $1", game_id, CANCELLED)
        log.info("lobby_game_cancelled", game_id=game_id)

    # ----------------------------------------------------------------- start

    async def start(self, game_id: str) -> GameCreated | None:
        """Append the opening events of a game whose seats are all filled, seated as they were taken; once,
        whichever processes try at the same time (they take turns on an advisory lock named after the game;
        None for a game another one started already)."""
        async with self.accounts.connection() as connection, connection.transaction():
            await connection.execute("SELECT pg_advisory_xact_lock($1, hashtext($2))", START_LOCK, game_id)
            lobby = await connection.fetchrow(
                "SELECT game, options, rated, seed, status, clock, creator_id FROM lobby_games WHERE game_id = $1",
                game_id,
            )
            if lobby is None or lobby["status"] != STARTING:
                return None
            seats = await connection.fetch(
                "SELECT s.seat, s.kind, s.account_id, s.name, s.token_hash, s.entropy, a.name AS account_name,"
                " a.bot_level"
                " FROM game_seats s LEFT JOIN accounts a USING (account_id)"
                " WHERE s.game_id = $1 ORDER BY s.seat",
                game_id,
            )
            players = [  # a server bot's account: the bot runner plays the seat (bot_levels in the metadata)
                PlayerIn(
                    name=row["account_name"] if row["kind"] == ACCOUNT else row["name"],
                    bot=row["bot_level"] or False,
                )
                for row in seats
            ]
            committed = await self.games.keys.committed(game_id)
            mix = None
            if lobby["seed"] is None and committed is not None:  # (a game listed before commitments: None)
                mix = SeedMix(committed.secret, tuple(row["entropy"] or "" for row in seats))
            created = await self.games.commands.create(
                CreateGame(
                    game=lobby["game"],
                    players=players,
                    seed=lobby["seed"],
                    options=lobby["options"],
                    rated=lobby["rated"],
                    clock=None if lobby["clock"] is None else msgspec.convert(lobby["clock"], ClockIn),
                ),
                token_hashes=[row["token_hash"] or "" for row in seats],
                game_id=game_id,
                accounts=[row["account_id"] for row in seats],
                mix=mix,
                owner=lobby["creator_id"] if all(row["bot_level"] for row in seats) else None,
            )
            await connection.execute(
                "UPDATE lobby_games SET status = $2, started_at = now() WHERE game_id = $1", game_id, STARTED
            )
        log.info("lobby_game_started", game_id=game_id)
        return created

    # ----------------------------------------------------------------- reads

    async def lobby_game(self, game_id: str) -> LobbyGame:
        """A game as the lobby shows it (any status; 404 if it never was in the lobby); finishes a start
        that was cut short."""
        games = await self._read("WHERE g.game_id = $1", [game_id], 1)
        if not games:
            raise errors.NotFound("game_not_found", f"no game {game_id} in the lobby")
        if games[0].status == STARTING:
            await self.start(game_id)
            games = await self._read("WHERE g.game_id = $1", [game_id], 1)
        return games[0]

    async def waiting(
        self,
        game: str | None,
        options: str | None,
        rated: bool | None,
        cursor: str | None,
        limit: int,
    ) -> LobbyPage:
        """Waiting games, newest first, filtered by game, options (a JSON object the game's options contain)
        and rated; cursor pagination."""
        clauses = ["g.status = 'waiting'"]
        args: list[Any] = []
        if game is not None:
            args.append(game)
            clauses.append(f"g.game = ${len(args)}")
        if options is not None:
            try:
                wanted = json.loads(options)
            except ValueError:
                wanted = None
            if not isinstance(wanted, dict) or not all(is_option_value(value) for value in wanted.values()):
                raise errors.Malformed(
                    "bad_options_filter",
                    "options is a JSON object of option values (true/false, numbers, text),"
                    ' e.g. {"double_purchase": true}',
                )
            args.append(wanted)
            clauses.append(f"g.options @> ${len(args)}")
        if rated is not None:
            args.append(rated)
            clauses.append(f"g.rated = ${len(args)}")
        after = decode_cursor(cursor)
        if after is not None:
            args.extend(after)
            clauses.append(f"(g.created_at, g.game_id) < (${len(args) - 1}, ${len(args)})")
        limit = min(limit, MAX_PAGE)
        games = await self._read("WHERE " + " AND ".join(clauses), args, limit + 1)
        more = len(games) > limit
        games = games[:limit]
        return LobbyPage(
            games=games, next_cursor=encode_cursor(games[-1].created_at, games[-1].game_id) if more else None
        )

    async def _read(self, where: str, args: list[Any], limit: int) -> list[LobbyGame]:
        """Lobby games and their seats (``where`` is built from fixed text; values are parameters)."""
        async with self.accounts.connection() as connection:
            rows = await connection.fetch(
                "SELECT g.game_id, g.game, g.options, g.rated, g.status, g.created_at, c.name AS creator,"
                " k.commitment, g.seed IS NOT NULL AS seed_chosen, g.clock"
                " FROM lobby_games g LEFT JOIN accounts c ON c.account_id = g.creator_id"
                f" LEFT JOIN seed_commits k ON k.subject_id = g.game_id {where}"
                f" ORDER BY g.created_at DESC, g.game_id DESC LIMIT {int(limit)}",
                *args,
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
            status = {OPEN: "open", INVITE: "invited"}.get(seat["kind"], "taken")
            by_game.setdefault(seat["game_id"], []).append(
                LobbySeat(
                    seat=seat["seat"],
                    status=status,
                    name=seat["account"] or seat["name"],
                    invited=seat["invited"],
                )
            )
        return [
            LobbyGame(
                game_id=row["game_id"],
                game=row["game"],
                options=row["options"],
                rated=row["rated"],
                status=row["status"],
                creator=row["creator"],
                seats=by_game.get(row["game_id"], []),
                created_at=row["created_at"],
                seed_commitment=row["commitment"],
                seed_chosen=row["seed_chosen"],
                clock=stored_clock(row["clock"]),
            )
            for row in rows
        ]

    async def my_games(self, token: str | None, cursor: str | None, limit: int) -> MyGamePage:
        """The caller's games (seats held, and seats reserved for it by invitation), newest first."""
        account = await self.accounts.require(token)
        return await self.games_of(account, cursor, limit)

    async def games_of(self, account: Account, cursor: str | None, limit: int) -> MyGamePage:
        """An account's games, newest first: lobby status while waiting, the listing's once started."""
        args: list[Any] = [account.account_id]
        after = ""
        position = decode_cursor(cursor)
        if position is not None:
            args.extend(position)
            after = "WHERE (created_at, game_id) < ($2, $3)"
        limit = min(limit, MAX_PAGE)
        async with self.accounts.connection() as connection:
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
                f" {after} ORDER BY created_at DESC, game_id DESC LIMIT {int(limit) + 1}",
                *args,
            )
        games = [
            MyGame(
                game_id=row["game_id"],
                game=row["game"] or "",
                seat=row["seat"],
                invited=row["invited"],
                status=row["status"],
                rated=row["rated"],
                tournament=row["tournament"],
                created_at=row["created_at"],
                score=row["score"],
                rank=row["rank"],
                lower_is_better=row["lower_is_better"],
                solved=row["solved"],
                seed_commitment=row["seed_commitment"],
                clock=stored_clock(row["clock"]),
            )
            for row in rows
            if row["created_at"] is not None
        ]
        more = len(games) > limit
        games = games[:limit]
        return MyGamePage(
            games=games, next_cursor=encode_cursor(games[-1].created_at, games[-1].game_id) if more else None
        )
