"""The account streams' shared look at invitations (service/readmodels/account_invitations.py): one read for
every account watched, each watcher handed its own account's part; a stream takes only a look begun after
its previous one ended."""

from __future__ import annotations

import asyncio
from typing import Any

from eventstore import FeedPosition
from service.readmodels.account_feed import Follower
from service.readmodels.account_invitations import InvitationLooker, Look, Watcher
from service.readmodels.repository.notifications import SeatInvitation, TournamentInvitation

WAIT = 10.0


def seat(account_id: str, game_id: str) -> SeatInvitation:
    """A seat of ``game_id`` reserved for ``account_id``."""
    return SeatInvitation(
        invited_id=account_id, game_id=game_id, seat=1, game="johari", rated=False, clock=None, creator="host"
    )


def tournament(account_id: str, tournament_id: str) -> TournamentInvitation:
    """An invitation of ``account_id`` to ``tournament_id``."""
    return TournamentInvitation(
        invited_id=account_id, tournament_id=tournament_id, game="johari", request={}, organizer="host"
    )


class Rows:
    """A repository holding fixed invitations, recording the accounts each batched read asks for."""

    def __init__(self, seats: list[SeatInvitation], tournaments: list[TournamentInvitation]) -> None:
        self.seats = seats
        self.tournaments = tournaments
        self.reads: list[list[str]] = []
        self.read = asyncio.Event()

    async def invitations_of(
        self, account_ids: list[str]
    ) -> tuple[list[SeatInvitation], list[TournamentInvitation]]:
        self.reads.append(sorted(account_ids))
        self.read.set()
        return (
            [s for s in self.seats if s.invited_id in account_ids],
            [t for t in self.tournaments if t.invited_id in account_ids],
        )


def follower(account_id: str) -> Follower:
    """A place at the feed reader, through which a watcher wakes its stream."""
    return Follower(account_id, FeedPosition(), limit=1)


async def test_one_read_hands_each_watcher_its_own_accounts_invitations_in_order() -> None:
    rows = Rows(
        [seat("a", "g1"), seat("b", "g2"), seat("a", "g3")],
        [tournament("b", "t1"), tournament("c", "t2")],
    )
    looker = InvitationLooker(rows, every=0.01)  # type: ignore[arg-type]
    watchers = [looker.watch(account, follower(account)) for account in ("a", "a", "b", "c", "d")]
    try:
        async with asyncio.timeout(WAIT):
            while any(w.look is None for w in watchers):  # handed as soon as the read returns
                rows.read.clear()
                await rows.read.wait()
    finally:
        for watcher in watchers:
            looker.leave(watcher)
    assert rows.reads[0] == ["a", "b", "c", "d"], "one read for every account watched, each once"
    told: dict[str, Any] = {}
    for watcher in watchers:
        look = watcher.look
        assert look is not None
        told.setdefault(watcher.account_id, []).append(
            ([s.game_id for s in look.seats], [t.tournament_id for t in look.tournaments])
        )
    assert told == {
        "a": [(["g1", "g3"], [])] * 2,
        "b": [(["g2"], ["t1"])],
        "c": [([], ["t2"])],
        "d": [([], [])],
    }
    assert looker.task is not None
    await asyncio.wait([looker.task], timeout=WAIT)
    assert looker.task.done(), "the looker stops once nobody watches"


def test_a_stream_takes_only_a_look_begun_after_its_previous_one_ended() -> None:
    watcher = Watcher("a", follower("a"))
    watcher.hand(Look(began=1.0, seats=[seat("a", "g1")], tournaments=[]))
    assert watcher.newer(than=0.5) and not watcher.newer(than=2.0)
    assert watcher.take(after=2.0) is None, "begun before the snapshot ended: it may miss what that told"
    assert watcher.take(after=0.5) is None, "a look is taken once"
    later = Look(began=3.0, seats=[], tournaments=[])
    watcher.hand(later)
    assert watcher.take(after=2.0) is later


async def test_a_look_finding_what_the_stream_took_last_leaves_it_asleep() -> None:
    place = follower("a")
    watcher = Watcher("a", place)
    first = Look(began=1.0, seats=[seat("a", "g1")], tournaments=[])
    watcher.hand(first)
    assert watcher.take(after=0.5) is first
    place.waiter = asyncio.get_running_loop().create_future()  # its stream waits
    watcher.hand(Look(began=2.0, seats=[seat("a", "g1")], tournaments=[]))
    assert watcher.look is None and not place.waiter.done(), "the same invitations: nothing to tell"
    changed = Look(began=3.0, seats=[], tournaments=[tournament("a", "t1")])
    watcher.hand(changed)
    assert place.waiter.done(), "other invitations wake the stream"
    again = Look(began=4.0, seats=[seat("a", "g1")], tournaments=[])
    watcher.hand(again)
    assert watcher.look is again, "a look waiting to be taken is replaced by a newer one, whatever it finds"
    assert watcher.take(after=1.0) is again


def test_a_look_the_stream_did_not_take_is_no_reason_to_leave_it_asleep() -> None:
    watcher = Watcher("a", follower("a"))
    stale = Look(began=1.0, seats=[seat("a", "g1")], tournaments=[])
    watcher.hand(stale)
    assert watcher.take(after=2.0) is None  # begun before the snapshot ended
    fresh = Look(began=3.0, seats=[seat("a", "g1")], tournaments=[])
    watcher.hand(fresh)
    assert watcher.take(after=2.0) is fresh, "the same invitations, but the stream took none of them yet"
