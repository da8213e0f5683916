"""An account's notifications (``GET /v1/me/stream``): what concerns it across games, followed from the
global feed, so a bot learns of its games without polling any of them.

First a snapshot (the account's active games, whether a decision of its is due in each, and its open
invitations), then one notice per change, read from the feed after the snapshot's position: ``seated``
(a game of one of its seats started), ``round_seated`` (the same for a tournament game), ``your_turn``
(a decision of one of its seats is due at the game's new version: told again whenever the game moved
while it still is), ``game_finished`` (with the result). ``invited`` (a seat of a lobby game reserved
for it) and ``tournament_invited`` notices come from the lobby's and the registrations' rows, which are
not events: they are looked for about once a second. A feed notice is told at the event it stems from
(``seated`` at the game's first event, ``your_turn`` and ``game_finished`` at the event that brought the game
to the version they tell) and its id is that event's feed position with the notice's rank among the kinds
(``<tx>-<position>.<rank>``), so ids only grow and a client resumes exactly after the last one it got
(``Last-Event-ID``): told nothing twice, missing nothing. The store's watch only wakes the reader, which
always re-reads from its own position (a lost wake-up costs latency, never a notice). The streams of one
process share one reader of the feed (service/readmodels/account_feed.py): a page is read and its seats looked up once
however many accounts follow, and each stream is handed only its own games' part of it. They share one look
at the invitations too (service/readmodels/account_invitations.py): one read for all their accounts a second.
"""

from __future__ import annotations

import re
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

from eventstore import FeedPosition
from service.accounts.accounts import Account
from service.games.loading import LoadedGame
from service.games.schemas import registration_clock, stored_clock
from service.games.service import GameService
from service.readmodels.account_feed import QUEUE_LIMIT, UNLOADABLE, AccountFeed, AccountPage, Follower
from service.readmodels.account_invitations import INVITATIONS_EVERY, InvitationLooker, Look, Watcher
from service.readmodels.repository.checkpoints import Pool
from service.readmodels.repository.notifications import (
    NotificationRepository,
    SeatInvitation,
    TournamentInvitation,
)
from service.runtime import errors

PAGE_SIZE = 500  # a stream reading the feed alone (behind the shared reader) reads this many at a time
NOW_POSITION = 2**63 - 1  # with the horizon's tx - 1: after every event of a transaction older than it

Kind = Literal["seated", "round_seated", "your_turn", "game_finished", "invited", "tournament_invited"]
# a feed notice's rank among those one event may give, the sub-index of its id; WHOLE: every one of them
SEATED, YOUR_TURN, FINISHED, WHOLE = 0, 1, 2, 3
_ID = re.compile(r"([0-9]{1,19})-([0-9]{1,19})(?:\.([0-2]))?")  # NoticeId.encode's output


class Notice(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One thing that concerns the account in one game: ``type``, the game and the account's seat in it,
    the game's version when noticed; the tournament of a tournament game; the result once finished; the
    inviting account of an invitation (a tournament invitation names the tournament and its game only)."""

    type: Kind
    game: str
    game_id: str | None = None
    seat: int | None = None
    version: int | None = None
    tournament: str | None = None
    result: Any = None
    invited_by: str | None = None
    rated: bool | None = None
    clock: dict[str, Any] | None = None  # an invitation's: the clock of the game (each tournament game)


class MyGame(msgspec.Struct, frozen=True, kw_only=True):
    """An active game the account holds a seat of, and whether a decision of that seat is due."""

    game_id: str
    game: str
    seat: int
    version: int
    your_turn: bool
    tournament: str | None = None


class Snapshot(msgspec.Struct, frozen=True, kw_only=True):
    """Where the account stands when the stream (re)starts: its active games and open invitations."""

    account: str
    games: list[MyGame]
    invitations: list[Notice]


@dataclass(frozen=True, order=True)
class NoticeId:
    """A point of an account's stream: the feed position ``at`` and the rank of a notice told at it
    (WHOLE: past every notice told at ``at``, as a snapshot's or keep-alive's id is); ordered as told."""

    at: FeedPosition
    rank: int = WHOLE

    def encode(self) -> str:
        """``<tx>-<position>`` for a whole position, ``<tx>-<position>.<rank>`` for a notice."""
        return self.at.encode() if self.rank == WHOLE else f"{self.at.encode()}.{self.rank}"

    def reread_from(self) -> FeedPosition:
        """The feed position to read after to hear what follows this point: the event at ``at`` is read
        again when some of the notices it gives may come after a notice's rank."""
        if self.rank == WHOLE:
            return self.at
        return FeedPosition(tx=self.at.tx, position=self.at.position - 1)


@dataclass(frozen=True)
class Message:
    """One message of the stream: ``snapshot``, ``notice``, or ``keepalive``; ``id`` is the NoticeId a
    reconnecting client resumes after (a keep-alive's only when past the last one given; invitations none)."""

    kind: Literal["snapshot", "notice", "keepalive"]
    id: str | None = None
    body: Any = None


def resume_position(last_event_id: str | None) -> NoticeId | None:
    """The stream point a ``Last-Event-ID`` names (None without one); 400 unless it is one we gave out."""
    if last_event_id is None:
        return None
    found = _ID.fullmatch(last_event_id.strip())
    if found is None:
        raise errors.Malformed("bad_last_event_id", "Last-Event-ID is an id this stream gave out")
    tx, position, rank = found.groups()
    if max(int(tx), int(position)) > NOW_POSITION:  # the feed's positions are bigints
        raise errors.Malformed("bad_last_event_id", "Last-Event-ID is an id this stream gave out")
    return NoticeId(FeedPosition(tx=int(tx), position=int(position)), WHOLE if rank is None else int(rank))


@dataclass
class _Seen:
    """What this reader has told the account so far, so each change is told once."""

    due_at: dict[str, int] = field(default_factory=dict)  # game -> the version your_turn was last told at
    started: set[str] = field(default_factory=set)
    finished: set[str] = field(default_factory=set)
    invitations: set[tuple[str | None, str | None, int | None]] = field(default_factory=set)


class Notifications:
    """Follows the feed for accounts."""

    def __init__(
        self,
        pool: Pool,
        games: GameService,
        caught_up: Callable[[], Awaitable[None]] | None = None,
        acquire_timeout: float | None = None,
    ) -> None:
        """Read from ``pool``; ``caught_up`` (the game projection's read-your-writes) is awaited before a
        snapshot, which reads the listing."""
        self.rows = NotificationRepository(pool, acquire_timeout)
        self.games = games
        self.caught_up = caught_up
        self.reader: AccountFeed | None = None  # the streams' shared feed reader, while any stream follows
        self.queue_limit = QUEUE_LIMIT  # the pages concerning its account a stream may have waiting
        self.looker: InvitationLooker | None = None  # the streams' shared look at their invitations
        self.invitations_every = INVITATIONS_EVERY  # seconds between the looks

    async def now(self) -> FeedPosition:
        """A feed position after every event already final in the feed: what a new stream follows from."""
        return FeedPosition(tx=await self.rows.horizon() - 1, position=NOW_POSITION)

    async def refuse_unreached(self, after: NoticeId | None) -> None:
        """400 ``bad_last_event_id`` for a point past every event final in the feed: no stream gave it out,
        and a stream following from it would tell the account nothing until the feed got there."""
        if after is not None and after.at > await self.now():
            raise errors.Malformed("bad_last_event_id", "Last-Event-ID is an id this stream gave out")

    async def invitations(self, account: Account) -> list[Notice]:
        """The account's open invitations: seats reserved for it in games waiting for players, and
        tournaments registering players that invited it."""
        return _invitation_notices(*await self.rows.invitations(account.account_id))

    async def snapshot(self, account: Account, seen: _Seen) -> Snapshot:
        """The account's active games (with whether a decision of its is due) and open invitations."""
        mine = []
        for held in await self.rows.active_seats(account.account_id):
            try:
                loaded = await self.games.loader.load(held.game_id)
            except (errors.NotFound, errors.Conflict, msgspec.DecodeError, msgspec.ValidationError):
                continue  # a start cut short: its opening events are not stored yet
            due = _due(loaded, held.seat)
            seen.started.add(loaded.game_id)
            if due:
                seen.due_at[loaded.game_id] = loaded.version
            if loaded.finished:
                seen.finished.add(loaded.game_id)
                continue
            mine.append(
                MyGame(
                    game_id=loaded.game_id,
                    game=loaded.game.name,
                    seat=held.seat,
                    version=loaded.version,
                    your_turn=due,
                    tournament=loaded.info.metadata.get("tournament"),
                )
            )
        invitations = await self.invitations(account)
        seen.invitations = {_invitation(n) for n in invitations}
        return Snapshot(account=account.name, games=mine, invitations=invitations)

    async def _notices(
        self, account: Account, page: list[tuple[FeedPosition, Any]], seen: _Seen
    ) -> list[tuple[NoticeId, Notice]]:
        """The notices a page of the feed read by this stream alone holds for the account, in id order."""
        game_ids = list(dict.fromkeys(event.stream_id for _, event in page))
        seats = {held.game_id: held.seat for held in await self.rows.seats_in(account.account_id, game_ids)}
        loaded: dict[str, LoadedGame] = {}
        for game_id in seats:
            try:
                loaded[game_id] = await self.games.loader.load(game_id)
            except UNLOADABLE:
                continue
        return _notices_in(page, seats, loaded, seen)

    async def join(self, account: Account, poll_seconds: float) -> Follower:
        """A place for the account's stream at the shared feed reader (started on the first stream, and
        again after one failed; it stops when its last stream leaves)."""
        reader = self.reader
        if reader is None or (reader.task is not None and reader.task.done()):
            position = await self.now()
            reader = self.reader
            if reader is None or (reader.task is not None and reader.task.done()):
                reader = self.reader = AccountFeed(
                    self.games, self.rows, position, poll_seconds, self.queue_limit
                )
        return reader.join(account.account_id)

    def leave(self, follower: Follower) -> None:
        """The stream of ``follower`` leaves the shared reader, which is forgotten once nobody follows."""
        reader = self.reader
        if reader is not None and follower in reader.followers:
            reader.leave(follower)
            if not reader.followers:
                self.reader = None

    def watch(self, account: Account, follower: Follower) -> Watcher:
        """A place for the account's stream at the shared look at invitations, waking the stream through
        ``follower`` (started on the first stream, and again after one failed; it stops when its last
        stream leaves)."""
        looker = self.looker
        if looker is None or not looker.running:
            looker = self.looker = InvitationLooker(self.rows, self.invitations_every)
        return looker.watch(account.account_id, follower)

    def unwatch(self, watcher: Watcher) -> None:
        """The stream of ``watcher`` leaves the shared look, which is forgotten once nobody watches."""
        looker = self.looker
        if looker is not None and watcher in looker.watchers:
            looker.leave(watcher)
            if not looker.watchers:
                self.looker = None

    async def follow(
        self,
        account: Account,
        after: NoticeId | None,
        keepalive_seconds: float,
        poll_seconds: float,
    ) -> AsyncGenerator[Message, None]:
        """The account's stream: the snapshot of now, then the notices of the feed after ``after`` (None:
        after now), each once and with an id greater than every id before it, invitations as they appear,
        keep-alives while quiet; without end. The feed comes from the shared reader; a stream behind it
        (resumed from an earlier point, or too slow to keep its queue) reads the feed alone until it
        catches up."""
        seen = _Seen()
        last = after if after is not None else NoticeId(await self.now())  # the greatest id given so far
        position = last.reread_from()  # the feed read up to here
        follower = await self.join(account, poll_seconds)
        watcher = self.watch(account, follower)
        try:
            if self.caught_up is not None:
                await self.caught_up()  # the listing the snapshot reads holds every game started before
            snapshot = await self.snapshot(account, seen)
            looked = time.monotonic()  # a look at invitations begun after this saw all the snapshot saw
            if after is not None:  # resumed: told again are the starts and ends whose events follow ``after``
                seen.started.clear()
                seen.finished.clear()
            yield Message("snapshot", last.encode(), snapshot)
            quiet_since = time.monotonic()
            while True:
                if follower.error is not None:
                    raise follower.error
                if watcher.error is not None:
                    raise watcher.error
                notices: list[tuple[NoticeId, Notice]] = []
                behind = False
                if follower.lagged or position < follower.start:
                    page = await self.games.store.read_all_headers(position, PAGE_SIZE)
                    if page:
                        notices = await self._notices(account, page, seen)
                        position = page[-1][0]
                    behind = len(page) == PAGE_SIZE
                    if not behind and follower.lagged:  # caught up with the store: join the reader again
                        self.leave(follower)
                        follower = await self.join(account, poll_seconds)
                        watcher.follower = follower
                        behind = True  # to look at where the reader stands now
                    elif not behind:
                        follower.start = position  # read all there is: the reader brings what follows
                else:
                    while follower.queue:
                        part = follower.queue.popleft()
                        notices.extend(_part_notices(part, position, seen))
                        position = max(position, part.end)
                    if self.reader is not None and follower in self.reader.followers:
                        position = max(position, self.reader.position)  # no page since concerns the account
                for at, notice in notices:
                    if at <= last:
                        continue  # told before the point resumed after (its event is read again)
                    last = at
                    yield Message("notice", at.encode(), notice)
                    quiet_since = time.monotonic()
                look = watcher.take(after=looked)
                if look is not None:
                    looked = look.began
                    for invitation in _new_invitations(look, seen):
                        yield Message("notice", None, invitation)
                        quiet_since = time.monotonic()
                if behind or follower.queue or follower.lagged or follower.error is not None:
                    continue
                if watcher.error is not None or watcher.newer(than=looked):
                    continue
                keepalive_due = quiet_since + keepalive_seconds - time.monotonic()
                if keepalive_due <= 0:
                    reached = NoticeId(position)  # to resume after, when past the last id given
                    yield Message("keepalive", reached.encode() if reached > last else None)
                    last = max(last, reached)
                    quiet_since = time.monotonic()
                    continue
                await follower.wait(keepalive_due)  # a page, a look at invitations or a failure wakes it
        finally:
            self.leave(follower)
            self.unwatch(watcher)


def _invitation_notices(seats: list[SeatInvitation], tournaments: list[TournamentInvitation]) -> list[Notice]:
    """Open invitations as notices: the tournaments' first, then the seats'."""
    return [
        Notice(
            type="tournament_invited",
            game=invitation.game,
            tournament=invitation.tournament_id,
            invited_by=invitation.organizer,
            clock=registration_clock(stored_clock(invitation.request) or {}),
        )
        for invitation in tournaments
    ] + [
        Notice(
            type="invited",
            game_id=invitation.game_id,
            game=invitation.game,
            seat=invitation.seat,
            invited_by=invitation.creator,
            rated=invitation.rated,
            clock=stored_clock(invitation.clock),
        )
        for invitation in seats
    ]


def _new_invitations(look: Look, seen: _Seen) -> list[Notice]:
    """The invitations of ``look`` not told yet (those withdrawn or answered since are forgotten)."""
    current = _invitation_notices(look.seats, look.tournaments)
    new = [n for n in current if _invitation(n) not in seen.invitations]
    seen.invitations = {_invitation(n) for n in current}
    return new


def _invitation(notice: Notice) -> tuple[str | None, str | None, int | None]:
    """What identifies an invitation: its game and seat, or its tournament."""
    return (notice.tournament, notice.game_id, notice.seat)


def _part_notices(part: AccountPage, position: FeedPosition, seen: _Seen) -> list[tuple[NoticeId, Notice]]:
    """The notices of a page's part handed by the shared reader, of its events after ``position`` only
    (those up to it the stream read before)."""
    entries = [(at, event) for at, event in part.entries if at > position]
    return _notices_in(entries, part.seats, part.loaded, seen) if entries else []


def _notices_in(
    page: list[tuple[FeedPosition, Any]], seats: dict[str, int], loaded: dict[str, LoadedGame], seen: _Seen
) -> list[tuple[NoticeId, Notice]]:
    """The notices ``page`` holds for an account with ``seats`` (game -> seat), its games as ``loaded``
    after the page was read (one missing is skipped), in id order (see _changes)."""
    versions: dict[str, dict[int, FeedPosition]] = {}
    for position, event in page:
        if event.stream_id in seats:
            versions.setdefault(event.stream_id, {})[event.version] = position
    notices: list[tuple[NoticeId, Notice]] = []
    for game_id, positions in versions.items():
        game = loaded.get(game_id)
        if game is not None:
            notices.extend(_changes(game, seats[game_id], positions, seen))
    return sorted(notices, key=lambda item: item[0])


def _due(loaded: LoadedGame, seat: int) -> bool:
    """Whether a decision of ``seat`` is due in the game."""
    return not loaded.finished and any(p.seat == seat for p in loaded.game.pending(loaded.state))


def _changes(
    loaded: LoadedGame, seat: int, positions: dict[int, FeedPosition], seen: _Seen
) -> list[tuple[NoticeId, Notice]]:
    """What changed for ``seat`` in the game, each told once, at the feed position (of ``positions``, the
    game's versions in a page of the feed) of the event it stems from: ``seated`` at the game's first
    event; ``your_turn`` and ``game_finished`` at the event of the game's version, or not yet when a later
    page holds that event."""
    tournament = loaded.info.metadata.get("tournament")

    def notice(kind: Kind, result: Any = None) -> Notice:
        return Notice(
            type=kind,
            game_id=loaded.game_id,
            game=loaded.game.name,
            seat=seat,
            version=loaded.version,
            tournament=tournament,
            result=result,
        )

    told: list[tuple[NoticeId, Notice]] = []
    start = positions.get(1)
    if start is not None and loaded.game_id not in seen.started:
        seen.started.add(loaded.game_id)
        told.append((NoticeId(start, SEATED), notice("round_seated" if tournament else "seated")))
    now = positions.get(loaded.version)
    if now is None:
        return told
    if _due(loaded, seat) and seen.due_at.get(loaded.game_id) != loaded.version:
        seen.due_at[loaded.game_id] = loaded.version
        told.append((NoticeId(now, YOUR_TURN), notice("your_turn")))
    if loaded.finished and loaded.game_id not in seen.finished:
        seen.finished.add(loaded.game_id)
        told.append((NoticeId(now, FINISHED), notice("game_finished", msgspec.to_builtins(loaded.result()))))
    return told
