"""Fake time for clocks: a clock tests move by hand, injected wherever the service reads time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class FakeTime:
    """A clock that stands still until ``advance`` moves it (call it for the current moment)."""

    def __init__(self, start: datetime | None = None) -> None:
        self.moment = start or datetime(2030, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        """The current fake moment."""
        return self.moment

    def advance(self, seconds: float) -> datetime:
        """Move the clock on by ``seconds``; the new moment."""
        self.moment += timedelta(seconds=seconds)
        return self.moment
