"""The generic stream runner (service/runtime/streams.py) on the in-memory store: a repository folds a stream
by its decider's evolve, caches it by version and tops it up from the store; ``handle`` decides, appends at
the version decided on and decides again after a lost race, up to its bound."""

from __future__ import annotations

import msgspec
import pytest

from domain.core import Event
from eventstore import CommandRecord, ConcurrencyConflict, InMemoryEventStore
from eventstore.protocol import Bodies
from service.runtime import errors
from service.runtime.streams import Decision, Loaded, Repository, handle, new_event


class Added(Event, frozen=True, kw_only=True, tag="added"):
    """A counter's one event."""

    amount: int


class Counter:
    """A decider of one number: its events add to it."""

    event_type = Added

    @staticmethod
    def initial() -> int:
        """Nothing counted yet."""
        return 0

    @staticmethod
    def evolve(state: int, event: Event, /) -> int:
        """The count after one event."""
        assert isinstance(event, Added)
        return state + event.amount


class CountingStore(InMemoryEventStore):
    """The in-memory store, keeping the ``after`` of every read of bodies."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: list[int] = []

    async def read_bodies(self, stream_id: str, after: int = 0) -> Bodies | None:
        """As the in-memory store's, noted."""
        self.reads.append(after)
        return await super().read_bodies(stream_id, after)


async def unknown(stream_id: str) -> errors.ServiceError:
    """The error for a stream the repository does not hold."""
    return errors.NotFound("counter_not_found", f"no counter {stream_id}")


def repository(store: InMemoryEventStore, cache_size: int = 8) -> Repository[int]:
    """A repository of counters on ``store``."""
    return Repository(store, {"counter": Counter()}, unknown, cache_size)


async def counter(store: InMemoryEventStore, stream_id: str, *amounts: int) -> None:
    """A counter stream created with these additions."""
    await store.create_stream(stream_id, "counter", [new_event(Added(amount=a)) for a in amounts])


async def version(store: InMemoryEventStore, stream_id: str) -> int:
    """The stream's stored version."""
    info = await store.stream_info(stream_id)
    assert info is not None
    return info.version


async def add(store: InMemoryEventStore, stream_id: str, amount: int) -> None:
    """Another writer's addition, appended at the stored version."""
    await store.append(stream_id, await version(store, stream_id), [new_event(Added(amount=amount))])


class Adding:
    """A decide step that adds ``amount`` and answers the count it decided on, noting each state seen."""

    def __init__(self, counters: Repository[int], amount: int) -> None:
        self.counters, self.amount = counters, amount
        self.seen: list[tuple[int, int]] = []  # (version, state) of each stream decided on

    async def __call__(self, loaded: Loaded[int]) -> Decision[int, int]:
        self.seen.append((loaded.version, loaded.state))
        events = [Added(amount=self.amount)]
        return Decision(events=events, state=self.counters.evolved(loaded, events), answer=loaded.state)


async def test_a_load_folds_the_stream_with_its_deciders_evolve() -> None:
    """State, version and head are those of the stored events folded from the initial state."""
    store = InMemoryEventStore()
    await counter(store, "c", 1, 2, 3)
    loaded = await repository(store).load("c")
    stored = await store.read_stream("c")
    assert (loaded.state, loaded.version, loaded.head) == (6, 3, stored[-1].hash)
    assert loaded.info.category == "counter"


async def test_a_stream_the_store_has_not_or_of_another_category_is_the_missing_error() -> None:
    """Unknown and foreign streams both raise what ``missing`` gives."""
    store = InMemoryEventStore()
    await store.create_stream("other", "tournament", [new_event(Added(amount=1))])
    counters = repository(store)
    for stream_id in ("nowhere", "other"):
        with pytest.raises(errors.NotFound) as raised:
            await counters.load(stream_id)
        assert raised.value.code == "counter_not_found"


async def test_a_second_load_with_nothing_new_is_a_cache_hit() -> None:
    """The stored history is read once; the next load reads no events and gives the same stream."""
    store = CountingStore()
    await counter(store, "c", 1, 2)
    counters = repository(store)
    first = await counters.load("c")
    second = await counters.load("c")
    assert store.reads == [0]
    assert second == first and counters.cached("c") == first


async def test_a_load_fast_forwards_the_cached_state_from_its_version() -> None:
    """Events another writer stored since are read after the cached version only and folded onto it."""
    store = CountingStore()
    await counter(store, "c", 1, 2)
    counters = repository(store)
    await counters.load("c")
    await add(store, "c", 10)
    await add(store, "c", 20)
    loaded = await counters.load("c")
    assert store.reads == [0, 2]
    assert (loaded.state, loaded.version) == (33, 4)
    assert loaded.info.version == 4 and counters.cached("c") == loaded


async def test_loading_since_a_version_gives_the_stream_and_the_records_after_it() -> None:
    """From a cold cache and from one behind: the stream as ``load`` gives it, and the records after."""
    store = InMemoryEventStore()
    await counter(store, "c", 1, 2, 3)
    counters = repository(store)
    loaded, records = await counters.load_since("c", 1)
    assert [r.version for r in records] == [2, 3] and loaded.state == 6
    await add(store, "c", 4)
    loaded, records = await counters.load_since("c", 2)
    assert [r.version for r in records] == [3, 4] and (loaded.state, loaded.version) == (10, 4)
    assert loaded == await repository(store).load("c") == counters.cached("c")


async def test_a_cached_state_the_store_does_not_hold_is_dropped_and_refolded() -> None:
    """A state cached ahead of the store (commits lost in a failover) is forgotten: the stream is folded
    again from its stored events."""
    store = InMemoryEventStore()
    await counter(store, "c", 1, 2)
    counters = repository(store)
    loaded = await counters.load("c")
    counters.remember(msgspec.structs.replace(loaded, state=99, version=5, head=b"lost"))
    again = await counters.load("c")
    assert (again.state, again.version) == (3, 2)


async def test_the_cache_keeps_the_most_recently_used_streams() -> None:
    """Past the cache size, the least recently used stream's state falls out."""
    store = InMemoryEventStore()
    counters = repository(store, cache_size=2)
    for stream_id in ("a", "b", "c"):
        await counter(store, stream_id, 1)
        await counters.load(stream_id)
    assert counters.cached("a") is None
    assert counters.cached("b") is not None and counters.cached("c") is not None


async def test_handle_appends_at_the_loaded_version_and_remembers_the_new_state() -> None:
    """The decision's events are stored after the version decided on, and the state they lead to is
    cached with the new version and head."""
    store = InMemoryEventStore()
    await counter(store, "c", 1, 2)
    counters = repository(store)
    decide = Adding(counters, 5)
    handled = await handle(counters, "c", decide)
    stored = await store.read_stream("c")
    assert decide.seen == [(2, 3)] and handled.decision.answer == 3
    assert (handled.after.state, handled.after.version, handled.after.head) == (8, 3, stored[-1].hash)
    assert handled.result.version == 3 and counters.cached("c") == handled.after
    assert (await repository(store).load("c")).state == 8


async def test_a_lost_race_is_decided_again_on_the_reloaded_stream() -> None:
    """Another writer appends after the first decision: the append conflicts, the stream is reloaded and
    the command decided again on the new state."""
    store = InMemoryEventStore()
    await counter(store, "c", 1)
    counters = repository(store)
    decide = Adding(counters, 5)

    async def raced(loaded: Loaded[int]) -> Decision[int, int]:
        if not decide.seen:
            await add(store, "c", 100)
        return await decide(loaded)

    handled = await handle(counters, "c", raced)
    assert decide.seen == [(1, 1), (2, 101)]
    assert (handled.after.state, handled.after.version) == (106, 3)


async def test_handle_gives_up_after_its_retries() -> None:
    """A stream that moves on before every append: ``retries`` lost races are decided again, then the
    conflict is raised, with nothing of the command appended."""
    store = InMemoryEventStore()
    await counter(store, "c", 1)
    counters = repository(store)
    decide = Adding(counters, 5)

    async def always_raced(loaded: Loaded[int]) -> Decision[int, int]:
        await add(store, "c", 100)
        return await decide(loaded)

    with pytest.raises(ConcurrencyConflict):
        await handle(counters, "c", always_raced, retries=2)
    assert len(decide.seen) == 3
    assert (await counters.load("c")).state == 301  # the rival's three additions only


async def test_no_retries_raises_the_first_lost_race() -> None:
    """With ``retries=0`` a lost race is raised at once."""
    store = InMemoryEventStore()
    await counter(store, "c", 1)
    counters = repository(store)
    decide = Adding(counters, 5)

    async def raced(loaded: Loaded[int]) -> Decision[int, int]:
        await add(store, "c", 100)
        return await decide(loaded)

    with pytest.raises(ConcurrencyConflict):
        await handle(counters, "c", raced, retries=0)
    assert len(decide.seen) == 1


class RefusingBelow:
    """A decide step that refuses a count below ``floor`` (422) and adds one otherwise, noting each version
    seen."""

    def __init__(self, counters: Repository[int], floor: int) -> None:
        self.counters, self.floor = counters, floor
        self.seen: list[int] = []

    async def __call__(self, loaded: Loaded[int]) -> Decision[int, None]:
        self.seen.append(loaded.version)
        if loaded.state < self.floor:
            raise errors.RuleViolation("too_low", f"the count is below {self.floor}")
        events = [Added(amount=1)]
        return Decision(events=events, state=self.counters.evolved(loaded, events), answer=None)


async def test_a_refusal_on_a_cached_state_is_decided_again_on_the_stored_one() -> None:
    """Refused on the state as this process last saw it, the command is decided on the stored state, which
    another writer moved on: accepted there."""
    store = InMemoryEventStore()
    await counter(store, "c", 1)
    counters = repository(store)
    await counters.load("c")
    await add(store, "c", 10)
    decide = RefusingBelow(counters, 5)
    handled = await handle(counters, "c", decide, first=counters.cached("c"))
    assert decide.seen == [1, 2] and handled.after.state == 12


async def test_a_refusal_on_the_stored_state_is_raised() -> None:
    """Refused on the stored state (loaded by ``handle``, or given as just loaded), the refusal is raised
    and nothing is appended."""
    store = InMemoryEventStore()
    await counter(store, "c", 1)
    counters = repository(store)
    decide = RefusingBelow(counters, 5)
    with pytest.raises(errors.RuleViolation):
        await handle(counters, "c", decide)
    loaded = await counters.load("c")
    with pytest.raises(errors.RuleViolation):
        await handle(counters, "c", decide, first=loaded, first_stored=True)
    assert decide.seen == [1, 1] and await version(store, "c") == 1


async def test_a_decision_of_nothing_to_do_appends_nothing() -> None:
    """``decide`` finding nothing to do: None, and the stream is as it was."""
    store = InMemoryEventStore()
    await counter(store, "c", 1)
    counters = repository(store)

    async def nothing(loaded: Loaded[int]) -> Decision[int, None] | None:
        return None

    assert await handle(counters, "c", nothing) is None
    assert await version(store, "c") == 1


async def test_a_keyed_command_sent_again_is_answered_by_the_store_and_not_remembered() -> None:
    """The store answers a command id it holds with its first record; the cache stays at the stored state."""
    store = InMemoryEventStore()
    await counter(store, "c", 1)
    counters = repository(store)
    record = CommandRecord(command_id="0:key", request_hash="h", response=b"{}")

    async def keyed(loaded: Loaded[int]) -> Decision[int, None]:
        events = [Added(amount=5)]
        return Decision(events=events, state=counters.evolved(loaded, events), answer=None, command=record)

    first = await handle(counters, "c", keyed)
    again = await handle(counters, "c", keyed)
    assert first.result.replayed is None and again.result.replayed == record
    assert again.after == again.decided_on and counters.cached("c") == first.after
    assert await version(store, "c") == 2
