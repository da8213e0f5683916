"""Every event-sourced stream's runner: a repository of states folded by their decider's ``evolve`` and cached
by version, and ``handle``, which decides on a loaded stream and appends at the version decided on
(docs/decisions/0009-one-decider-runner.md; the shape of the ``eventsourcing`` library's Repository and
Application).

Correctness never rests on process memory: a cached state is keyed by its version and head, topped up from
the store on every load, and dropped once the store shows it does not hold it; ``cached`` gives the state as
this process last saw it, for a decision without a round trip (the append's version check is then the check).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Generic, Protocol, TypeVar, overload

import msgspec

from domain.core import Event
from eventstore import (
    GENESIS_HASH,
    AppendResult,
    ChainLink,
    CommandRecord,
    ConcurrencyConflict,
    EventStore,
    FeedHeader,
    NewEvent,
    RecordedEvent,
    StreamInfo,
)
from eventstore.protocol import Bodies, bodies_of
from service.runtime import errors

S = TypeVar("S")
A = TypeVar("A")
V = TypeVar("V")

RACE_RETRIES = (
    7  # a decision that loses a version race is decided again on the new state (8 decisions in all)
)


class Folding(Protocol[S]):
    """What a repository folds a stream's events with: its decider's event union, initial state and evolve."""

    @property
    def event_type(self) -> Any:
        """The tagged union of the stream's events."""
        ...

    def initial(self) -> S:
        """The state every history is folded from."""
        ...

    def evolve(self, state: S, event: Event, /) -> S:
        """The state after one event."""
        ...


# Structs, not frozen dataclasses: one of each is built per command, and a frozen dataclass's constructor
# (a setattr call per field) costs a dozen times as much (measured).
class Loaded(msgspec.Struct, Generic[S], frozen=True, kw_only=True):
    """A stream as loaded from the store: its row and its state folded up to a version."""

    stream_id: str
    info: StreamInfo  # metadata never changes; version and status as of the load
    state: S
    version: int
    head: bytes = GENESIS_HASH  # the hash of the event at ``version``


class Decision(msgspec.Struct, Generic[S, A], frozen=True, kw_only=True):
    """What was decided on a loaded stream: the events to append at its version, the state they lead to, the
    caller's answer, and what the store keeps with them (``EventStore.append``)."""

    events: Sequence[Event]
    state: S
    answer: A
    command: CommandRecord | None = None
    status: str | None = None
    cause: bytes | None = None
    link: ChainLink | None = None


class Handled(msgspec.Struct, Generic[S, A], frozen=True, kw_only=True):
    """A decision appended: the stream it was decided on, the decision, the append's result and the stream
    after it (as decided on if the store answered a keyed command's retry instead of appending)."""

    decided_on: Loaded[S]
    decision: Decision[S, A]
    result: AppendResult
    after: Loaded[S]


def event_tag(event: Event) -> str:
    """The ``type`` tag of an event struct."""
    return str(type(event).__struct_config__.tag)


def new_event(event: Event) -> NewEvent:
    """The stored form of a domain event: its tag, schema version and canonical JSON."""
    return NewEvent(
        type=event_tag(event), schema_version=event.schema_version, data=msgspec.json.encode(event)
    )


def keep(cache: OrderedDict[str, V], key: str, value: V, size: int) -> None:
    """Put ``value`` in an LRU cache as the most recent entry; the least recently used fall out past ``size``."""
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > size:
        cache.popitem(last=False)


def _stored(cached: Loaded[Any], info: StreamInfo) -> bool:
    """Whether a cached state may be one the store holds: behind its stream row's version, or at it with its
    head (one behind is topped up from the stored events)."""
    return cached.version < info.version or (cached.version == info.version and cached.head == info.head_hash)


def stored_as_of(loaded: Loaded[Any] | None, record: RecordedEvent | FeedHeader) -> bool:
    """Whether ``loaded`` (a cached state) is the stored state as of ``record``, an event of its stream just
    read from the store: the same version and hash, so the same history (the hash chains every event before
    it), read without the stream row."""
    return loaded is not None and loaded.version == record.version and loaded.head == record.hash


def _as_of(loaded: Loaded[S], info: StreamInfo) -> Loaded[S]:
    """``loaded`` with the stream row as last read (a cached state keeps the row it was folded with)."""
    return loaded if loaded.info is info else msgspec.structs.replace(loaded, info=info)


class Repository(Generic[S]):
    """The streams of some categories, each folded by its category's decider; folded states cached by
    version (bounded, least recently used out first) and topped up from the store on every load."""

    def __init__(
        self,
        store: EventStore,
        deciders: Mapping[str, Folding[S]],
        missing: Callable[[str], Awaitable[errors.ServiceError]],
        cache_size: int = 2048,
    ) -> None:
        """``missing``: the error for a stream the store has not (or not of these categories)."""
        self.store = store
        self.deciders = deciders
        self.missing = missing
        self._decoders = {name: msgspec.json.Decoder(d.event_type) for name, d in deciders.items()}
        self._list_decoders = {
            name: msgspec.json.Decoder(list[d.event_type])  # type: ignore[name-defined]
            for name, d in deciders.items()
        }
        self._cache: OrderedDict[str, Loaded[S]] = OrderedDict()
        self._cache_size = cache_size
        # the streams whose history a load reads now; each future ends with that read's error (None: read)
        self._topping_up: dict[str, asyncio.Future[Exception | None]] = {}

    def decode(self, category: str, recorded: RecordedEvent) -> Event:
        """The typed event of a stored record of a stream of ``category``."""
        event: Event = self._decoders[category].decode(recorded.data)
        return event

    def decode_array(self, category: str, array: bytes) -> list[Event]:
        """The typed events of a JSON array of stored bodies, in one decode call (a sixth of the cost of a
        call per event, measured on a long game)."""
        events: list[Event] = self._list_decoders[category].decode(array)
        return events

    async def info(self, stream_id: str) -> StreamInfo:
        """The stream row (``missing``'s error if the store has none of these categories)."""
        info = await self.store.stream_info(stream_id)
        if info is None or info.category not in self.deciders:
            raise await self.missing(stream_id)
        return info

    async def load(self, stream_id: str) -> Loaded[S]:
        """The stream folded to its latest version: the cached state topped up with the events stored since."""
        return await self._topped_up(await self.info(stream_id))

    async def _topped_up(self, info: StreamInfo) -> Loaded[S]:
        """The cached state topped up to at least ``info.version``. One load of a stream reads at a time; the
        others wait for it and take what it cached, so loads that come together (a crowd of live streams
        opening on a game this process has not loaded) read and fold its history once. A read that fails
        fails its waiters too (an unreachable store would otherwise time each of them out in turn); one
        whose caller left lets the next waiter read."""
        stream_id = info.stream_id
        while True:
            await self._forget_unstored(info)
            start = self._start(info)
            if start.version >= info.version:
                return _as_of(start, info)
            reading = self._topping_up.get(stream_id)
            if reading is None:
                break
            await asyncio.wait({reading})  # not the future itself: a waiter that leaves must not end it
            failed = reading.result()
            if failed is not None:
                raise failed
        read: asyncio.Future[Exception | None] = asyncio.get_running_loop().create_future()
        self._topping_up[stream_id] = read
        outcome: Exception | None = None
        try:
            newer = await self.store.read_bodies(stream_id, after=start.version)
            loaded = self._fold(start, info, newer)
            self.remember(loaded)
            return loaded
        except Exception as exc:
            outcome = exc
            raise
        finally:
            del self._topping_up[stream_id]
            read.set_result(outcome)

    async def load_since(self, stream_id: str, after: int) -> tuple[Loaded[S], list[RecordedEvent]]:
        """The stream as ``load`` gives it, and the records after version ``after`` up to its version: one
        read of the new events serves both (the cached state is topped up from the records read)."""
        info = await self.info(stream_id)
        await self._forget_unstored(info)
        loaded = self._start(info)
        latest = max(loaded.version, info.version)
        records: list[RecordedEvent] = []
        if loaded.version < latest or after < latest:
            records = await self.store.read_stream(stream_id, after=min(loaded.version, after))
            if loaded.version < info.version:  # as ``load`` does: fold what the cache lacks, keep the result
                newer = bodies_of([record for record in records if record.version > loaded.version])
                loaded = self._fold(loaded, info, newer)
                self.remember(loaded)
            records = [record for record in records if after < record.version <= loaded.version]
        return _as_of(loaded, info), records

    async def read_since(self, stream_id: str, after: int) -> tuple[Loaded[S], list[RecordedEvent]] | None:
        """What ``load_since`` gives, from one read of the records and no read of the stream row, when the
        cached state is at ``after`` or past it: the records are read from ``after`` on, the cached state is
        the stored one if the record of its version has its hash (the hash chains every event before it),
        and it is topped up from the records after it. None when it cannot be so checked (nothing cached,
        a cache behind ``after``, or one the store does not hold: ``load_since`` then reads the row).
        The stream row in the state kept is the one it was last loaded with (its version and status as of
        then; metadata never changes)."""
        before = self._cache.get(stream_id)
        if before is None or before.version < after or after < 1:
            return None
        records = await self.store.read_stream(stream_id, after=after - 1)
        cached = self._cache.get(stream_id)  # as it is now: an append of this process may have moved it on
        anchor = None if cached is None else next((r for r in records if r.version == cached.version), None)
        if cached is None or anchor is None or not stored_as_of(cached, anchor):
            return None
        loaded = cached
        newer = bodies_of([record for record in records if record.version > cached.version])
        if newer is not None:
            loaded = self._fold(cached, cached.info, newer)
            self.remember(loaded)
        return loaded, [record for record in records if after < record.version <= loaded.version]

    async def _forget_unstored(self, info: StreamInfo) -> None:
        """Drop the cached state of a stream if the store does not hold it: one ahead of the stored version,
        or at it with another head (commits lost in a failover to a standby that lacked them, or a restore).
        Seen ahead, the stream row is read once more first: an append of this process may have moved the
        stream on after ``info`` was read (it remembers its state once its append has committed)."""
        cached = self._cache.get(info.stream_id)
        if cached is None or _stored(cached, info):
            return
        fresh = await self.store.stream_info(info.stream_id)
        if fresh is None or not _stored(cached, fresh):
            self._cache.pop(info.stream_id, None)

    def _start(self, info: StreamInfo) -> Loaded[S]:
        """Where a fold starts: the cached state, else the decider's initial state at version 0."""
        cached = self._cache.get(info.stream_id)
        if cached is not None:
            return cached
        initial = self.deciders[info.category].initial()
        return Loaded(stream_id=info.stream_id, info=info, state=initial, version=0, head=GENESIS_HASH)

    def _fold(self, start: Loaded[S], info: StreamInfo, newer: Bodies | None) -> Loaded[S]:
        """``start`` evolved by the events of ``newer`` (to their last version and hash), with ``info``."""
        if newer is None:
            return Loaded(
                stream_id=start.stream_id,
                info=info,
                state=start.state,
                version=start.version,
                head=start.head,
            )
        evolve = self.deciders[info.category].evolve
        state = start.state
        for event in self.decode_array(info.category, newer.array):
            state = evolve(state, event)
        return Loaded(
            stream_id=start.stream_id, info=info, state=state, version=newer.version, head=newer.head
        )

    def evolved(self, loaded: Loaded[S], events: Sequence[Event]) -> S:
        """The state of ``loaded`` after ``events`` (its category's evolve)."""
        evolve = self.deciders[loaded.info.category].evolve
        state = loaded.state
        for event in events:
            state = evolve(state, event)
        return state

    def remember(self, loaded: Loaded[S]) -> None:
        """Keep a folded state; least recently used states fall out past the cache size."""
        keep(self._cache, loaded.stream_id, loaded, self._cache_size)

    def cached(self, stream_id: str) -> Loaded[S] | None:
        """The stream as this process last saw it, without asking the store (it may have moved on since)."""
        return self._cache.get(stream_id)

    async def save(self, loaded: Loaded[S], decision: Decision[S, A]) -> Handled[S, A]:
        """Append a decision's events at the version decided on (ConcurrencyConflict if the stream moved
        on, writing nothing) and remember the state they lead to; a replayed keyed command appends nothing."""
        result = await self.store.append(
            loaded.stream_id,
            loaded.version,
            [new_event(event) for event in decision.events],
            command=decision.command,
            status=decision.status,
            cause=decision.cause,
            link=decision.link,
        )
        if result.replayed is not None:
            return Handled(decided_on=loaded, decision=decision, result=result, after=loaded)
        after = Loaded(
            stream_id=loaded.stream_id,
            info=loaded.info,
            state=decision.state,
            version=result.version,
            head=result.events[-1].hash if result.events else loaded.head,
        )
        self.remember(after)
        return Handled(decided_on=loaded, decision=decision, result=result, after=after)


@overload
async def handle(
    repository: Repository[S],
    stream_id: str,
    decide: Callable[[Loaded[S]], Awaitable[Decision[S, A]]],
    retries: int = ...,
    first: Loaded[S] | None = ...,
    first_stored: bool = ...,
) -> Handled[S, A]: ...


@overload
async def handle(
    repository: Repository[S],
    stream_id: str,
    decide: Callable[[Loaded[S]], Awaitable[Decision[S, A] | None]],
    retries: int = ...,
    first: Loaded[S] | None = ...,
    first_stored: bool = ...,
) -> Handled[S, A] | None: ...


async def handle(
    repository: Repository[S],
    stream_id: str,
    decide: Callable[[Loaded[S]], Awaitable[Decision[S, A] | None]],
    retries: int = RACE_RETRIES,
    first: Loaded[S] | None = None,
    first_stored: bool = False,
) -> Handled[S, A] | None:
    """Load the stream, decide, append at the version decided on; a lost race (ConcurrencyConflict) is
    reloaded and decided again up to ``retries`` times, then raised for the caller to answer. None when
    ``decide`` finds nothing to do (nothing is appended).

    ``first``: a state to decide on without reading the store (the cached one); a refusal (a ServiceError
    from ``decide``) on it is decided again on the stored state unless ``first_stored`` (the caller has just
    loaded it), and a refusal on the stored state is raised.
    """
    loaded, stored = (first, first_stored) if first is not None else (await repository.load(stream_id), True)
    races = 0
    while True:
        try:
            decision = await decide(loaded)
        except errors.ServiceError:
            if stored:
                raise
            loaded, stored = await repository.load(stream_id), True
            continue
        if decision is None:
            return None
        try:
            return await repository.save(loaded, decision)
        except ConcurrencyConflict:
            if races == retries:
                raise
            races += 1
            loaded, stored = await repository.load(stream_id), True
