"""A watch of the whole feed may ignore some streams: a signal naming only those leaves it asleep, a signal
naming any other stream (or everything) wakes it; per-stream watches are woken as before."""

from __future__ import annotations

from eventstore.changes import ChangeHub


async def test_a_watch_ignoring_streams_sleeps_through_their_signals_only() -> None:
    hub = ChangeHub()
    ignored = {"quiet-1", "quiet-2"}
    with hub.watch(ignoring=ignored) as feed, hub.watch("quiet-1") as one, hub.watch() as everything:
        hub.signal(["quiet-1", "quiet-2"])
        assert not await feed.wait(0), "only ignored streams: asleep"
        assert await one.wait(0), "the stream's own watch is woken"
        assert await everything.wait(0), "a watch ignoring nothing is woken"
        hub.signal(["quiet-2", "busy"])
        assert await feed.wait(0), "a stream it does not ignore wakes it"
        ignored.discard("quiet-1")  # the container is read at each signal
        hub.signal(["quiet-1"])
        assert await feed.wait(0)
        hub.signal_all()
        assert await feed.wait(0), "anything may have changed: woken"
