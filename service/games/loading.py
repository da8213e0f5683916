"""Loading a game: its stream, keys and state folded to the latest stored version, cached by version.

Correctness never rests on process memory: the state cache is keyed by version and topped up from the
store on every load; ``cached`` gives the state as this process last saw it, for a command to be decided
on without a round trip (the append's version check is then the check).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any, TypeVar

import msgspec

from domain.core import Event, Game, Result
from eventstore import (
    GENESIS_HASH,
    ChainLink,
    EventStore,
    GameKeys,
    KeyStore,
    NewEvent,
    RecordedEvent,
    StreamInfo,
)
from eventstore.protocol import Bodies, bodies_of
from service.accounts.accounts import AccountService
from service.integrity.audit import chain_key
from service.integrity.tokens import token_matches
from service.runtime import errors

ACTIVE, FINISHED = "active", "finished"
# The Idempotency-Key prefix of a command the service sends for a tournament organizer's action (a withdrawn
# player's resignation, an adjudication); refused from clients, so a game's stored command ids tell whether
# an organizer's action decided it (such a game is not rated: docs/api.md "Ratings").
ORGANIZER_KEY = "organizer-"


def organizer_key(action: str, tournament_id: str) -> str:
    """The idempotency key of the command an organizer's ``action`` sends to a game of the tournament."""
    return f"{ORGANIZER_KEY}{action}-{tournament_id}"


def decided_by_organizer(records: list[RecordedEvent]) -> bool:
    """Whether any of a game's stored commands was sent for a tournament organizer's action."""
    return any(
        r.command_id is not None and r.command_id.partition(":")[2].startswith(ORGANIZER_KEY) for r in records
    )


# Structs, not frozen dataclasses: one of each is built per command, and a frozen dataclass's constructor
# (a setattr call per field) costs a dozen times as much (measured).
class LoadedGame(msgspec.Struct, frozen=True, kw_only=True):
    """A game as loaded from the store: its stream row, keys and state folded up to a version."""

    game_id: str
    game: Game[Any]
    info: StreamInfo
    keys: GameKeys
    state: Any
    version: int
    head: bytes = GENESIS_HASH  # the hash of the event at ``version``
    sealed: bool = False  # a game of a duplicate round some table of which still plays (itself included)

    @property
    def finished(self) -> bool:
        """Whether the game is over."""
        return bool(self.game.is_over(self.state))

    @property
    def adjudicated(self) -> bool:
        """Whether the tournament organizer ended the game as it stood (domain/resign.py)."""
        return bool(getattr(self.state, "adjudicated", False))

    @property
    def public(self) -> bool:
        """Whether its events, seed, audit and export are public: once it is over, and for a game of a
        duplicate tournament round once every table of the round is over (they share one deal)."""
        return self.finished and not self.sealed

    def check_readable(self, seat: int | None) -> None:
        """B-12, Z-15, J-18: while any table of a duplicate round plays, only a table's own seats read
        anything of it (the tables share one deal, so a table ahead shows the others their future); 403
        ``duplicate_round_running`` for anyone else."""
        if self.sealed and seat is None:
            raise errors.Forbidden(
                "duplicate_round_running",
                "the tables of this duplicate round share one deal: only this table's own seats may read"
                " it until every table of the round has finished",
            )

    @property
    def link(self) -> ChainLink:
        """The chain link an append after ``version`` follows: the head, keyed with the seed's chain key
        for a game created keyed (service/integrity/audit.py chain_key)."""
        key = chain_key(self.keys.seed) if self.info.metadata.get("chain_keyed") else b""
        return ChainLink(head=self.head, key=key)

    def result(self) -> Result:
        """The game's result (final once it is over)."""
        return self.game.result(self.state)

    def view(self, seat: int | None) -> Any:
        """What ``seat`` (a spectator: None) sees of the game now."""
        return self.game.view(self.state, seat)

    def legal(self, seat: int | None) -> list[Any]:
        """The commands ``seat`` may send now (none for spectators or once the game is over)."""
        if seat is None or self.finished:
            return []
        return list(self.game.legal(self.state, seat))


class _Cached(msgspec.Struct, frozen=True):
    version: int
    state: Any
    info: StreamInfo  # metadata never changes; version and status as of the last load
    head: bytes  # the hash of the event at ``version``


def _stored(cached: _Cached, info: StreamInfo) -> bool:
    """Whether a cached state may be one the store holds: behind its stream row's version, or at it with its
    head (one behind is topped up from the stored events)."""
    return cached.version < info.version or (cached.version == info.version and cached.head == info.head_hash)


def event_tag(event: Event) -> str:
    """The ``type`` tag of an event struct."""
    return str(type(event).__struct_config__.tag)


def new_event(event: Event) -> NewEvent:
    """The stored form of a domain event: its tag, schema version and canonical JSON."""
    return NewEvent(
        type=event_tag(event), schema_version=event.schema_version, data=msgspec.json.encode(event)
    )


V = TypeVar("V")


def _keep(cache: OrderedDict[str, V], key: str, value: V, size: int) -> None:
    """Put ``value`` in an LRU cache as the most recent entry; the least recently used fall out past ``size``."""
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > size:
        cache.popitem(last=False)


class GameLoader:
    """Reads games from the store: stream rows, keys, folded states (both caches bounded), seat tokens."""

    def __init__(
        self,
        store: EventStore,
        keys: KeyStore,
        games: dict[str, Game[Any]],
        cache_size: int = 2048,
        accounts: AccountService | None = None,
    ) -> None:
        self.store = store
        self.keys = keys
        self.games = games
        self.accounts = accounts  # account tokens act for their seats (None: seat tokens only)
        self._decoders = {name: msgspec.json.Decoder(game.event_type) for name, game in games.items()}
        self._list_decoders = {
            name: msgspec.json.Decoder(list[game.event_type])  # type: ignore[name-defined]
            for name, game in games.items()
        }
        self._cache: OrderedDict[str, _Cached] = OrderedDict()
        self._cache_size = cache_size
        self._keys_cache: OrderedDict[str, GameKeys] = OrderedDict()  # bounded like the states: LRU
        # the games whose history a load reads now; each future ends with that read's error (None: read)
        self._topping_up: dict[str, asyncio.Future[Exception | None]] = {}

    def decode(self, game: Game[Any], recorded: RecordedEvent) -> Event:
        """The typed event of a stored record."""
        event: Event = self._decoders[game.name].decode(recorded.data)
        return event

    def decode_array(self, game: Game[Any], array: bytes) -> list[Event]:
        """The typed events of a JSON array of stored bodies, in one decode call (a sixth of the cost of a
        call per event, measured on a long game)."""
        events: list[Event] = self._list_decoders[game.name].decode(array)
        return events

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

    async def load(self, game_id: str) -> LoadedGame:
        """The game folded to its latest version: the cached state topped up with the events stored since."""
        info = await self.info(game_id)
        game = self.games[info.category]
        keys = await self.game_keys(game_id)
        state, version, head = await self._topped_up(game_id, game, info)
        return await self._loaded(game_id, game, info, keys, state, version, head)

    async def _topped_up(self, game_id: str, game: Game[Any], info: StreamInfo) -> tuple[Any, int, bytes]:
        """The cached state (version, head) topped up to at least ``info.version``. One load of a game
        reads at a time; the others wait for it and take what it cached, so loads that come together (a
        crowd of streams opening on a game this process has not loaded) read and fold its history once.
        A read that fails fails its waiters too (an unreachable store would otherwise time each of them
        out in turn); one whose caller left lets the next waiter read."""
        while True:
            await self._forget_unstored(game_id, info)
            state, version, head = self._start(game_id, game)
            if version >= info.version:
                return state, version, head
            reading = self._topping_up.get(game_id)
            if reading is None:
                break
            await asyncio.wait({reading})  # not the future itself: a waiter that leaves must not end it
            failed = reading.result()
            if failed is not None:
                raise failed
        read: asyncio.Future[Exception | None] = asyncio.get_running_loop().create_future()
        self._topping_up[game_id] = read
        outcome: Exception | None = None
        try:
            newer = await self.store.read_bodies(game_id, after=version)
            if newer is not None:
                state, version, head = self._fold(game, state, newer)
            self.remember(game_id, version, state, info, head)
            return state, version, head
        except Exception as exc:
            outcome = exc
            raise
        finally:
            del self._topping_up[game_id]
            read.set_result(outcome)

    async def load_since(self, game_id: str, after: int) -> tuple[LoadedGame, list[RecordedEvent]]:
        """The game as ``load`` gives it, and the records after version ``after`` up to its version: one
        read of the new events serves both (the cached state is topped up from the records read)."""
        info = await self.info(game_id)
        game = self.games[info.category]
        keys = await self.game_keys(game_id)
        await self._forget_unstored(game_id, info)
        state, version, head = self._start(game_id, game)
        latest = max(version, info.version)
        records: list[RecordedEvent] = []
        if version < latest or after < latest:
            records = await self.store.read_stream(game_id, after=min(version, after))
            if version < info.version:  # as ``load`` does: fold what the cache lacks, keep the result
                newer = bodies_of([record for record in records if record.version > version])
                if newer is not None:
                    state, version, head = self._fold(game, state, newer)
                self.remember(game_id, version, state, info, head)
            records = [record for record in records if after < record.version <= version]
        loaded = await self._loaded(game_id, game, info, keys, state, version, head)
        return loaded, records

    async def _forget_unstored(self, game_id: str, info: StreamInfo) -> None:
        """Drop the cached state of a game if the store does not hold it: one ahead of the stored version, or
        at it with another head (commits lost in a failover to a standby that lacked them, or a restore).
        Seen ahead, the stream row is read once more first: a command of this process may have moved the
        game on after ``info`` was read (it remembers its state once its append has committed)."""
        cached = self._cache.get(game_id)
        if cached is None or _stored(cached, info):
            return
        fresh = await self.store.stream_info(game_id)
        if fresh is None or not _stored(cached, fresh):
            self._cache.pop(game_id, None)

    def _start(self, game_id: str, game: Game[Any]) -> tuple[Any, int, bytes]:
        """Where a fold starts: the cached state, version and head, else the game's initial state."""
        cached = self._cache.get(game_id)
        return (cached.state, cached.version, cached.head) if cached else (game.initial(), 0, GENESIS_HASH)

    def _fold(self, game: Game[Any], state: Any, newer: Bodies) -> tuple[Any, int, bytes]:
        """``state`` evolved by the events of ``newer``, with their last version and hash."""
        evolve = game.evolve
        for event in self.decode_array(game, newer.array):
            state = evolve(state, event)
        return state, newer.version, newer.head

    async def _loaded(
        self,
        game_id: str,
        game: Game[Any],
        info: StreamInfo,
        keys: GameKeys,
        state: Any,
        version: int,
        head: bytes,
    ) -> LoadedGame:
        """The loaded game, sealed while its duplicate round keeps its secrets (a running table always)."""
        loaded = LoadedGame(
            game_id=game_id, game=game, info=info, keys=keys, state=state, version=version, head=head
        )
        if info.metadata.get("duplicate_group") and (not loaded.finished or await self.sealed(info)):
            return msgspec.structs.replace(loaded, sealed=True)
        return loaded

    async def sealed(self, info: StreamInfo, finishing: bool = False) -> bool:
        """Whether a game of a duplicate round still keeps its secrets: some table of its round has not
        finished (tables of a duplicate round are dealt from one seed, so one table's history, seed or
        audit would show the others their cards). ``finishing``: this game counts as finished (its last
        command is about to be appended)."""
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
        return len(finished) + finishing < tables

    def remember(self, game_id: str, version: int, state: Any, info: StreamInfo, head: bytes) -> None:
        """Keep a folded state; least recently used states fall out past the cache size."""
        _keep(self._cache, game_id, _Cached(version, state, info, head), self._cache_size)

    def cached(self, game_id: str) -> LoadedGame | None:
        """The game as this process last saw it, without asking the store (it may have moved on since)."""
        cached = self._cache.get(game_id)
        keys = self._keys_cache.get(game_id)
        if cached is None or keys is None:
            return None
        game = self.games[cached.info.category]
        return LoadedGame(
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
                return seat
        if self.accounts is not None:
            held = await self.accounts.seat_in_game(game_id, token)
            if held is not None:
                return held
        raise errors.Forbidden("not_a_seat_token", "this token does not act as a seat of this game")
