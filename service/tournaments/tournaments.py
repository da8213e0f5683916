"""Tournaments: create, seat rounds (creating their games), record finished games, and the read models.

A tournament is an event stream of its own (category ``tournament``) decided by ``domain.tournament``.
Finished games are recorded by a background worker fed from the global feed (``TournamentResults``), whichever
process ran the games; no read appends anything: a read (and a round request) waits until the worker
holds every game finished before it. Seeds never leave this module before their time:
the read models used here (overview, standings, results) carry none.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import msgspec
import structlog

from domain.core import Command, Event, Rejected, Rng, shown
from domain.resign import Adjudicate, Resign
from domain.tournament import (
    TOURNAMENT,
    AdjudicateGame,
    AttachGames,
    CreateTournament,
    Crosstable,
    EnterPlayer,
    RecordGame,
    ResultRow,
    RoundView,
    SeatNextRound,
    StandingRow,
    State,
    TerminateTournament,
    TournamentCommand,
    TournamentView,
    WithdrawPlayer,
    awaiting_games,
    forfeited_seats,
    round_view,
    table_of_game,
)
from domain.tournament.seating import MIN_TABLE
from domain.tournament.standings import result_row
from eventstore import (
    ConcurrencyConflict,
    EventStore,
    FeedHeader,
    StreamExists,
    TournamentKeys,
    TournamentKeyStore,
)
from service.accounts.accounts import Account, AccountService
from service.games.clocks import system_now, time_control
from service.games.loading import LoadedGame, organizer_key
from service.games.schemas import TOURNAMENT_CLOCK, ClockIn, CreateGame, PlayerIn
from service.games.service import GameService
from service.integrity.signing import SignedHead
from service.integrity.tokens import hash_token, new_seed, new_token, seed_commitment, token_matches
from service.lobby.lobby import seat_kind
from service.readmodels.projections import FeedFollower, FeedPage, Writes, last_events, no_writes
from service.runtime import errors
from service.runtime.sql import Pool
from service.runtime.streams import Decision, Loaded, Repository, handle, new_event
from service.tournaments.registrations import INVITED, JOINED, Closing, Registration, Registrations
from service.tournaments.schemas import CreateTournamentIn, PlayerToken, TournamentCreatedOut

log = structlog.get_logger("service.tournaments.tournaments")

CATEGORY = "tournament"
ORGANIZER_ACCOUNT = "organizer_account"  # creation metadata: the account that created a tournament, if any
CONFLICT_CODES = frozenset(
    {
        "round_in_progress",
        "tournament_complete",
        "tournament_terminated",
        "already_withdrawn",
        "no_rounds_left",
        "too_few_players",
        "game_already_decided",
    }
)
# a report with nothing left to do (a completed tournament has every table's result: a report redelivered)
DONE_CODES = frozenset(
    {"duplicate_report", "reported_by_adjudication", "tournament_complete", "tournament_terminated"}
)
COUNT_CODES = frozenset({"bad_player_count", "impossible_table_split", "duplicate_needs_equal_tables"})


def bot_accepts(account: Account, game: str) -> bool:
    """Whether an invited account is one of the server's bots, which accepts every invitation to a tournament
    of the game it plays at once (no client acts for it); 422 ``bot_plays_another_game`` for a tournament of
    another game, as for a game's invitation (service/lobby/lobby.py). Any other account answers for itself."""
    if account.bot_game is None:
        return False
    if account.bot_game != game:
        raise errors.RuleViolation("bot_plays_another_game", f"{account.name} plays {account.bot_game} only")
    return True


def refusal(rejected: Rejected) -> errors.ServiceError:
    """The problem a tournament refusal becomes: 409 for a request the tournament's state does not allow now
    (a round asked too early or too late, a player already withdrawn, ...), else 422."""
    if rejected.code in CONFLICT_CODES:
        return errors.Conflict(rejected.code, rejected.detail)
    return errors.RuleViolation(rejected.code, rejected.detail)


class TournamentService:
    """Creates tournaments, seats their rounds (creating the games), records results, serves the read models."""

    def __init__(
        self,
        store: EventStore,
        keys: TournamentKeyStore,
        games: GameService,
        pool: Pool | None = None,
        acquire_timeout: float | None = None,
        accounts: AccountService | None = None,
        registrations: Registrations | None = None,
    ) -> None:
        """With ``pool``, a results recorder (``recorder``) whose loop the app runs; reads wait for it;
        with ``accounts`` and ``registrations``, tournaments of accounts (registration, account seats)."""
        self.store = store
        self.keys = keys
        self.games = games
        self.accounts = accounts
        self.registrations = registrations
        self.streams: Repository[State] = Repository(store, {CATEGORY: TOURNAMENT}, self._missing)
        self.recorder = (
            None if pool is None else TournamentResults(pool, self, acquire_timeout=acquire_timeout)
        )

    # ----------------------------------------------------------------- plumbing

    @staticmethod
    def _decide(state: State, command: Command, rng: Rng) -> list[Event]:
        try:
            return TOURNAMENT.decide(state, command, rng)
        except Rejected as rejected:
            raise refusal(rejected) from None

    async def _missing(self, tournament_id: str) -> errors.ServiceError:
        """Why a tournament has no stream: 409 while it registers players, else 404."""
        if self.registrations is not None and await self.registrations.status(tournament_id):
            return errors.Conflict(
                "tournament_registering",
                f"the tournament registers players until its first round: see "
                f"/v1/tournaments/{tournament_id}/registration",
            )
        return errors.NotFound("tournament_not_found", f"no tournament {tournament_id}")

    async def load(self, tournament_id: str) -> Loaded[State]:
        """The tournament folded to its latest stored version (404 if unknown)."""
        return await self.streams.load(tournament_id)

    def _decision(self, loaded: Loaded[State], events: list[Event]) -> Decision[State, None]:
        """A decision to append ``events`` to the tournament."""
        return Decision(events=events, state=self.streams.evolved(loaded, events), answer=None)

    async def _organize(
        self,
        tournament_id: str,
        decide: Callable[[State], list[Event]],
        loaded: Loaded[State] | None = None,
    ) -> Loaded[State]:
        """Decide an organizer's request on the tournament (as stored, or as the caller has just loaded it)
        and append its events at that version; a lost race is a 409 the organizer may retry."""

        async def decision(stream: Loaded[State]) -> Decision[State, None]:
            return self._decision(stream, decide(stream.state))

        try:
            handled = await handle(
                self.streams, tournament_id, decision, retries=0, first=loaded, first_stored=True
            )
        except ConcurrencyConflict:
            raise errors.Conflict(
                "concurrent_request", "another request changed the tournament first; try again"
            ) from None
        return handled.after

    async def tournament_keys(self, tournament_id: str) -> TournamentKeys:
        """A tournament's keys (404 if unknown)."""
        keys = await self.keys.get(tournament_id)
        if keys is None:
            raise errors.NotFound("tournament_not_found", f"no tournament {tournament_id}")
        return keys

    async def organizer(self, tournament_id: str) -> tuple[str, str | None]:
        """The tournament's organizer: the organizer token's hash and the organizer's account id (None for
        a tournament of ``{name}`` players created without an account); 404 if unknown."""
        if self.registrations is not None and (
            registered := await self.registrations.organizer(tournament_id)
        ):
            return registered
        stored = await self.keys.get(tournament_id)
        if stored is None:
            raise errors.NotFound("tournament_not_found", f"no tournament {tournament_id}")
        info = await self.store.stream_info(tournament_id)
        account_id = None if info is None else info.metadata.get(ORGANIZER_ACCOUNT)
        return stored.organizer_hash, account_id

    async def is_organizer(self, tournament_id: str, token: str | None) -> bool:
        """Whether ``token`` is the tournament's organizer token or its organizer's account token."""
        organizer_hash, account_id = await self.organizer(tournament_id)
        if token is None:
            return False
        if token_matches(token, organizer_hash):
            return True
        if account_id is None or self.accounts is None:
            return False
        account = await self.accounts.by_token(token)
        return account is not None and account.account_id == account_id

    async def require_organizer(self, tournament_id: str, token: str | None) -> None:
        """401 without a token, 403 with a token that is neither the tournament's organizer token nor its
        organizer's account token (an organizer who lost the organizer token acts with her account)."""
        if token is None:
            await self.organizer(tournament_id)  # 404 first for an unknown tournament
            raise errors.Unauthorized(
                "token_required",
                "the organizer's requests need 'Authorization: Bearer <organizer token>' or the organizer's"
                " account token",
            )
        if not await self.is_organizer(tournament_id, token):
            raise errors.Forbidden(
                "not_organizer",
                "this token is neither the tournament's organizer token nor its organizer's account token",
            )

    # ----------------------------------------------------------------- creation

    async def create(self, request: CreateTournamentIn, token: str | None = None) -> TournamentCreatedOut:
        """Validate against the game and the tournament rules, then store keys and the stream; a tournament
        of accounts (``account``/``invite`` players or ``open``) opens its registration instead."""
        named = [player.name is not None for player in request.players]
        if any(named) and (not all(named) or request.open):
            raise errors.RuleViolation(
                "bad_player",
                "players are either all {name} (player tokens) or all accounts (account, invite)",
            )
        if not all(named) or not request.players:
            return await self._open_registration(request, token)
        self._check_seed(request)
        names = tuple((player.name or "").strip() for player in request.players)
        seed = request.seed if request.seed is not None else new_seed()
        events = self._creation(request, names, seed)
        # created by a signed-in account (a token that opens none is 401): that account organizes it too
        creator = None if token is None or self.accounts is None else await self.accounts.require(token)
        tournament_id = str(uuid.uuid4())
        organizer = new_token()
        player_tokens = [new_token() for _ in names]
        await self._store(
            tournament_id,
            request,
            hash_token(organizer),
            names,
            player_tokens,
            None,
            events,
            organizer_account=None if creator is None else creator.account_id,
        )
        return TournamentCreatedOut(
            tournament_id=tournament_id,
            organizer_token=organizer,
            players=[PlayerToken(name=n, token=t) for n, t in zip(names, player_tokens, strict=True)],
            seed_commitment=seed_commitment(seed),
        )

    @staticmethod
    def _check_seed(request: CreateTournamentIn) -> None:
        if request.seed is not None and (not request.seed or len(request.seed) > 200):
            raise errors.Malformed("bad_seed", "a seed is 1-200 characters")

    @staticmethod
    def _clock(request: CreateTournamentIn) -> dict[str, Any] | None:
        """The clock of every game of the tournament: the one chosen, else ``TOURNAMENT_CLOCK``; none when
        ``untimed`` (422 ``bad_clock`` for a clock the service does not offer, or both). A rated tournament's
        (accounts, the server's seed) is timed, at least at the rated floor: 422 ``rated_needs_clock``,
        ``rated_clock_too_short``."""
        accounts = request.open or not request.players or any(p.name is None for p in request.players)
        rated = accounts and request.seed is None
        if request.untimed:
            if request.clock is not None:
                raise errors.RuleViolation("bad_clock", "a tournament is either untimed or has a clock")
            if rated:
                raise errors.RuleViolation(
                    "rated_needs_clock",
                    "a rated tournament's games are timed: choose a clock or keep the default",
                )
            return None
        choice = request.clock or TOURNAMENT_CLOCK
        time_control(choice, system_now(), rated=rated)  # validates it
        clock: dict[str, Any] = msgspec.to_builtins(choice)
        return clock

    def _creation(self, request: CreateTournamentIn, names: tuple[str, ...], seed: str) -> list[Event]:
        """The tournament's creation events for these players and this (committed) seed (422 for anything
        the rules refuse)."""
        game = self.games.commands.game_named(request.game)
        options = msgspec.to_builtins(self.games.commands.parse_options(game, request.options))
        command = CreateTournament(
            name=request.name,
            game=game.name,
            players=names,
            rounds=request.rounds,
            min_players=game.min_players,
            max_players=game.max_players,
            table_size=request.table_size,
            options=options,
            duplicate=request.duplicate,
            seed=seed,
            clock=self._clock(request),
        )
        return self._decide(TOURNAMENT.initial(), command, Rng(seed, "create"))

    async def _store(
        self,
        tournament_id: str,
        request: CreateTournamentIn,
        organizer_hash: str,
        names: tuple[str, ...],
        player_tokens: list[str] | None,
        account_ids: list[str] | None,
        events: list[Event],
        organizer_account: str | None = None,
    ) -> None:
        """Store the keys and the stream of a new tournament (an account tournament's games are rated when
        the server chose the seed; its players act with their account tokens, so they have no token here;
        ``organizer_account``: the account that created a tournament of ``{name}`` players, if any)."""
        if await self.keys.get(tournament_id) is None:
            await self.keys.save(
                TournamentKeys(
                    tournament_id=tournament_id,
                    organizer_hash=organizer_hash,
                    player_names=names,
                    player_hashes=tuple(hash_token(t) for t in player_tokens)
                    if player_tokens is not None
                    else tuple("" for _ in names),
                )
            )
        metadata: dict[str, Any] = {"name": request.name, "game": request.game, "players": list(names)}
        if organizer_account is not None:
            metadata[ORGANIZER_ACCOUNT] = organizer_account
        if account_ids is not None:
            metadata["accounts"] = account_ids
            metadata["rated"] = request.seed is None
        try:
            await self.store.create_stream(
                tournament_id, CATEGORY, [new_event(e) for e in events], metadata=metadata
            )
        except StreamExists:
            if account_ids is None:
                raise
        log.info("tournament_created", tournament_id=tournament_id, game=request.game, players=len(names))

    async def _open_registration(
        self, request: CreateTournamentIn, token: str | None
    ) -> TournamentCreatedOut:
        """An account tournament: the organizer's account opens registration (its players join, or accept
        the organizer's invitation, until the first round is seated)."""
        if self.accounts is None or self.registrations is None:
            raise errors.Unavailable("no_accounts", "account tournaments need the PostgreSQL database")
        organizer = await self.accounts.require(token)
        self._check_seed(request)
        self._clock(request)  # refused now, not when registration closes
        plays = False
        invited: list[Account] = []
        bots: list[Account] = []  # the server's bots invited: registered at once
        for player in request.players:
            kind = seat_kind(player)
            if kind == "account":
                plays = True
            elif kind == "invite":
                account = await self.accounts.by_name(player.invite or "")
                if account is None:
                    raise errors.RuleViolation("unknown_account", f"no account called {shown(player.invite)}")
                if bot_accepts(account, request.game):
                    bots.append(account)
                else:
                    invited.append(account)
            else:
                raise errors.RuleViolation(
                    "bad_player",
                    'tournament players are {account: "me"} or {invite}; "open": true is the tournament\'s',
                )
        game = self.games.commands.game_named(request.game)
        fewest_seats = max(MIN_TABLE, game.min_players)
        if len(bots) >= fewest_seats:  # a table of server bots only would be played with nobody to pace it
            raise errors.RuleViolation(
                "too_many_bots",
                f"every table has a person: a {game.name} tournament invites at most {fewest_seats - 1} of the"
                " server's bots",
            )
        ids = [a.account_id for a in invited + bots] + ([organizer.account_id] if plays else [])
        if len(set(ids)) != len(ids):
            raise errors.RuleViolation("duplicate_account", "an account is invited at most once")
        # The rules' refusals that do not depend on who registers (name, rounds, options...) come now.
        # (checked as for one full table; the number registering is only known when the first round starts)
        try:
            self._creation(request, tuple(f"player {i}" for i in range(game.max_players)), "check")
        except errors.RuleViolation as refused:
            if refused.code not in COUNT_CODES:
                raise
        tournament_id = str(uuid.uuid4())
        organizer_token = new_token()
        # committed now, write-once, before anybody registers; used when the first round is seated
        commitment = await self.games.keys.commit(
            tournament_id, request.seed if request.seed is not None else new_seed()
        )
        await self.registrations.open(
            tournament_id, request, hash_token(organizer_token), organizer, plays, invited, bots
        )
        log.info("tournament_registration_opened", tournament_id=tournament_id, invited=len(invited))
        return TournamentCreatedOut(
            tournament_id=tournament_id,
            organizer_token=organizer_token,
            players=[],
            registering=True,
            seed_commitment=commitment,
        )

    async def _close_registration(self, tournament_id: str) -> None:
        """Open the tournament's stream with the registered accounts (its first round is being seated)."""
        if self.registrations is None or await self.store.stream_info(tournament_id) is not None:
            return

        committed = await self.games.keys.committed(tournament_id)

        async def start(closing: Closing) -> None:
            names = tuple(closing.names)
            # the seed committed at creation (a registration opened before seeds were committed: drawn now)
            seed = committed.secret if committed is not None else closing.request.seed or new_seed()
            events = self._creation(closing.request, names, seed)
            await self._store(
                tournament_id,
                closing.request,
                closing.organizer_hash,
                names,
                None,
                closing.account_ids,
                events,
            )

        await self.registrations.close(tournament_id, start)

    # ----------------------------------------------------------------- recording results

    async def _recorded(self) -> None:
        """Wait until the results recorder holds every game finished before this call (bounded)."""
        if self.recorder is not None:
            await self.recorder.read_your_writes()

    async def record_game(self, tournament_id: str, game: LoadedGame) -> None:
        """Report a finished tournament game to its tournament's stream: once (a report already in the
        stream is ``duplicate_report``, nothing to do; the decider leaves an adjudicated game to its
        adjudication); a report the tournament refuses otherwise (a game of no table of it) is logged and
        dropped, it must not stop the recorder."""
        result = game.result()
        (last,) = await self.store.read_stream(game.game_id, after=game.version - 1, until=game.version)

        async def decide(loaded: Loaded[State]) -> Decision[State, None] | None:
            """The report decided on the tournament as stored; None when there is nothing to record."""
            found = table_of_game(loaded.state, game.game_id)
            if found is None:
                log.warning("tournament_game_unrecorded", game_id=game.game_id, code="no_table")
                return None
            round_number, table_number = found
            command = RecordGame(
                round=round_number,
                table=table_number,
                game_id=game.game_id,
                ranks=tuple(result.ranks),
                scores=tuple(result.scores),
                audit_head=last.hash.hex(),
                adjudicated=game.adjudicated,
            )
            try:
                events = TOURNAMENT.decide(loaded.state, command, Rng(loaded.state.seed, "record"))
            except Rejected as rejected:
                if rejected.code not in DONE_CODES:
                    log.warning("tournament_game_unrecorded", game_id=game.game_id, code=rejected.code)
                return None
            return self._decision(loaded, events)

        try:
            # a lost race: the organizer seated or attached meanwhile, decided again on the new state
            handled = await handle(self.streams, tournament_id, decide)
        except errors.NotFound:
            log.warning("tournament_game_unrecorded", game_id=game.game_id, code="tournament_not_found")
            return
        except ConcurrencyConflict:
            raise errors.Conflict(
                "concurrent_request", "the tournament kept changing; the recorder retries"
            ) from None
        if handled is not None:
            log.info("tournament_game_recorded", tournament_id=tournament_id, game_id=game.game_id)

    # ----------------------------------------------------------------- rounds

    async def seat_next_round(self, tournament_id: str) -> RoundView:
        """Seat the next round (or finish seating a round whose games are missing) and create its games; the
        first round of an account tournament closes its registration."""
        await self._close_registration(tournament_id)
        await self._recorded()
        loaded = await self.load(tournament_id)
        if awaiting_games(loaded.state) is None:
            loaded = await self._organize(
                tournament_id,
                lambda state: self._decide(state, SeatNextRound(), Rng(state.seed, "seat")),
                loaded,
            )
        rnd = awaiting_games(loaded.state)
        assert rnd is not None
        keys = await self.tournament_keys(tournament_id)
        state = loaded.state
        metadata = loaded.info.metadata
        account_of = dict(zip(metadata.get("players", []), metadata.get("accounts") or [], strict=False))
        bot_level_of = await self._bot_levels(list(account_of.values()))
        game_ids: list[str] = []
        for table in rnd.tables:
            request = CreateGame(
                game=state.game,
                players=[  # a server bot's account: the bot runner plays its seat (bot_levels in the metadata)
                    PlayerIn(name=name, bot=bot_level_of.get(account_of.get(name, ""), False))
                    for name in table.players
                ],
                seed=table.seed,
                options=state.options,
                rated=bool(metadata.get("rated")),
                clock=None if state.clock is None else msgspec.convert(state.clock, ClockIn),
            )
            hashes = [keys.hash_of(name) for name in table.players]
            # a duplicate round's tables share one deal: each keeps its secrets until all have finished
            shared = (f"{tournament_id}/{rnd.round}", len(rnd.tables)) if state.duplicate else None
            if not account_of:
                created = await self.games.commands.create(
                    request, tournament=tournament_id, token_hashes=hashes, duplicate_round=shared
                )
            else:
                accounts = [account_of[name] for name in table.players]
                game_id = await self.seat_accounts(accounts)
                created = await self.games.commands.create(
                    request,
                    tournament=tournament_id,
                    token_hashes=hashes,
                    game_id=game_id,
                    accounts=accounts,
                    duplicate_round=shared,
                )
            game_ids.append(created.game_id)
        attach = AttachGames(round=rnd.round, game_ids=tuple(game_ids))
        loaded = await self._organize(
            tournament_id, lambda state: self._decide(state, attach, Rng("", "attach")), loaded
        )
        log.info(
            "tournament_round_seated", tournament_id=tournament_id, round=rnd.round, tables=len(game_ids)
        )
        await self._resign_withdrawn(loaded)  # a player withdrawn while the round was being seated
        return round_view(loaded.state.rounds[-1])

    async def _bot_levels(self, account_ids: list[str]) -> dict[str, str]:
        """The level of each of these accounts that is one of the server's bots, by account id."""
        if self.accounts is None or not account_ids:
            return {}
        found = await self.accounts.by_ids(account_ids)
        return {i: a.bot_level for i, a in found.items() if a.bot_level is not None}

    async def seat_accounts(self, accounts: list[str]) -> str:
        """A new game id whose seats these accounts hold (in seat order), so their tokens act for them."""
        assert self.accounts is not None
        game_id = str(uuid.uuid4())
        await self.accounts.seat_game(game_id, accounts)
        return game_id

    # ----------------------------------------------------------------- administration

    async def _administer(self, tournament_id: str, command: TournamentCommand) -> Loaded[State]:
        """Decide an organizer's command on the tournament as recorded so far and append its events."""
        await self._recorded()
        return await self._organize(
            tournament_id, lambda state: self._decide(state, command, Rng(state.seed, "administer"))
        )

    async def _resign_withdrawn(self, loaded: Loaded[State]) -> None:
        """Resign every withdrawn player's seat in the current round's games still running, so a stand-in
        plays it (domain/resign.py); once per seat (an idempotency key), and a game over is left alone."""
        for game_id, seat in forfeited_seats(loaded.state):
            try:
                await self.games.commands.execute(
                    game_id,
                    seat,
                    None,
                    idempotency_key=organizer_key("withdrawn", loaded.stream_id),
                    command=Resign(),
                )
            except errors.ServiceError as refused:  # finished meanwhile, or resigned already
                log.info("tournament_withdrawal_resign_refused", game_id=game_id, code=refused.code)
                continue
            log.info("tournament_withdrawal_resigned", game_id=game_id, seat=seat)

    async def withdraw(self, tournament_id: str, name: str) -> TournamentView:
        """Withdraw a player: later rounds skip them; a game of theirs still running goes on with a stand-in
        (their seat resigns). A repeated withdrawal still makes sure of the resignations, then answers 409."""
        try:
            loaded = await self._administer(tournament_id, WithdrawPlayer(name=name))
        except errors.Conflict as conflict:
            if conflict.code == "already_withdrawn":
                await self._resign_withdrawn(await self.load(tournament_id))
            raise
        log.info("tournament_player_withdrawn", tournament_id=tournament_id, round=len(loaded.state.rounds))
        await self._resign_withdrawn(loaded)
        return TOURNAMENT.overview(loaded.state)

    async def enter(self, tournament_id: str, name: str) -> PlayerToken:
        """Late entry of a ``{name}`` player (from the next round seated on) with a new player token; an
        account tournament registers its players before its first round only (409 ``late_entry_closed``)."""
        info = await self.store.stream_info(tournament_id)
        if info is not None and info.metadata.get("accounts") is not None:
            raise errors.Conflict(
                "late_entry_closed",
                "an account tournament registers players until its first round; late entry is for "
                "tournaments of {name} players",
            )
        loaded = await self._administer(tournament_id, EnterPlayer(name=name))
        entered = loaded.state.entered[-1]
        token = new_token()
        await self.keys.add_player(tournament_id, entered, hash_token(token))
        log.info("tournament_player_entered", tournament_id=tournament_id, round=len(loaded.state.rounds) + 1)
        return PlayerToken(name=entered, token=token)

    async def terminate(self, tournament_id: str) -> TournamentView:
        """End the tournament now: no more rounds, the standings final as they stand; games still running go
        on by themselves but no longer count."""
        loaded = await self._administer(tournament_id, TerminateTournament())
        log.info("tournament_terminated", tournament_id=tournament_id, round=len(loaded.state.rounds))
        return TOURNAMENT.overview(loaded.state)

    async def adjudicate(self, tournament_id: str, game_id: str) -> ResultRow:
        """Record the result of a game of the current round that cannot finish: the game's own result as it
        stands now (its scoring and tie-breaks on the current state; resigned seats last). The game ends
        first, as it stands (``adjudicate``, domain/resign.py): nothing more is played in it, so its seed,
        and the tournament's once it completes, decide nothing any more."""
        await self._recorded()
        loaded = await self.load(tournament_id)
        found = table_of_game(loaded.state, game_id)
        if found is None:
            raise errors.RuleViolation("wrong_game", f"game {game_id} is not played in this tournament")
        round_number, table_number = found
        game = await self.games.loader.load(game_id)

        def adjudication(game: LoadedGame) -> AdjudicateGame:
            result = game.result()
            return AdjudicateGame(
                round=round_number,
                table=table_number,
                game_id=game_id,
                ranks=tuple(result.ranks),
                scores=tuple(result.scores),
                audit_head=game.head.hex(),
                played_out=game.finished and not game.adjudicated,
            )

        rng = Rng(loaded.state.seed, "administer")
        self._decide(loaded.state, adjudication(game), rng)  # refused here, the game is left running
        game = await self._end_adjudicated(tournament_id, game)
        loaded = await self._organize(
            tournament_id, lambda state: self._decide(state, adjudication(game), rng), loaded
        )
        log.info("tournament_game_adjudicated", tournament_id=tournament_id, game_id=game_id)
        rnd = next(r for r in loaded.state.rounds if r.round == round_number)
        return result_row(rnd.round, next(t for t in rnd.tables if t.game_id == game_id))

    async def _end_adjudicated(self, tournament_id: str, game: LoadedGame) -> LoadedGame:
        """The game ended by adjudication at the version it is at (409 ``concurrent_request`` if it moved
        meanwhile); one ended so before (its adjudication not recorded: a crash in between) as it is."""
        if game.finished:
            return game
        try:
            await self.games.commands.execute(
                game.game_id,
                0,
                None,
                if_match=game.version,
                idempotency_key=organizer_key("adjudicated", tournament_id),
                command=Adjudicate(),
            )
        except errors.PreconditionFailed:
            raise errors.Conflict("concurrent_request", "the game moved on meanwhile; try again") from None
        return await self.games.loader.load(game.game_id)

    # ----------------------------------------------------------------- registration

    def _registrations(self) -> Registrations:
        if self.registrations is None:
            raise errors.Unavailable("no_accounts", "account tournaments need the PostgreSQL database")
        return self.registrations

    async def join(self, tournament_id: str, token: str | None) -> Registration:
        """Register the caller's account (accepting its invitation, or joining an open tournament)."""
        return await self._registrations().join(tournament_id, token)

    async def decline(self, tournament_id: str, token: str | None) -> Registration:
        """Decline the caller's invitation."""
        return await self._registrations().withdraw(tournament_id, token, INVITED)

    async def leave(self, tournament_id: str, token: str | None) -> Registration:
        """Withdraw the caller's registration before the first round."""
        return await self._registrations().withdraw(tournament_id, token, JOINED)

    async def registration(self, tournament_id: str) -> Registration:
        """The tournament's registration: its entries and whether it is still open."""
        return await self._registrations().registration(tournament_id)

    # ----------------------------------------------------------------- reads

    async def overview(self, tournament_id: str) -> TournamentView:
        """Status, rounds, tables and their games (no seeds)."""
        await self._recorded()
        return TOURNAMENT.overview((await self.load(tournament_id)).state)

    async def standings(self, tournament_id: str) -> list[StandingRow]:
        """The standings, best first."""
        await self._recorded()
        return TOURNAMENT.standings((await self.load(tournament_id)).state)

    async def latest(self, limit: int) -> list[tuple[str, TournamentView]]:
        """The newest tournaments past registration, newest first (at most ``limit``): id and overview."""
        await self._recorded()
        streams = await self.store.list_streams(category=CATEGORY, limit=limit)
        return [
            (info.stream_id, TOURNAMENT.overview((await self.load(info.stream_id)).state)) for info in streams
        ]

    async def registering(self, limit: int) -> list[Registration]:
        """The newest tournaments still registering players (none without accounts)."""
        return [] if self.registrations is None else await self.registrations.registering(limit)

    async def of_accounts(self, tournament_id: str) -> bool:
        """Whether the tournament's players are accounts (else ``{name}`` players with tokens)."""
        info = await self.store.stream_info(tournament_id)
        return info is not None and info.metadata.get("accounts") is not None

    async def crosstable(self, tournament_id: str) -> Crosstable:
        """The standings with every player's place, score and points round by round (no seeds)."""
        await self._recorded()
        return TOURNAMENT.crosstable((await self.load(tournament_id)).state)

    async def results(self, tournament_id: str) -> list[SignedResultRow]:
        """One row per finished game, by round then table, with the game's final head signed (a receipt:
        docs/audit.md; None without a signer, for an adjudicated game (it never finished), or if the game's
        head is not the one recorded)."""
        await self._recorded()
        rows = []
        for row in TOURNAMENT.results((await self.load(tournament_id)).state):
            head = None
            info = None if row.adjudicated else await self.store.stream_info(row.game_id)
            if info is not None and info.head_hash.hex() == row.audit_head:
                head = self.games.queries.signed_head(
                    row.game_id, info.version, info.head_hash, info, finished=True
                )
            rows.append(SignedResultRow(**msgspec.structs.asdict(row), head=head))
        return rows


class SignedResultRow(ResultRow, frozen=True, kw_only=True):
    """A tournament result row with its game's final head signed by the service."""

    head: SignedHead | None = None


class TournamentResults(FeedFollower[FeedHeader]):
    """Records finished tournament games in their tournaments' streams, fed from the global feed under the
    ``tournament_results`` checkpoint: a game whose last event the batch brings, finished, of a tournament,
    is reported once (the followers of several processes take turns on the checkpoint; a report repeated
    after a crash between the append and the checkpoint is the tournament's ``duplicate_report``)."""

    def __init__(
        self, pool: Pool, tournaments: TournamentService, acquire_timeout: float | None = None
    ) -> None:
        super().__init__(
            pool, tournaments.store.read_all_headers, "tournament_results", acquire_timeout=acquire_timeout
        )
        self.tournaments = tournaments

    async def prepare(self, feed: FeedPage[FeedHeader]) -> Writes:
        """Report each tournament game the batch finishes, in the order they finish (before the checkpoint's
        transaction: a report is its own append, and one repeated is ``duplicate_report``); nothing to write
        but the checkpoint."""
        games = self.tournaments.games
        for game_id, (_, version) in last_events(feed).items():
            cached = games.loader.cached(game_id)
            try:
                info = cached.info if cached is not None else await games.loader.info(game_id)
            except errors.NotFound:
                continue  # a tournament's own stream
            tournament = info.metadata.get("tournament")
            if tournament is None:
                continue
            try:
                game = await games.loader.load(game_id)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                log.error("tournament_game_unreadable", game_id=game_id, error=str(exc))
                continue
            if game.finished and game.version == version:
                await self.tournaments.record_game(tournament, game)
        return no_writes
