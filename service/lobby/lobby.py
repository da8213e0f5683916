"""The lobby: games created with seats open to any account, reserved for an invited account, or taken by the
creator's account, which start (their opening events appended) when the last seat is filled; and which
games may be rated.

Every change of a waiting game's seats runs in one transaction that first locks the game's lobby row
(``SELECT ... FOR UPDATE``), so joins, leaves and declines of one game take turns across every process:
of two accounts racing for the last seat exactly one gets it. The transaction that fills the last seat
marks the game ``starting``; the opening events are appended after it commits, and a start cut short (a
crash in between) is finished by the next lobby read or join of that game (GameCommands.create keeps what
was already stored).

Open invitations are bounded per inviter and per invitee (``check_invitations``); a creation is checked before
it writes anything, and again in the transaction that lists it, which holds its accounts' invitations locked,
so concurrent creations cannot together pass a bound. Running games of server bots only are limited per
account (``bot_game_owner``); an account's creations of them take turns from the count until the game is
created (listed and started, in the lobby), so they cannot together pass the limit either.

Rated means fair: a game is rated only if every seat is held by an account that joined it itself (the
creator's own seat counts as joined) and the server chose the seed; one-player games are never rated.

Commit-reveal seeds (service/integrity/seeds.py): when the server chooses the seed, it draws a secret half at
creation and keeps it write-once (``seed_commits``) before the game is listed, so its commitment is public
from the first answer on; each seat's entropy (given when creating or joining) is fixed once the last seat
is filled (the game is ``starting``: nobody can join, leave or change an entropy any more), and the start
mixes them into the game's seed. The server's half is revealed only with the finished game.

The seat rules are domain/lobby.py's (a refusal there answers as the service error of its kind); the SQL is
repository.py's (docs/decisions/0008-sql-in-repositories.md).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from functools import partial

import msgspec
import structlog

from domain import lobby as rules
from domain.lobby import ACCOUNT, BOT, HOTSEAT, STARTING, WAITING, Member, PlannedSeat, Refused
from service.accounts.accounts import Account, AccountService
from service.games.clocks import rated_clock, time_control
from service.games.commands import BOTS_OWNER, server_bot_levels
from service.games.schemas import ClockIn, CreateGame, GameCreated, PlayerIn, SeatToken
from service.games.service import GameService
from service.integrity.seeds import SeedMix
from service.integrity.tokens import hash_token, new_seed, new_token
from service.lobby.repository import (
    InvitationCounts,
    Listing,
    LobbyRepository,
    LockedGame,
    LockedLobby,
    NewLobbyGame,
    NewSeat,
)
from service.lobby.schemas import JoinIn, LobbyGame, LobbyPage, MyGamePage, is_option_value
from service.readmodels.projections import decode_cursor, encode_cursor
from service.runtime import errors

log = structlog.get_logger("service.lobby.lobby")

BOT_GAMES_RETRY_AFTER_SECONDS = "60"  # a bot-only game lasts minutes: ask again in a minute
INVITATIONS_RETRY_AFTER_SECONDS = "60"  # invitations are answered by people: ask again in a minute
MAX_PAGE = 200
ANSWERS: dict[str, type[errors.ServiceError]] = {
    "malformed": errors.Malformed,
    "rule": errors.RuleViolation,
    "conflict": errors.Conflict,
    "forbidden": errors.Forbidden,
}


@contextmanager
def refusals() -> Iterator[None]:
    """A refusal of the seat rules (domain/lobby.py) answers as the service's error of its kind, with its
    code and detail."""
    try:
        yield
    except Refused as refused:
        raise ANSWERS[refused.answer](refused.code, refused.detail) from None


def seat_kind(player: PlayerIn) -> str:
    """The kind of a seat at creation (422 unless exactly one of name, bot level, account, invite, open is
    given; a server bot's seat may also have a name in a hot-seat game)."""
    with refusals():
        return rules.seat_kind(player)


def seat_written(planned: PlannedSeat) -> tuple[SeatToken, NewSeat]:
    """A planned seat as the creator is answered (a hot-seat seat's token drawn now, shown once) and as it is
    stored (the token's hash only)."""
    seat = planned.seat
    if planned.kind == HOTSEAT:
        token = new_token()
        return SeatToken(seat=seat, name=planned.name, token=token), NewSeat(
            seat=seat, kind=planned.kind, name=planned.name, token_hash=hash_token(token), joined=True
        )
    if planned.holder is not None:
        holder = planned.holder
        return SeatToken(seat=seat, name=holder.name, token=None, account=holder.name), NewSeat(
            seat=seat, kind=planned.kind, account_id=holder.account_id, entropy=planned.entropy, joined=True
        )
    if planned.invited is not None:
        guest = planned.invited
        return SeatToken(seat=seat, name=None, token=None, invited=guest.name), NewSeat(
            seat=seat, kind=planned.kind, invited_id=guest.account_id
        )
    return SeatToken(seat=seat, name=None, token=None, open=True), NewSeat(seat=seat, kind=planned.kind)


class LobbyService:
    """Creates games (hot-seat ones directly, account ones through the lobby), seats accounts, starts games."""

    def __init__(
        self,
        lobby: LobbyRepository,
        games: GameService,
        accounts: AccountService,
        bot_games_per_account: int = 3,
        invitations_per_inviter: int = 20,
        invitations_per_invitee: int = 10,
    ) -> None:
        """``lobby``: the lobby's games and seats; ``bot_games_per_account``: how many games of server bots
        only one account may have running; ``invitations_per_inviter`` and ``_per_invitee``: how many open
        invitations one account may have sent, and have received (0: any number, for each)."""
        self.lobby = lobby
        self.games = games
        self.accounts = accounts
        self.bot_games_per_account = bot_games_per_account
        self.invitations_per_inviter = invitations_per_inviter
        self.invitations_per_invitee = invitations_per_invitee

    async def check_invitations(
        self, counts: InvitationCounts, inviter: Member, guests: Sequence[Member]
    ) -> None:
        """Open invitations (seats reserved for an account in games waiting for players) are bounded: one
        account may have sent at most ``invitations_per_inviter`` and received at most
        ``invitations_per_invitee``; past either, 429 with Retry-After (``too_many_invitations``,
        ``invitee_has_too_many_invitations``), so nobody can flood another's invitations or the lobby."""
        sent_limit, received_limit = self.invitations_per_inviter, self.invitations_per_invitee
        if sent_limit > 0:
            sent = await counts.invitations_sent(inviter.account_id)
            if sent + len(guests) > sent_limit:
                raise errors.TooMany(
                    "too_many_invitations",
                    f"an account may have at most {sent_limit} invitations open (seats reserved for other"
                    " accounts in its games waiting for players); wait until some are answered",
                    headers={"Retry-After": INVITATIONS_RETRY_AFTER_SECONDS},
                )
        if received_limit > 0:
            for guest in guests:
                received = await counts.invitations_received(guest.account_id)
                if received >= received_limit:
                    raise errors.TooMany(
                        "invitee_has_too_many_invitations",
                        f"{guest.name} has {received_limit} open invitations already; invite them once"
                        " they have answered some",
                        headers={"Retry-After": INVITATIONS_RETRY_AFTER_SECONDS},
                    )

    @asynccontextmanager
    async def bot_game_owner(self, token: str | None) -> AsyncIterator[Account]:
        """The account creating a game of server bots only, for the block that creates it: such a game needs
        one (401 account_required), and each account may have at most ``bot_games_per_account`` of them
        running (429 too_many_bot_games): the server's bots think on its cores for as long as those games
        last, with no person to pace them. The account's creations take turns (``bot_games_locked``) from
        the count to the end of the block, so concurrent ones cannot together pass the limit."""
        account = None if token is None else await self.accounts.by_token(token)
        if account is None:
            raise errors.Unauthorized(
                "account_required",
                'a game of server bots only needs an account: send "Authorization: Bearer <account token>"'
                " (sign up with POST /v1/accounts)",
            )
        async with self.lobby.bot_games_locked(account.account_id):
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
            yield account

    # ----------------------------------------------------------------- creation

    async def create(self, request: CreateGame, token: str | None) -> GameCreated:
        """Create a game. Only hot-seat and server-bot seats: created at once, every token to the creator,
        never rated. Any account seat: listed in the lobby (creator's account token required) and started
        when its last seat is filled; rated only as ``rated_refusal`` (domain/lobby.py) allows. There a server
        bot's seat (``bot: level``, or an invitation of a bot's built-in account) is taken by the bot's
        account at once, and the server's bot runner plays it."""
        with refusals():
            kinds = rules.request_kinds(
                request.players, request.entropy, request.rated, request.seed is not None
            )
        if all(kind in (HOTSEAT, BOT) for kind in kinds):
            if all(server_bot_levels(request)):  # 422 for an unknown level first
                async with self.bot_game_owner(token) as owner:
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
        bots: dict[int, Member] = {}
        invitees: dict[int, Member | None] = {}
        for seat, player in enumerate(request.players):
            if isinstance(player.bot, str):
                bots[seat] = await self.accounts.server_bot(game.name, player.bot)
            if player.invite is not None:
                invitees[seat] = await self.accounts.by_name(player.invite)
        with refusals():
            holders = rules.seat_holders(
                request.players, kinds, game.name, request.entropy, request.seed, bots, invitees
            )
        async with AsyncExitStack() as turn:
            if len(holders.bots) == len(
                kinds
            ):  # every seat a server bot's account: counted as the creator's,
                # whose bot-only creations take turns until this one has started
                await turn.enter_async_context(self.bot_game_owner(token))
            return await self._list(request, kinds, creator, game.name, config.options, holders)

    async def _list(
        self,
        request: CreateGame,
        kinds: Sequence[str],
        creator: Account,
        game_name: str,
        options: object,
        holders: rules.Holders,
    ) -> GameCreated:
        """List a checked creation in the lobby with its seed committed; a game whose seats are all filled
        starts at once."""
        with refusals():
            plan = rules.seats_to_write(request.players, kinds, creator, request.entropy, holders)
        guests = list(holders.invited.values())
        # checked before anything is written (a refusal commits no seed), and again under the invitations'
        # locks in the transaction that lists the game (concurrent creations pass it one at a time)
        invitations = partial(self.check_invitations, inviter=creator, guests=guests)
        if guests:
            await invitations(self.lobby)
        game_id = str(uuid.uuid4())
        written = [seat_written(planned) for planned in plan.seats]
        seats, rows = [token for token, _ in written], [row for _, row in written]
        # committed (write-once) before the game is listed: the server's half, mixed with the seats'
        # entropies at the start, or the seed the client chose (unrated games only)
        commitment = await self.games.keys.commit(
            game_id, request.seed if request.seed is not None else new_seed()
        )
        await self.lobby.create(
            NewLobbyGame(
                game_id=game_id,
                game=game_name,
                options=msgspec.to_builtins(options),
                rated=request.rated,
                seed=request.seed,
                creator_id=creator.account_id,
                status=STARTING if plan.full else WAITING,
                seats=len(kinds),
                clock=request.clock,
            ),
            rows,
            invitations,
        )
        log.info("lobby_game_created", game_id=game_id, game=game_name, seats=len(kinds), rated=request.rated)
        if plan.full:
            started = await self.start(game_id)
            assert started is not None  # nobody else knows the game yet
            return msgspec.structs.replace(started, seats=seats)
        return GameCreated(
            game_id=game_id,
            game=game_name,
            version=0,
            seats=seats,
            seed_commitment=commitment,
            status=WAITING,
        )

    # ----------------------------------------------------------------- seats

    @staticmethod
    def _found(locked: LockedGame | None, game_id: str) -> LockedGame:
        """The locked game (404 if the game was never in the lobby)."""
        if locked is None:
            raise errors.NotFound("game_not_found", f"no game {game_id} in the lobby")
        return locked

    async def join(self, game_id: str, token: str | None, request: JoinIn) -> LobbyGame:
        """Take a seat: the given one, else the one reserved for the caller, else the first open one; the game
        starts when this fills its last seat. 409 if the caller already holds a seat, no seat is free, or
        the game started or was cancelled; 403 for a seat reserved for another account."""
        account = await self.accounts.require(token)
        with refusals():
            rules.check_entropy(request.entropy)
        async with self.lobby.locked(game_id) as found:
            locked = self._found(found, game_id)
            status, filled = locked.lobby.status, False
            if status == WAITING:
                seated = (
                    account if request.bot is None else await self._bot_for(locked.lobby, account, request)
                )
                filled = await self._take_seat(locked, game_id, seated, request)
        if status == STARTING:
            await self.start(game_id)  # a start cut short: finish it (this join is still too late)
        with refusals():
            rules.must_wait(status)
        if filled:
            await self.start(game_id)
        return await self.lobby_game(game_id)

    async def _bot_for(self, lobby: LockedLobby, caller: Account, request: JoinIn) -> Account:
        """The server bot's account the creator seats with ``bot`` (403 for anyone else; a bot brings no
        entropy and takes an open seat, never one reserved for an invited account)."""
        with refusals():
            rules.seating_a_bot(lobby.creator_id, caller.account_id, request.entropy)
        assert request.bot is not None
        return await self.accounts.server_bot(lobby.game, request.bot)

    @staticmethod
    async def _take_seat(locked: LockedGame, game_id: str, account: Account, request: JoinIn) -> bool:
        """Seat the account (in the locked transaction); whether that filled the game."""
        with refusals():
            taken = rules.seat_to_take(await locked.seats(), account.account_id, account.name, request.seat)
        await locked.take(taken.seat, account.account_id, request.entropy)
        if taken.fills:
            await locked.mark_starting()
        log.info("lobby_seat_taken", game_id=game_id, seat=taken.seat, account_id=account.account_id)
        return taken.fills

    async def leave(self, game_id: str, token: str | None) -> LobbyGame:
        """Give a seat back before the start (it becomes open); the creator leaving cancels the game."""
        account = await self.accounts.require(token)
        async with self.lobby.locked(game_id) as found:
            locked = self._found(found, game_id)
            with refusals():
                cancels = rules.leaving(locked.lobby.status, locked.lobby.creator_id, account.account_id)
            if cancels:
                await self._cancel(locked, game_id)
            else:
                left = await locked.give_back(account.account_id)
                with refusals():
                    rules.given_back(left)
        return await self.lobby_game(game_id)

    async def decline(self, game_id: str, token: str | None) -> LobbyGame:
        """Decline an invitation: the game is cancelled, as a declined challenge is (409 without one)."""
        account = await self.accounts.require(token)
        async with self.lobby.locked(game_id) as found:
            locked = self._found(found, game_id)
            invited = await locked.invitation(account.account_id)
            with refusals():
                rules.declining(locked.lobby.status, invited)
            await self._cancel(locked, game_id)
        log.info("lobby_invitation_declined", game_id=game_id, account_id=account.account_id)
        return await self.lobby_game(game_id)

    @staticmethod
    async def _cancel(locked: LockedGame, game_id: str) -> None:
        """Cancel a waiting game (in the locked transaction)."""
        await locked.cancel()
        log.info("lobby_game_cancelled", game_id=game_id)

    # ----------------------------------------------------------------- start

    async def start(self, game_id: str) -> GameCreated | None:
        """Append the opening events of a game whose seats are all filled, seated as they were taken; once,
        whichever processes try at the same time (they take turns on a lock named after the game; None for
        a game another one started already)."""
        async with self.lobby.starting(game_id) as starting:
            if starting is None:
                return None
            lobby, seats = starting.lobby, starting.seats
            players = [  # a server bot's account: the bot runner plays the seat (bot_levels in the metadata)
                PlayerIn(
                    name=seat.account_name if seat.kind == ACCOUNT else seat.name, bot=seat.bot_level or False
                )
                for seat in seats
            ]
            committed = await self.games.keys.committed(game_id)
            mix = None
            if lobby.seed is None and committed is not None:  # (a game listed before commitments: None)
                mix = SeedMix(committed.secret, tuple(seat.entropy or "" for seat in seats))
            created = await self.games.commands.create(
                CreateGame(
                    game=lobby.game,
                    players=players,
                    seed=lobby.seed,
                    options=lobby.options,
                    rated=lobby.rated,
                    clock=None if lobby.clock is None else msgspec.convert(lobby.clock, ClockIn),
                ),
                token_hashes=[seat.token_hash or "" for seat in seats],
                game_id=game_id,
                accounts=[seat.account_id for seat in seats],
                mix=mix,
                owner=lobby.creator_id if all(seat.bot_level for seat in seats) else None,
            )
            await starting.started()
        log.info("lobby_game_started", game_id=game_id)
        return created

    # ----------------------------------------------------------------- reads

    async def lobby_game(self, game_id: str) -> LobbyGame:
        """A game as the lobby shows it (any status; 404 if it never was in the lobby); finishes a start
        that was cut short."""
        games = await self.lobby.games(Listing(game_id=game_id), 1)
        if not games:
            raise errors.NotFound("game_not_found", f"no game {game_id} in the lobby")
        if games[0].status == STARTING:
            await self.start(game_id)
            games = await self.lobby.games(Listing(game_id=game_id), 1)
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
        wanted = None
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
        listing = Listing(waiting=True, game=game, options=wanted, rated=rated, after=decode_cursor(cursor))
        limit = min(limit, MAX_PAGE)
        games = await self.lobby.games(listing, limit + 1)
        more = len(games) > limit
        games = games[:limit]
        return LobbyPage(
            games=games, next_cursor=encode_cursor(games[-1].created_at, games[-1].game_id) if more else None
        )

    async def my_games(self, token: str | None, cursor: str | None, limit: int) -> MyGamePage:
        """The caller's games (seats held, and seats reserved for it by invitation), newest first."""
        account = await self.accounts.require(token)
        return await self.games_of(account, cursor, limit)

    async def games_of(self, account: Account, cursor: str | None, limit: int) -> MyGamePage:
        """An account's games, newest first: lobby status while waiting, the listing's once started."""
        position = decode_cursor(cursor)
        limit = min(limit, MAX_PAGE)
        games = await self.lobby.games_of(account.account_id, position, limit + 1)
        more = len(games) > limit
        games = games[:limit]
        return MyGamePage(
            games=games, next_cursor=encode_cursor(games[-1].created_at, games[-1].game_id) if more else None
        )
