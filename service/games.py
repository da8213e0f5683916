"""Command handling for every game: create, load, decide, append, and the read sides (views, history, audit).

The service is generic over ``domain.core.Game``: it never looks inside a game's commands or events.
Correctness never rests on process memory: the state cache is keyed by version and topped up from the
store on every load, and every append is checked by the store's optimistic concurrency. A command is
decided on the cached state without asking the store first (the append's version check is the check);
a refusal or a lost race is only answered after deciding again on the stored state.
"""

from __future__ import annotations

import hashlib
import uuid
from collections import OrderedDict
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, TypeVar

import msgspec
import structlog

from domain.bots import LEVELS
from domain.core import Command, Event, Game, GameConfig, Rejected, Rng, fold
from eventstore import (
    GENESIS_HASH,
    CommandRecord,
    ConcurrencyConflict,
    EventStore,
    IdempotencyMismatch,
    NewEvent,
    RecordedEvent,
    StreamExists,
    StreamInfo,
)
from service import errors
from service.accounts import AccountService
from service.audit import Move, Reveal, StoredEvent, audit_events, chain_key, encode_move
from service.keys import GameKeys, KeyStore
from service.models import (
    AuditReport,
    CommandAccepted,
    CreateGame,
    EventOut,
    ExportedCommand,
    ExportedEvent,
    GameCreated,
    GameDetail,
    GameExport,
    PendingDecision,
    ScoreSheetOut,
    Seat,
    SeatToken,
    SeedReveal,
)
from service.seeds import SeedMix
from service.signing import SignedHead, Signer
from service.tokens import hash_token, new_seed, new_token, seed_commitment, token_matches

log = structlog.get_logger("service.games")

ACTIVE, FINISHED = "active", "finished"
MAX_RACE_RETRIES = 8  # an unconditional command that loses a version race is decided again on the new state
MAX_NAME_LENGTH = 40


@dataclass(frozen=True)
class Loaded:
    """A game folded up to its latest stored version."""

    game_id: str
    game: Game[Any]
    info: StreamInfo
    keys: GameKeys
    state: Any
    version: int
    head: bytes = GENESIS_HASH  # the hash of the event at ``version``
    sealed: bool = False  # a finished game of a duplicate round whose other tables still play

    @property
    def finished(self) -> bool:
        """Whether the game is over."""
        return bool(self.game.is_over(self.state))

    @property
    def public(self) -> bool:
        """Whether its events, seed, audit and export are public: once it is over, and for a game of a
        duplicate tournament round once every table of the round is over (they share one deal)."""
        return self.finished and not self.sealed


@dataclass(frozen=True)
class _Cached:
    version: int
    state: Any
    info: StreamInfo  # metadata never changes; version and status as of the last load
    head: bytes  # the hash of the event at ``version``


def event_tag(event: Event) -> str:
    """The ``type`` tag of an event struct."""
    return str(type(event).__struct_config__.tag)


def new_event(event: Event) -> NewEvent:
    """The stored form of a domain event: its tag, schema version and canonical JSON."""
    return NewEvent(
        type=event_tag(event), schema_version=event.schema_version, data=msgspec.json.encode(event)
    )


def server_bot_levels(request: CreateGame) -> list[str | None]:
    """Each seat's server-bot level (``bot: "strong"``; issue 13), None for a seat a client plays; 422 for an
    unknown level."""
    levels: list[str | None] = []
    for player in request.players:
        if isinstance(player.bot, str):
            if player.bot not in LEVELS:
                raise errors.RuleViolation(
                    "unknown_bot_level",
                    f"a bot seat's level is one of {', '.join(LEVELS)}, not {player.bot!r}",
                )
            levels.append(player.bot)
        else:
            levels.append(None)
    return levels


def request_hash(seat: int, command: Command) -> str:
    """The identity of a command request for idempotency: the seat and the command's canonical JSON."""
    return hashlib.sha256(f"{seat}:".encode() + msgspec.json.encode(command)).hexdigest()


V = TypeVar("V")


def _keep(cache: OrderedDict[str, V], key: str, value: V, size: int) -> None:
    """Put ``value`` in an LRU cache as the most recent entry; the least recently used fall out past ``size``."""
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > size:
        cache.popitem(last=False)


class GameService:
    """Creates games, runs commands through the game's decider and the store, and serves the read sides."""

    def __init__(
        self,
        store: EventStore,
        keys: KeyStore,
        games: dict[str, Game[Any]],
        cache_size: int = 2048,
        accounts: AccountService | None = None,
        signer: Signer | None = None,
    ) -> None:
        self.accounts = accounts  # account tokens act for their seats (None: seat tokens only)
        self.signer = signer  # signs the head shown with every view and command answer (None: unsigned)
        self.store = store
        self.keys = keys
        self.games = games
        self._decoders = {name: msgspec.json.Decoder(game.event_type) for name, game in games.items()}
        self._command_decoders = {
            name: msgspec.json.Decoder(game.command_type) for name, game in games.items()
        }
        self._cache: OrderedDict[str, _Cached] = OrderedDict()
        self._cache_size = cache_size
        self._keys_cache: OrderedDict[str, GameKeys] = OrderedDict()  # bounded like the states: LRU

    # ----------------------------------------------------------------- creation

    def game_named(self, name: str) -> Game[Any]:
        """The registered game called ``name`` (422 otherwise)."""
        game = self.games.get(name)
        if game is None:
            raise errors.RuleViolation("unknown_game", f"no game called {name!r}; see /v1/catalog")
        return game

    def parse_options(self, game: Game[Any], options: dict[str, Any] | None) -> msgspec.Struct:
        """The game's options struct from the request's ``options`` object (422 on an unknown or bad option)."""
        try:
            return msgspec.convert(options or {}, game.options_type)
        except msgspec.ValidationError as exc:
            raise errors.RuleViolation("invalid_options", f"options: {exc}") from None

    def configure(self, game: Game[Any], names: list[str], options: dict[str, Any] | None) -> GameConfig:
        """The game's configuration for these seats and options (422 for a count or option it refuses)."""
        config = GameConfig(players=tuple(names), options=self.parse_options(game, options))
        try:
            game.validate_config(config)
        except Rejected as refusal:
            raise errors.RuleViolation(refusal.code, refusal.detail, rule=refusal.rule) from None
        return config

    async def create(
        self,
        request: CreateGame,
        tournament: str | None = None,
        token_hashes: list[str] | None = None,
        game_id: str | None = None,
        accounts: list[str | None] | None = None,
        duplicate_round: tuple[str, int] | None = None,
        mix: SeedMix | None = None,
    ) -> GameCreated:
        """Create a game: validate, derive the opening events from the seed, store keys and stream.

        ``token_hashes`` (tournament and lobby games): the seats' stored token hashes ("" for a seat an
        account holds); the answer's tokens are then empty. ``game_id`` (a lobby game starting): the id
        it was listed under; if its keys or stream exist already (a start cut short), they are kept.
        ``accounts``: the account id holding each seat (None: none), kept in the creation metadata.
        ``rated`` is taken as given: the lobby (service/lobby.py) decides which games may be rated.
        ``duplicate_round``: (round key, number of tables) of a duplicate tournament round; the game keeps
        its secrets until every table of the round has finished (``sealed``).
        ``mix`` (a lobby game starting): the seed is the server's committed half mixed with the seats'
        entropies (service/seeds.py); the published commitment is the one to the server's half.
        """
        game = self.game_named(request.game)
        levels = server_bot_levels(request)
        names = [
            (player.name or (f"{level}-{game.name}" if level else "")).strip()
            for player, level in zip(request.players, levels, strict=True)
        ]
        # several bots of one level: "strong-johari 1", "strong-johari 2" (a client's names must differ)
        default = [
            player.name is None and level is not None
            for player, level in zip(request.players, levels, strict=True)
        ]
        names = [
            f"{n} {names[:i].count(n) + 1}" if default[i] and names.count(n) > 1 else n
            for i, n in enumerate(names)
        ]
        for name in names:
            if not name or len(name) > MAX_NAME_LENGTH:
                raise errors.RuleViolation(
                    "bad_player_name", f"player names are 1-{MAX_NAME_LENGTH} characters"
                )
        if len(set(names)) != len(names):
            raise errors.RuleViolation("duplicate_player_name", "player names must differ within a game")
        config = self.configure(game, names, request.options)
        seed = mix.seed if mix is not None else request.seed if request.seed is not None else new_seed()
        if not seed or len(seed) > 200:
            raise errors.Malformed("bad_seed", "a seed is 1-200 characters")
        if token_hashes is not None:
            seat_tokens = ["" for _ in names]
            hashes = tuple(token_hashes)
        else:
            seat_tokens = [new_token() for _ in names]
            hashes = tuple(hash_token(t) for t in seat_tokens)
        existing = None if game_id is None else await self.keys.get(game_id)
        game_id = game_id or str(uuid.uuid4())
        if existing is None:
            await self.keys.save(GameKeys(game_id=game_id, seed=seed, token_hashes=hashes))
        else:
            seed = existing.seed
        opening = game.setup(config, Rng(seed, "setup"))
        commitment = seed_commitment(mix.server_seed if mix is not None else seed)
        metadata = {
            "players": names,
            "options": msgspec.to_builtins(config.options),
            "seed_commitment": commitment,
            "bots": [bool(player.bot) for player in request.players],
            "bot_levels": levels,
            "server_bots": any(levels),
            "tournament": tournament,
            "rated": request.rated,
            "chain_keyed": True,  # hashes keyed with the seed's chain key (service/audit.py chain_key)
            # a seed the client chose (never in a rated game) is shown as such: it may be guessable
            "seed_chosen": request.seed is not None and tournament is None,
        }
        if accounts is not None:
            metadata["accounts"] = accounts
        if mix is not None:  # the seed is SeedMix(server half revealed at the end, these entropies).seed
            metadata["seed_entropies"] = list(mix.entropies)
        if duplicate_round is not None:
            metadata["duplicate_group"], metadata["duplicate_tables"] = duplicate_round
        try:
            result = await self.store.create_stream(
                game_id,
                game.name,
                [new_event(e) for e in opening],
                metadata=metadata,
                chain_key=chain_key(seed),
            )
            version = result.version
        except StreamExists:
            if existing is None:
                raise
            version = (await self.info(game_id)).version
        log.info("game_created", game_id=game_id, game=game.name, players=len(names), version=version)
        return GameCreated(
            game_id=game_id,
            game=game.name,
            version=version,
            seats=[
                SeatToken(seat=i, name=n, token=t)
                for i, (n, t) in enumerate(zip(names, seat_tokens, strict=True))
            ],
            seed_commitment=commitment,
        )

    # ----------------------------------------------------------------- loading

    def decode(self, game: Game[Any], recorded: RecordedEvent) -> Event:
        """The typed event of a stored record."""
        event: Event = self._decoders[game.name].decode(recorded.data)
        return event

    async def info(self, game_id: str) -> StreamInfo:
        """The stream row of a game (404 if unknown)."""
        info = await self.store.stream_info(game_id)
        if info is None or info.category not in self.games:
            raise await self.missing(game_id)
        return info

    async def missing(self, game_id: str) -> errors.ServiceError:
        """Why a game has no stream: 409 while it waits in the lobby (or was cancelled there), else 404."""
        status = None if self.accounts is None else await self.accounts.lobby_status(game_id)
        if status in ("waiting", "starting"):
            return errors.Conflict("game_not_started", f"the game waits for players: see /v1/lobby/{game_id}")
        if status == "cancelled":
            return errors.Conflict("game_cancelled", "the game was cancelled in the lobby")
        return errors.NotFound("game_not_found", f"no game {game_id}")

    async def game_keys(self, game_id: str) -> GameKeys:
        """A game's keys (immutable, so cached; least recently used keys fall out past the cache size)."""
        keys = self._keys_cache.get(game_id)
        if keys is None:
            keys = await self.keys.get(game_id)
            if keys is None:
                raise await self.missing(game_id)
        _keep(self._keys_cache, game_id, keys, self._cache_size)
        return keys

    async def load(self, game_id: str) -> Loaded:
        """The game folded to its latest version: the cached state topped up with the events stored since."""
        info = await self.info(game_id)
        game = self.games[info.category]
        keys = await self.game_keys(game_id)
        cached = self._cache.get(game_id)
        state, version, head = (
            (cached.state, cached.version, cached.head) if cached else (game.initial(), 0, GENESIS_HASH)
        )
        if version < info.version:
            newer = await self.store.read_stream(game_id, after=version)
            for recorded in newer:
                state = game.evolve(state, self.decode(game, recorded))
                version, head = recorded.version, recorded.hash
            self._remember(game_id, version, state, info, head)
        loaded = Loaded(
            game_id=game_id, game=game, info=info, keys=keys, state=state, version=version, head=head
        )
        if loaded.finished and await self.sealed(info):
            return replace(loaded, sealed=True)
        return loaded

    async def sealed(self, info: StreamInfo) -> bool:
        """Whether a game of a duplicate round still keeps its secrets: some table of its round has not
        finished (tables of a duplicate round are dealt from one seed, so one table's history, seed or
        audit would show the others their cards)."""
        group = info.metadata.get("duplicate_group")
        if not group:
            return False
        tables = int(info.metadata.get("duplicate_tables") or 0)
        finished = await self.store.list_streams(
            category=info.category,
            status=FINISHED,
            metadata_contains={"duplicate_group": group},
            limit=tables,
        )
        return len(finished) < tables

    def _remember(self, game_id: str, version: int, state: Any, info: StreamInfo, head: bytes) -> None:
        """Keep a folded state; least recently used states fall out past the cache size."""
        _keep(self._cache, game_id, _Cached(version, state, info, head), self._cache_size)

    def cached(self, game_id: str) -> Loaded | None:
        """The game as this process last saw it, without asking the store (it may have moved on since)."""
        cached = self._cache.get(game_id)
        keys = self._keys_cache.get(game_id)
        if cached is None or keys is None:
            return None
        game = self.games[cached.info.category]
        return Loaded(
            game_id=game_id,
            game=game,
            info=cached.info,
            keys=keys,
            state=cached.state,
            version=cached.version,
            head=cached.head,
        )

    async def seat_of(self, game_id: str, token: str | None) -> int | None:
        """The seat a bearer token acts as (None without a token); 403 for a token of no seat of this game."""
        if token is None:
            return None
        keys = await self.game_keys(game_id)
        for seat, stored in enumerate(keys.token_hashes):
            if token_matches(token, stored):
                if self.accounts is not None:
                    self.accounts.clients.verified(stored, f"seat:{stored}")
                return seat
        if self.accounts is not None:
            held = await self.accounts.seat_in_game(game_id, token)
            if held is not None:
                return held
        raise errors.Forbidden("not_a_seat_token", "this token does not act as a seat of this game")

    # ----------------------------------------------------------------- reads

    def envelope(
        self, loaded_game: Game[Any], recorded: RecordedEvent, seat: int | None, public: bool
    ) -> EventOut:
        """An event as ``seat`` may see it: whole (with its hash) once public, else redacted by the game."""
        event = self.decode(loaded_game, recorded)
        if public:
            return EventOut(
                version=recorded.version,
                type=recorded.type,
                recorded_at=recorded.recorded_at,
                data=event,
                hash=recorded.hash.hex(),
            )
        return EventOut(
            version=recorded.version,
            type=recorded.type,
            recorded_at=recorded.recorded_at,
            data=loaded_game.redact(event, seat),
        )

    @staticmethod
    def legal(loaded: Loaded, seat: int | None) -> list[Any]:
        """The commands ``seat`` may send now (none for spectators or once the game is over)."""
        if seat is None or loaded.finished:
            return []
        return list(loaded.game.legal(loaded.state, seat))

    @staticmethod
    def seats(loaded: Loaded) -> list[Seat]:
        """The seats in order with their players' names and whether a bot plays them."""
        players: list[str] = loaded.info.metadata.get("players", [])
        bots: list[bool] = loaded.info.metadata.get("bots", [False] * len(players))
        return [
            Seat(seat=i, name=n, bot=bool(b)) for i, (n, b) in enumerate(zip(players, bots, strict=False))
        ]

    def detail(self, loaded: Loaded, seat: int | None) -> GameDetail:
        """The game as ``seat`` may see it, with who must act and the seat's legal commands."""
        game, state = loaded.game, loaded.state
        finished = loaded.finished
        return GameDetail(
            game_id=loaded.game_id,
            game=game.name,
            status=FINISHED if finished else ACTIVE,
            version=loaded.version,
            seats=self.seats(loaded),
            you=seat,
            view=game.view(state, seat),
            pending=[PendingDecision(seat=p.seat, decision=p.decision) for p in game.pending(state)],
            legal=self.legal(loaded, seat),
            result=game.result(state) if finished else None,
            seed_commitment=loaded.info.metadata.get("seed_commitment"),
            seed_chosen=bool(loaded.info.metadata.get("seed_chosen", False)),
            head=self.signed_head(loaded.game_id, loaded.version, loaded.head, loaded.info, finished),
        )

    def signed_head(
        self, game_id: str, version: int, head: bytes, info: StreamInfo, finished: bool
    ) -> SignedHead | None:
        """The game's head hash at ``version``, signed (None without a signer, and for a running game whose
        chain is not keyed: its hash would let anyone test guesses of a hidden pick)."""
        if self.signer is None or not (finished or info.metadata.get("chain_keyed")):
            return None
        return self.signer.sign(game_id, version, head)

    async def history(
        self, game_id: str, seat: int | None, after: int = 0, limit: int | None = None
    ) -> tuple[Loaded, list[EventOut]]:
        """Events after version ``after``: whole once the game is finished, redacted for ``seat`` before."""
        loaded = await self.load(game_id)
        records = await self.store.read_stream(game_id, after=after, limit=limit, until=loaded.version)
        public = loaded.public
        return loaded, [self.envelope(loaded.game, r, seat, public) for r in records]

    async def state_at(self, game_id: str, seat: int | None, at: int) -> tuple[Loaded, Any]:
        """The view ``seat`` had right after version ``at`` (time travel)."""
        loaded = await self.load(game_id)
        if at < 1 or at > loaded.version:
            raise errors.NotFound("no_such_version", f"version must be within 1..{loaded.version}")
        records = await self.store.read_stream(game_id, until=at)
        state = fold(loaded.game, (self.decode(loaded.game, r) for r in records))
        return loaded, loaded.game.view(state, seat)

    # ----------------------------------------------------------------- commands

    def parse_command(self, game: Game[Any], body: Any) -> Command:
        """The game's command from a decoded JSON body (400 if it is not one of the game's commands)."""
        # Through JSON and a kept decoder: msgspec.convert works out the game's union of command types on
        # each call (7 us for a Bazaar command, against 0.3 us this way; the errors read the same).
        try:
            command: Command = self._command_decoders[game.name].decode(msgspec.json.encode(body))
        except (msgspec.ValidationError, TypeError) as exc:
            raise errors.Malformed("malformed_command", f"not a {game.name} command: {exc}") from None
        return command

    async def execute(
        self,
        game_id: str,
        seat: int,
        body: Any,
        if_match: int | None = None,
        idempotency_key: str | None = None,
    ) -> CommandAccepted:
        """Decide and append one command from ``seat``; retried on a lost race unless ``If-Match`` was given.

        The first decision uses the cached state (no round trip); the append's version check catches a stale
        one. Any refusal is given only on the stored state, and for a keyed command only after checking
        that it was not accepted before (a retry is answered with its first answer).
        """
        cached = self.cached(game_id)
        loaded = cached or await self.load(game_id)
        stored = cached is None  # whether ``loaded`` was read from the store in this call
        command = self.parse_command(loaded.game, body)
        command_id = f"{seat}:{idempotency_key}" if idempotency_key else None
        fingerprint = request_hash(seat, command) if command_id is not None else ""
        for _attempt in range(MAX_RACE_RETRIES):
            try:
                if if_match is not None and if_match != loaded.version:
                    raise errors.PreconditionFailed(
                        "version_mismatch", f"the game is at version {loaded.version}, not {if_match}"
                    )
                if loaded.finished:
                    raise errors.Conflict("game_finished", "the game is over")
                accepted, new_state, appended = self._decide(loaded, seat, command)
            except errors.ServiceError:
                if not stored:
                    loaded, stored = await self.load(game_id), True
                    continue
                if command_id is not None:
                    earlier = await self.store.find_command(game_id, command_id)
                    if earlier is not None:
                        return await self._replay(game_id, earlier, fingerprint)
                raise
            finished_now = loaded.game.is_over(new_state)
            record = None
            if command_id is not None:
                record = CommandRecord(
                    command_id=command_id, request_hash=fingerprint, response=msgspec.json.encode(accepted)
                )
            try:
                result = await self.store.append(
                    game_id,
                    loaded.version,
                    [new_event(e) for e in appended],
                    command=record,
                    status=FINISHED if finished_now else None,
                    cause=encode_move(seat, command),  # re-decided by every audit (service/audit.py)
                )
            except ConcurrencyConflict:
                if if_match is not None:
                    raise errors.PreconditionFailed(
                        "version_mismatch", "another command moved the game on first"
                    ) from None
                loaded, stored = await self.load(game_id), True
                continue
            except IdempotencyMismatch:
                raise errors.RuleViolation(
                    "idempotency_key_reused", "this Idempotency-Key was used with another command"
                ) from None
            if result.replayed is not None:
                return await self._replay(game_id, result.replayed, fingerprint)
            head = result.events[-1].hash if result.events else loaded.head
            self._remember(game_id, result.version, new_state, loaded.info, head)
            log.info(
                "command_accepted",
                game_id=game_id,
                seat=seat,
                command=command.__struct_config__.tag,
                version=result.version,
            )
            signed = self.signed_head(game_id, result.version, head, loaded.info, finished_now)
            if finished_now and not await self.sealed(loaded.info):
                # the game just ended: every event is public now, so answer with the whole events
                return CommandAccepted(
                    version=accepted.version,
                    events=[self.envelope(loaded.game, r, seat, public=True) for r in result.events],
                    head=signed,
                )
            return msgspec.structs.replace(accepted, head=signed)
        raise errors.Conflict("too_much_contention", "the game kept moving; try again")

    def _decide(
        self, loaded: Loaded, seat: int, command: Command
    ) -> tuple[CommandAccepted, Any, list[Event]]:
        """Run the decider; the answer (with events as the seat may see them) is built before the append."""
        game = loaded.game
        rng = Rng(loaded.keys.seed, f"v{loaded.version}")
        try:
            appended = game.decide(loaded.state, seat, command, rng)
        except Rejected as refusal:
            log.info(
                "command_rejected",
                game_id=loaded.game_id,
                seat=seat,
                version=loaded.version,
                code=refusal.code,
                rule=refusal.rule,
            )
            raise errors.RuleViolation(refusal.code, refusal.detail, rule=refusal.rule) from None
        state = loaded.state
        for event in appended:
            state = game.evolve(state, event)
        now = datetime.now(UTC)
        events = [
            EventOut(
                version=loaded.version + i + 1, type=event_tag(e), recorded_at=now, data=game.redact(e, seat)
            )
            for i, e in enumerate(appended)
        ]
        return CommandAccepted(version=loaded.version + len(appended), events=events), state, appended

    async def _replay(self, game_id: str, record: CommandRecord, fingerprint: str) -> CommandAccepted:
        """The first answer to an idempotent retry (422 if the key came with another command), with the head
        it produced signed again (the answer was stored before its events were hashed)."""
        if record.request_hash != fingerprint:
            raise errors.RuleViolation(
                "idempotency_key_reused", "this Idempotency-Key was used with another command"
            )
        answer = msgspec.json.decode(record.response, type=CommandAccepted)
        if answer.head is not None or self.signer is None:
            return answer
        last = await self.store.read_stream(game_id, after=answer.version - 1, limit=1)
        info = await self.info(game_id)
        if not last:
            return answer
        head = self.signed_head(game_id, answer.version, last[0].hash, info, info.status == FINISHED)
        return msgspec.structs.replace(answer, head=head)

    # ----------------------------------------------------------------- audit and scores

    async def reveal(self, loaded: Loaded) -> Reveal | None:
        """A finished game's seed, published commitment and set-up (None while it runs, or while other tables
        of its duplicate round do: seeds are secret)."""
        if not loaded.public:
            return None
        return await self.secrets(loaded)

    async def secrets(self, loaded: Loaded) -> Reveal:
        """A game's seed (with a commit-reveal seed's parts), published commitment and set-up, for the
        service's own checks (never shown while the game runs)."""
        metadata = loaded.info.metadata
        entropies = metadata.get("seed_entropies")
        committed = None if entropies is None else await self.keys.committed(loaded.game_id)
        return Reveal(
            seed=loaded.keys.seed,
            commitment=str(metadata.get("seed_commitment", "")),
            players=metadata.get("players", []),
            options=metadata.get("options"),
            server_seed=None if committed is None else committed.secret,
            entropies=entropies,
        )

    async def audit(self, game_id: str) -> AuditReport:
        """Recompute the hash chain and the fold, re-derive the opening and re-decide every move with the
        seed (running games too: only the verdicts are shown); a finished game's seed is revealed."""
        loaded = await self.load(game_id)
        chain = await self.store.verify_chain(game_id)
        records = await self.store.read_stream(game_id)
        reveal = await self.reveal(loaded)
        stored = [StoredEvent(version=r.version, body=r.data, move=r.cause) for r in records]
        findings = audit_events(loaded.game, chain, stored, loaded.finished, await self.secrets(loaded))
        return AuditReport(
            game_id=game_id,
            status=FINISHED if loaded.finished else ACTIVE,
            version=loaded.version,
            ok=findings.ok,
            chain_ok=chain.ok,
            head_hash=chain.head if loaded.public else None,
            replay_ok=findings.replay_ok,
            setup_ok=findings.setup_ok,
            seed=None
            if reveal is None
            else SeedReveal(
                seed=reveal.seed,
                commitment=reveal.commitment,
                matches=bool(findings.seed_matches),
                server_seed=reveal.server_seed,
                entropies=None if reveal.entropies is None else list(reveal.entropies),
            ),
            problems=findings.problems,
            moves_ok=findings.moves_ok,
            moves_checked=findings.moves_checked,
            notes=findings.notes,
        )

    async def export(self, game_id: str) -> GameExport:
        """A finished game as one self-contained document an auditor re-verifies offline (409 while it runs:
        its seed is secret until the end)."""
        loaded = await self.load(game_id)
        reveal = await self.reveal(loaded)
        if reveal is None:
            raise errors.Conflict(
                "game_not_finished",
                "only a finished game can be exported (of a duplicate round: once every table is): its seed is"
                " secret until the end",
            )
        records = await self.store.read_stream(game_id, until=loaded.version, as_stored=True)
        return GameExport(
            game_id=game_id,
            game=loaded.game.name,
            created_at=loaded.info.created_at,
            finished_at=records[-1].recorded_at,
            seats=self.seats(loaded),
            options=dict(loaded.info.metadata.get("options") or {}),
            tournament=loaded.info.metadata.get("tournament"),
            rated=bool(loaded.info.metadata.get("rated", False)),
            seed=reveal.seed,
            seed_commitment=reveal.commitment,
            server_seed=reveal.server_seed,
            entropies=None if reveal.entropies is None else list(reveal.entropies),
            version=loaded.version,
            head_hash=records[-1].hash.hex(),
            chain_keyed=bool(loaded.info.metadata.get("chain_keyed", False)),
            events=[
                ExportedEvent(
                    version=r.version,
                    type=r.type,
                    schema_version=r.schema_version,
                    recorded_at=r.recorded_at,
                    data=msgspec.json.decode(r.data),
                    hash=r.hash.hex(),
                    command=None if r.cause is None else self._exported_command(r.cause),
                )
                for r in records
            ],
            result=loaded.game.result(loaded.state),
            scoresheet=loaded.game.scoresheet(loaded.state),
        )

    @staticmethod
    def _exported_command(cause: bytes) -> ExportedCommand:
        """A stored move as the export shows it."""
        try:
            move = msgspec.json.decode(cause, type=Move)
            return ExportedCommand(seat=move.seat, command=msgspec.json.decode(move.command))
        except msgspec.DecodeError:  # not written by this service: shown as no command, which fails verify
            return ExportedCommand(seat=-1, command=None)

    async def scoresheet(self, game_id: str) -> ScoreSheetOut:
        """The game's score sheet so far (final once the game is over)."""
        loaded = await self.load(game_id)
        sheet = loaded.game.scoresheet(loaded.state)
        return ScoreSheetOut(
            game_id=game_id,
            game=loaded.game.name,
            final=sheet.final,
            columns=list(sheet.columns),
            rows=[list(row) for row in sheet.rows],
            winners=list(sheet.winners),
        )
