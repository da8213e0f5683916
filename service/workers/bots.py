"""Server-side bots: a runner in every process plays the bot seats of games, as any client would.

A game created with bot seats (``players: [..., {"bot": "strong"}]``) records each seat's level in its
creation metadata (``bot_levels``; ``server_bots: true`` marks such games for the resume query); so does a
lobby game whose seat a server bot's built-in account holds (service/lobby/lobby.py). The runner:
- is woken by the store's feed (``read_all`` from its position, then the store's change signal of any
  process, except a signal naming only games it knows to have no bot seat: ``without_bots``), and looks
  only at games that appear on the feed, never polling game by game; a game whose state this process
  cached is the stored one as of its latest event on the feed (this process made that move) is decided
  on without reading the store, its seats' levels kept from its first look;
- on start, queues every active game with server bots (one indexed listing), so a decision pending while
  no process ran is taken up;
- takes turns across games: one decision per game per turn, then the game goes to the back of the queue,
  and the feed is read again between decisions; games with a client's seat go before bot-only games, so a
  person's bot answers after at most the one decision being thought, however many bot-only games run;
- decides from the seat's knowledge only: the stored events redacted for that seat (``Knowledge.see``) and
  the seat's ``legal`` list, in a worker thread so the event loop never waits on a search;
- appends through ``GameCommands.execute`` with the version it decided on (``If-Match``) and an idempotency
  key naming that version: with several processes, each may think, but the store's version check lets
  exactly one command per decision in; the others get a refusal and re-read.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Container
from typing import Any

import msgspec
import structlog

from domain.bots import LEVELS, Budget, Knowledge, Level, choose, kit
from domain.core import Command
from eventstore import FeedHeader, FeedPosition, StoreError
from service.games.loading import LoadedGame
from service.games.service import GameService
from service.runtime import errors
from service.runtime.logging import failure_fields
from service.runtime.streams import keep
from service.workers.claims import claims_of

__all__ = ["BOT_LEVELS", "BotRunner", "bot_levels"]

log = structlog.get_logger("bots")

BOT_LEVELS = "bot_levels"  # creation metadata: the level of each seat (None: not a server bot)
PAGE_SIZE = 500
KNOWLEDGE_CACHE = 512  # (game, seat) knowledges kept between decisions, least recently used dropped
RETRY_SECONDS = 1.0  # after a store failure
MAX_FAILURES = 3  # refusals in a row for one game before the runner leaves it until its next event
WITHOUT_BOTS_CACHE = 10_000  # games remembered to have no bot seat, least recently seen dropped


def bot_levels(metadata: dict[str, Any]) -> list[str | None]:
    """Each seat's server-bot level from a game's creation metadata (None for a seat a client plays)."""
    levels = metadata.get(BOT_LEVELS) or []
    return [level if level in LEVELS else None for level in levels]


class BotRunner:
    """Plays every server bot seat whose decision is due, in this process."""

    def __init__(self, games: GameService, think_seconds: float = 1.0, iterations: int | None = None) -> None:
        """``think_seconds`` caps a greedy or strong decision (wall clock); ``iterations`` strong's search."""
        self.games = games
        self.budget = Budget(
            iterations=iterations or Budget().iterations, seconds=think_seconds if think_seconds > 0 else None
        )
        self.secret = secrets.token_hex(16)  # seeds this process's bot decisions (nobody can predict them)
        self._known: OrderedDict[tuple[str, int], Knowledge[Any, Any]] = OrderedDict()
        # Games whose creation metadata gave no seat a bot: metadata is written once, at creation, so such a
        # game never needs the runner, and its moves on the feed cost no read of its stream row.
        self._without_bots: OrderedDict[str, None] = OrderedDict()
        # Games whose every seat is a server bot: they take their turns after every game a client plays in,
        # so a person waiting on a bot never waits behind them.
        self._bot_only: OrderedDict[str, None] = OrderedDict()
        # The seats' levels of games with a server bot seat, from their metadata (written once, at creation),
        # and the latest event the feed showed of each game waiting for its turn: a game whose cached state
        # is the stored one as of that event is decided on without reading its stream row or events.
        self._levels: OrderedDict[str, list[str | None]] = OrderedDict()
        self._latest: dict[str, FeedHeader] = {}
        # The games owed a turn, each kind in first-come order: one decision per game per turn.
        self._urgent: OrderedDict[str, None] = OrderedDict()
        self._background: OrderedDict[str, None] = OrderedDict()
        # commands this runner had accepted, counting an identical command another process had already
        # appended for the same decision (same idempotency key: the store answers it, appending nothing)
        self.moves = 0

    async def run(self, wake: Callable[[], Awaitable[object]], start: FeedPosition | None = None) -> None:
        """Queue the pending games, then follow the feed from ``start``, queueing every game that moved, and
        take one decision at a time in turn (``step``), looking at the feed again between decisions."""
        queued = False
        position = start
        while True:
            try:
                if not queued:
                    await self.queue_resumable()
                    queued = True
                page = await self.games.store.read_all_headers(position, PAGE_SIZE)
                for _, recorded in page:
                    self.enqueue(recorded.stream_id, recorded)
                if page:
                    position = page[-1][0]
                if len(page) < PAGE_SIZE and self.waiting():
                    await self.step()
                    continue
            except (StoreError, errors.ServiceError) as failure:
                # the database is away (an outage answers 503 elsewhere): try again from the same position
                log.warning("bots_paused", error=type(failure).__name__)
                await asyncio.sleep(RETRY_SECONDS)
                continue
            if len(page) < PAGE_SIZE:
                await wake()

    def enqueue(self, game_id: str, recorded: FeedHeader | None = None) -> None:
        """Give ``game_id`` a turn: behind the games already waiting of its kind (bot-only games behind one
        another, every other game before them), keeping its place if it waits already; ``recorded``: its
        latest event read off the feed, kept for its turn."""
        if game_id in self._without_bots:
            self._without_bots.move_to_end(game_id)
            return
        if recorded is not None:
            self._latest[game_id] = recorded
        if game_id in self._bot_only:
            self._background.setdefault(game_id, None)
        else:  # a game a client plays in, or one not read yet
            self._urgent.setdefault(game_id, None)

    @property
    def without_bots(self) -> Container[str]:
        """The games known to have no server bot seat: an append to them alone has nothing for the runner
        (its wake-up may ignore it; the feed read at its next wake-up passes over them)."""
        return self._without_bots

    def waiting(self) -> int:
        """How many games wait for a turn."""
        return len(self._urgent) + len(self._background)

    async def step(self) -> int:
        """One decision of the next game in turn (a game with a client's seat before every bot-only game, each
        kind in first-come order); a game that moved goes to the back of its queue for its next decision.
        A human waiting on a bot never waits behind more than the one decision being thought."""
        queue = self._urgent or self._background
        if not queue:
            return 0
        game_id, _ = queue.popitem(last=False)
        try:
            made = await self.act(game_id)
        except (StoreError, errors.ServiceError):
            self.enqueue(game_id)  # its turn again once the database answers
            raise
        if made:
            self.enqueue(game_id)
        return made

    async def queue_resumable(self) -> None:
        """Queue every active game with server bots (after a restart, a decision due while no process ran)."""
        before = None
        while True:
            streams = await self.games.store.list_streams(
                status="active", metadata_contains={"server_bots": True}, before=before, limit=100
            )
            for info in streams:
                self.enqueue(info.stream_id)
            if len(streams) < 100:
                return
            before = (streams[-1].created_at, streams[-1].stream_id)

    async def resume(self) -> int:
        """Play every active game with server bots until none owes a bot decision, taking turns; the moves
        made."""
        await self.queue_resumable()
        made = 0
        while self.waiting():
            made += await self.step()
        return made

    async def act(self, game_id: str) -> int:
        """Take the one decision a bot seat of the game owes now, if any: 1 if this runner's command was
        accepted (another process's refusal re-reads the game, up to MAX_FAILURES times), else 0."""
        latest = self._latest.pop(game_id, None)
        if game_id in self._without_bots:
            self._without_bots.move_to_end(game_id)
            return 0
        failures = 0
        while failures < MAX_FAILURES:
            levels = self._levels.get(game_id)
            loaded = self._as_seen(latest) if levels is not None else None
            latest = None  # a refusal below re-reads the store
            if levels is None or loaded is None:
                info = await self.games.store.stream_info(game_id)
                if info is None or info.status != "active":
                    self._forget(game_id)
                    return 0
                levels = bot_levels(info.metadata)
                if not any(levels):
                    self._without_bots[game_id] = None
                    while len(self._without_bots) > WITHOUT_BOTS_CACHE:
                        self._without_bots.popitem(last=False)
                    return 0
                keep(self._levels, game_id, levels, WITHOUT_BOTS_CACHE)
                if all(levels):
                    self._bot_only[game_id] = None
                    while len(self._bot_only) > WITHOUT_BOTS_CACHE:
                        self._bot_only.popitem(last=False)
                loaded = await self.games.loader.load(game_id)
            if loaded.finished:
                self._forget(game_id)
                return 0
            due = [
                p.seat for p in loaded.game.pending(loaded.state) if p.seat < len(levels) and levels[p.seat]
            ]
            if not due:
                return 0
            seat = due[0]
            level = levels[seat]
            assert level is not None
            if not await claims_of(self.games.store).take("bot", game_id, loaded.version):
                return 0  # another process decides it (service/workers/claims.py), or the game moved on
            try:
                command = await self._decide(loaded, seat, level)
            except (StoreError, errors.ServiceError):
                raise
            except Exception as bug:  # a bot's bug must not stop the runner: leave the game until it moves
                log.error("bot_failed", game_id=game_id, seat=seat, level=level, **failure_fields(bug))
                return 0
            try:
                await self.games.commands.execute(
                    game_id,
                    seat,
                    msgspec.to_builtins(command),
                    if_match=loaded.version,
                    idempotency_key=f"bot-v{loaded.version}",
                )
            except errors.ServiceError as refused:
                # another process moved the game first (or answered this very decision): re-read
                failures += 1
                log.info("bot_move_refused", game_id=game_id, seat=seat, code=refused.code)
                continue
            self.moves += 1
            return 1
        return 0

    def _as_seen(self, latest: FeedHeader | None) -> LoadedGame | None:
        """The game as this process cached it if that is the stored state as of ``latest``, its latest event
        the feed showed (after this process's own append, usually); None to read it from the store."""
        return None if latest is None else self.games.loader.held_as_of(latest)

    def _forget(self, game_id: str) -> None:
        """Forget what is kept of a game that is over (or gone): its kind and its seats' levels."""
        self._bot_only.pop(game_id, None)
        self._levels.pop(game_id, None)

    async def _decide(self, loaded: LoadedGame, seat: int, level: str) -> Command:
        """The bot's command from its seat's redacted history and legal list, searched in a worker thread."""
        bot_kit = kit(loaded.game.name)
        key = (loaded.game_id, seat)
        knowledge = self._known.pop(key, None) or Knowledge(bot_kit, seat)
        if knowledge.events < loaded.version:
            newer = await self.games.store.read_stream(loaded.game_id, after=knowledge.events)
            knowledge.see(self.games.loader.decode(loaded.game, recorded) for recorded in newer)
        self._known[key] = knowledge
        while len(self._known) > KNOWLEDGE_CACHE:
            self._known.popitem(last=False)
        legal = loaded.legal(seat)  # what the API lists for that seat
        seed = f"{self.secret}:{loaded.game_id}:{seat}:v{loaded.version}"
        budget = self.budget
        deadline = time.monotonic() + (budget.seconds or 0.0)

        def stop() -> bool:
            return budget.seconds is not None and time.monotonic() > deadline

        chosen: Level = next(known for known in LEVELS if known == level)

        def think() -> Command:
            return choose(bot_kit, knowledge.state, seat, legal, chosen, seed, budget, stop)

        return await asyncio.to_thread(think)
