"""One look at the open invitations of every account stream of a process (``GET /v1/me/stream``,
service/readmodels/notifications.py), the companion of their shared feed reader (account_feed.py).

Invitations are the lobby's and the registrations' rows, not events, so nothing wakes a reader for them:
they are looked at every ``INVITATIONS_EVERY``. One look reads the open invitations of all the accounts
followed at once (two queries, whatever the number of streams) and hands each stream its account's part;
the stream tells those it has not told yet. A stream takes a look only if the look began after its previous
one (its snapshot's, at first) ended: one begun earlier may miss an invitation the stream already told,
which it would then forget and tell again.

Streams reading the feed alone (behind the feed reader) are looked for all the same: a stream is watched
from its start to its end, whatever it reads the feed from. A failed look ends every stream with its error
(clients resume); the next stream starts a new looker, which stops when its last stream leaves.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Protocol, TypeVar

import structlog

from service.readmodels.account_feed import Follower
from service.readmodels.repository.notifications import (
    NotificationRepository,
    SeatInvitation,
    TournamentInvitation,
)

INVITATIONS_EVERY = 1.0  # seconds between looks at the lobby's invitations (they are rows, not events)

log = structlog.get_logger("service.readmodels.account_invitations")


class Invitation(Protocol):
    """An invitation row: it names the account invited."""

    @property
    def invited_id(self) -> str: ...


InvitationRow = TypeVar("InvitationRow", bound=Invitation)


def by_invited(rows: list[InvitationRow]) -> dict[str, list[InvitationRow]]:
    """``rows`` grouped by the account each invites, in their order."""
    grouped: dict[str, list[InvitationRow]] = {}
    for row in rows:
        grouped.setdefault(row.invited_id, []).append(row)
    return grouped


@dataclass(frozen=True, slots=True)
class Look:
    """The open invitations of one account as one look found them, and when that look began
    (``time.monotonic()``): it saw every change committed before then."""

    began: float
    seats: list[SeatInvitation]
    tournaments: list[TournamentInvitation]


class Watcher:
    """One account stream's place at the looker: the latest look at its account's invitations, not taken yet.

    ``follower`` is the stream's place at the feed reader, through which a look wakes the stream (it waits
    there for pages, too); the stream points it at its new place when it joins the feed reader again.
    """

    __slots__ = ("account_id", "error", "follower", "look", "taken")

    def __init__(self, account_id: str, follower: Follower) -> None:
        """A watcher of ``account_id``'s invitations waking its stream through ``follower``."""
        self.account_id = account_id
        self.follower = follower
        self.look: Look | None = None
        self.taken: Look | None = None  # the last look its stream took
        self.error: BaseException | None = None  # the looker failed with this

    def hand(self, look: Look) -> None:
        """Keep ``look`` (in place of any not taken: it is newer) and wake the stream; unless nothing waits
        to be taken and ``look`` finds what the stream took last: it would tell nothing, and the stream is
        left asleep (its next different look is still taken, having begun later)."""
        taken = self.taken
        if (
            self.look is None
            and taken is not None
            and look.seats == taken.seats
            and look.tournaments == taken.tournaments
        ):
            return
        self.look = look
        self.follower.wake()

    def fail(self, error: BaseException) -> None:
        """End the stream with ``error``."""
        self.error = error
        self.follower.wake()

    def newer(self, than: float) -> bool:
        """Whether it holds a look begun after ``than``."""
        return self.look is not None and self.look.began > than

    def take(self, after: float) -> Look | None:
        """The look it holds if that began after ``after`` (one begun earlier is stale for the stream)."""
        look, self.look = self.look, None
        if look is None or look.began <= after:
            return None
        self.taken = look
        return look


class InvitationLooker:
    """The one looker at the invitations of a process's account streams: every ``every`` seconds, one read
    for all the accounts watched; stops when its last watcher leaves."""

    def __init__(self, rows: NotificationRepository, every: float = INVITATIONS_EVERY) -> None:
        """A looker reading invitations from ``rows`` every ``every`` seconds."""
        self.rows = rows
        self.every = every
        self.watchers: set[Watcher] = set()
        self.task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        """Whether it looks (it stops on an error, or when left alone)."""
        return self.task is not None and not self.task.done()

    def watch(self, account_id: str, follower: Follower) -> Watcher:
        """A new watcher of ``account_id``'s invitations; starts the looker if it is not running."""
        watcher = Watcher(account_id, follower)
        self.watchers.add(watcher)
        if self.task is None:
            self.task = asyncio.create_task(self._run(), name="account-invitations")
        return watcher

    def leave(self, watcher: Watcher) -> None:
        """Forget ``watcher``; the looker stops once nobody is left."""
        self.watchers.discard(watcher)
        if not self.watchers and self.task is not None:
            self.task.cancel()

    async def _run(self) -> None:
        """Look and hand out until nobody watches; on a failure every watcher ends with it."""
        try:
            while self.watchers:
                await asyncio.sleep(self.every)
                await self._look()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # e.g. StoreUnavailable: every stream ends with it (clients resume)
            log.warning("account_invitations_failed", error=type(exc).__name__)
            for watcher in self.watchers:
                watcher.fail(exc)

    async def _look(self) -> None:
        """Read the invitations of every account watched now, and hand each watcher its account's."""
        watching = list(self.watchers)
        began = time.monotonic()
        seats, tournaments = await self.rows.invitations_of(list({w.account_id for w in watching}))
        seats_of, tournaments_of = by_invited(seats), by_invited(tournaments)
        for watcher in watching:
            if watcher in self.watchers:  # not gone while the look read
                account = watcher.account_id
                watcher.hand(Look(began, seats_of.get(account, []), tournaments_of.get(account, [])))
