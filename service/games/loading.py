"""Loading a game: its stream folded by the generic repository (service/runtime/streams.py: states cached by
version, topped up from the store on every load), with what is a game's own: its keys (seed and seat-token
hashes, cached), its chain link, the seal of a duplicate round, and the seat a token acts as.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from typing import Any

import msgspec

from domain.core import Event, Game, Result
from eventstore import ChainLink, EventStore, FeedHeader, GameKeys, KeyStore, RecordedEvent, StreamInfo
from service.accounts.accounts import AccountService
from service.integrity.audit import chain_key
from service.integrity.tokens import token_matches
from service.runtime import errors
from service.runtime.streams import Loaded, Repository, keep, stored_as_of

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


# Every command's append carries its game's chain key: derived once per seed, not once per command (a hash
# of the seed). Bounded like the loader's caches; the seeds are those of games it keeps anyway.
seed_chain_key = functools.lru_cache(maxsize=4096)(chain_key)


class LoadedGame(Loaded[Any], frozen=True, kw_only=True):
    """A game as loaded from the store: its stream row and state folded up to a version, its game and keys."""

    game: Game[Any]
    keys: GameKeys
    sealed: bool = False  # a game of a duplicate round some table of which still plays (itself included)

    @property
    def game_id(self) -> str:
        """The game's id (its stream's)."""
        return self.stream_id

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
        key = seed_chain_key(self.keys.seed) if self.info.metadata.get("chain_keyed") else b""
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


class GameLoader:
    """Reads games from the store: stream rows and folded states (``streams``, the generic repository), keys
    (both caches bounded), seals and seat tokens."""

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
        self.streams: Repository[Any] = Repository(store, games, self.missing, cache_size)
        self._cache_size = cache_size
        self._keys_cache: OrderedDict[str, GameKeys] = OrderedDict()  # bounded like the states: LRU

    def decode(self, game: Game[Any], recorded: RecordedEvent) -> Event:
        """The typed event of a stored record."""
        return self.streams.decode(game.name, recorded)

    def decode_array(self, game: Game[Any], array: bytes) -> list[Event]:
        """The typed events of a JSON array of stored bodies, in one decode call."""
        return self.streams.decode_array(game.name, array)

    async def info(self, game_id: str) -> StreamInfo:
        """The stream row of a game (404 if unknown)."""
        return await self.streams.info(game_id)

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
        keep(self._keys_cache, game_id, keys, self._cache_size)
        return keys

    async def load(self, game_id: str) -> LoadedGame:
        """The game folded to its latest version: the cached state topped up with the events stored since."""
        stream = await self.streams.load(game_id)
        return await self._loaded(stream, await self.game_keys(game_id))

    async def load_since(self, game_id: str, after: int) -> tuple[LoadedGame, list[RecordedEvent]]:
        """The game as ``load`` gives it, and the records after version ``after`` up to its version: one
        read of the new events serves both (the cached state is topped up from the records read)."""
        stream, records = await self.streams.load_since(game_id, after)
        return await self._loaded(stream, await self.game_keys(game_id)), records

    def game_of(self, stream: Loaded[Any], keys: GameKeys) -> LoadedGame:
        """A game's stream as loaded, with its game and keys (not sealed: see ``load``)."""
        return LoadedGame(
            stream_id=stream.stream_id,
            info=stream.info,
            state=stream.state,
            version=stream.version,
            head=stream.head,
            game=self.games[stream.info.category],
            keys=keys,
        )

    async def _loaded(self, stream: Loaded[Any], keys: GameKeys) -> LoadedGame:
        """The loaded game, sealed while its duplicate round keeps its secrets (a running table always)."""
        loaded = self.game_of(stream, keys)
        info = stream.info
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

    def cached(self, game_id: str) -> LoadedGame | None:
        """The game as this process last saw it, without asking the store (it may have moved on since)."""
        stream = self.streams.cached(game_id)
        keys = self._keys_cache.get(game_id)
        if stream is None or keys is None:
            return None
        return self.game_of(stream, keys)

    def held_as_of(self, recorded: RecordedEvent | FeedHeader) -> LoadedGame | None:
        """The game as this process holds it if that is the stored state as of ``recorded``, its event just
        read from the store (the same version and hash: the same history), with its stream row as of that
        event: an append writes the row's version, head, status and time with its events, in one
        transaction. None when it is not so held (then ``load`` it). Not sealed: for the read models, which
        serve no history."""
        cached = self.cached(recorded.stream_id)
        if cached is None or not stored_as_of(cached, recorded):
            return None
        info = msgspec.structs.replace(
            cached.info,
            version=recorded.version,
            head_hash=recorded.hash,
            status=FINISHED if cached.finished else cached.info.status,
            updated_at=recorded.recorded_at,
        )
        return msgspec.structs.replace(cached, info=info)

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
