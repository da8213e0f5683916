"""Live readers (docs/decisions/0006-read-models.md): change signals fanned out to in-process watchers,
and the feed subscription that catches up and then follows, always re-reading from its own position.

A signal only says "stream X may have changed"; readers never take events from it. So a lost or duplicated
signal costs latency or one needless read, never an event, and one watcher per reader (not one database
connection) is all a live reader costs.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Container
from types import TracebackType

from eventstore.protocol import FeedPosition, RecordedEvent

FeedPage = list[tuple[FeedPosition, RecordedEvent]]
ReadAll = Callable[[FeedPosition | None, int], Awaitable[FeedPage]]

DEFAULT_PAGE_SIZE = 500
# Subscribers also re-read this often without a signal: the bound on the latency a lost signal costs.
DEFAULT_POLL_SECONDS = 5.0


class ChangeWatch:
    """One reader's interest in one stream (``stream_id``) or in every stream (None); a watch of every stream
    may be ``ignoring`` some streams: a signal naming only those leaves it asleep (its reader has nothing
    to do for them), a signal of anything else or of everything wakes it.

    Use it as a context manager around the read loop: a change signalled after ``__enter__`` and before
    the next ``wait`` makes that ``wait`` return at once, so a change between a read and the wait that
    follows it is never slept through.
    """

    __slots__ = ("_flag", "_hub", "fence", "ignoring", "stream_id")

    def __init__(self, hub: ChangeHub, stream_id: str | None, ignoring: Container[str] | None = None) -> None:
        """A watch of ``hub`` on ``stream_id``, inactive until entered."""
        self._hub = hub
        self.stream_id = stream_id
        self.ignoring = ignoring
        self._flag = asyncio.Event()
        self.fence = 0  # the highest primary WAL position (LSN) a signal to it carried (0: none)

    def __enter__(self) -> ChangeWatch:
        """Start receiving signals."""
        self._hub._add(self)
        return self

    def __exit__(
        self, _type: type[BaseException] | None, _value: BaseException | None, _tb: TracebackType | None
    ) -> None:
        """Stop receiving signals."""
        self._hub._remove(self)

    def _signal(self, fence: int = 0) -> None:
        """Mark a change for the next ``wait``; ``fence``: the primary's WAL position the change is within."""
        if fence > self.fence:
            self.fence = fence
        self._flag.set()

    async def wait(self, timeout: float | None = None) -> bool:
        """Until a change is signalled since the previous ``wait`` (True), or ``timeout`` seconds (False)."""
        if not self._flag.is_set():
            try:
                async with asyncio.timeout(timeout):
                    await self._flag.wait()
            except TimeoutError:
                return False
        self._flag.clear()
        return True


class ChangeHub:
    """Fans "these streams changed" out to the watchers of one process: per stream, and of the whole feed."""

    def __init__(self) -> None:
        """No watches yet."""
        self._watches: dict[str | None, set[ChangeWatch]] = {}
        self.latest = 0  # the highest WAL position (LSN) any signal carried (0: none yet)

    def watch(self, stream_id: str | None = None, *, ignoring: Container[str] | None = None) -> ChangeWatch:
        """A watch on ``stream_id`` (None: on every stream but those it is ``ignoring``); active inside its
        ``with`` block."""
        return ChangeWatch(self, stream_id, ignoring)

    def _add(self, watch: ChangeWatch) -> None:
        """Register an entered watch."""
        self._watches.setdefault(watch.stream_id, set()).add(watch)

    def _remove(self, watch: ChangeWatch) -> None:
        """Forget an exited watch (and its stream's entry once it has none)."""
        watches = self._watches.get(watch.stream_id)
        if watches is not None:
            watches.discard(watch)
            if not watches:
                del self._watches[watch.stream_id]

    def signal(self, stream_ids: Collection[str], fence: int = 0) -> None:
        """Wake the watchers of these streams and every watcher of the whole feed not ignoring them all;
        ``fence``: the primary's WAL position (LSN) the changes are within, when known (a NOTIFY carries it)."""
        self.latest = max(self.latest, fence)
        for stream_id in stream_ids:
            for watch in self._watches.get(stream_id, ()):
                watch._signal(fence)
        for watch in self._watches.get(None, ()):
            ignoring = watch.ignoring
            if ignoring is None or any(stream_id not in ignoring for stream_id in stream_ids):
                watch._signal(fence)

    def signal_all(self, fence: int = 0) -> None:
        """Wake every watcher (anything may have changed, e.g. while other processes went unheard)."""
        self.latest = max(self.latest, fence)
        for watches in self._watches.values():
            for watch in watches:
                watch._signal(fence)


async def follow_feed(
    read_all: ReadAll,
    hub: ChangeHub,
    after: FeedPosition | None,
    page_size: int = DEFAULT_PAGE_SIZE,
    poll_seconds: float = DEFAULT_POLL_SECONDS,
) -> AsyncIterator[tuple[FeedPosition, RecordedEvent]]:
    """The global feed after ``after``: every event once, in feed order, then new ones as they commit.

    Pages are read only as the consumer takes events, so a slow consumer holds one page at most. When
    the feed is exhausted it sleeps until a change is signalled or ``poll_seconds`` pass, then re-reads
    from its position. Store errors (e.g. StoreUnavailable) end the iteration: resume with the last
    position taken.
    """
    with hub.watch(None) as changes:
        while True:
            page = await read_all(after, page_size)
            for position, event in page:
                after = position
                yield position, event
            if len(page) < page_size:
                await changes.wait(poll_seconds)


class FollowsFeed:
    """The live-reader half of a store: ``subscribe`` and ``watch`` over the store's own ``read_all`` and
    the ChangeHub its appends (and, for PostgreSQL, other processes' NOTIFYs) signal."""

    _changes: ChangeHub
    read_all: ReadAll

    def subscribe(
        self,
        after: FeedPosition | None = None,
        *,
        page_size: int = DEFAULT_PAGE_SIZE,
        poll_seconds: float = DEFAULT_POLL_SECONDS,
    ) -> AsyncIterator[tuple[FeedPosition, RecordedEvent]]:
        """The global feed after ``after``, then every event committed later (see follow_feed)."""
        return follow_feed(self.read_all, self._changes, after, page_size, poll_seconds)

    def watch(self, stream_id: str | None = None, *, ignoring: Container[str] | None = None) -> ChangeWatch:
        """A watch woken when ``stream_id`` (None: any stream but those it is ``ignoring``) may have changed,
        in any process."""
        return self._changes.watch(stream_id, ignoring=ignoring)
