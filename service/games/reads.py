"""Where a read of a game goes: the hot standby's service when READ_DATABASE_URL is set, the primary's
otherwise, and the primary's whenever the standby cannot give what the client needs (docs/operations.md
"Read replicas").

Read-your-writes: a client that sends ``min_version`` (the version its own command answered) never gets an
older answer. A standby behind it is given a short while to replay everything the primary has flushed
(ReplicaStore.catch_up); still behind, the read goes to the primary; a version the primary does not hold
either is 409 ``version_not_reached``. An answer of the standby that may come from its lag (a game created
a moment ago is missing, a game just finished has no export yet, a duplicate round just completed is still
sealed: 404, 409, 403) is asked of the primary before it is given.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from eventstore.replica import ReplicaStore
from service.games.loading import LoadedGame
from service.games.service import GameService
from service.runtime import errors

T = TypeVar("T")

Read = Callable[[GameService], Awaitable[tuple[LoadedGame, T]]]


# what the standby may answer only because it has not replayed a recent commit
_MAYBE_LAGGING = (errors.NotFound, errors.Conflict, errors.Forbidden)


def reads_over(primary: GameService, replica: ReplicaStore | None) -> GameReads:
    """The reads of games: the primary's alone, or with ``replica`` a GameService over the standby beside it
    (the keys, immutable and cached, and the accounts stay the primary's: one read per game and process)."""
    if replica is None:
        return GameReads(primary)
    reader = GameService(
        replica, primary.keys, primary.games, accounts=primary.accounts, signer=primary.signer
    )
    return GameReads(primary, reader, replica.catch_up)


class GameReads:
    """The reads of games: on ``replica`` (a GameService over the standby's store) when there is one, on
    ``primary`` when the standby is behind the client or does not know the game."""

    def __init__(
        self,
        primary: GameService,
        replica: GameService | None = None,
        catch_up: Callable[[], Awaitable[bool]] | None = None,
    ) -> None:
        """Read ``replica`` (None: the primary only); ``catch_up`` waits, bounded, until the standby has
        replayed every commit answered so far (False if it has not)."""
        self.primary = primary
        self.replica = replica
        self._catch_up = catch_up

    @property
    def live(self) -> GameService:
        """The service live streams read: the standby's (woken by the primary's NOTIFYs, fenced by LSN)."""
        return self.replica or self.primary

    async def read(self, game_id: str, min_version: int, read: Read[T]) -> tuple[LoadedGame, T]:
        """``read`` on the standby, or on the primary when the standby's game is older than ``min_version``
        (after a bounded wait for it) or its answer may come from its lag; 409 ``version_not_reached`` when
        the primary's game is older than ``min_version`` too."""
        if self.replica is not None:
            answer = await _on_standby(self.replica, read)
            if answer is not None and _fresh(answer[0], min_version):
                return answer
            if answer is not None and self._catch_up is not None and await self._catch_up():
                answer = await _on_standby(self.replica, read)
                if answer is not None and _fresh(answer[0], min_version):
                    return answer
        answer = await read(self.primary)
        if not _fresh(answer[0], min_version):
            raise errors.Conflict(
                "version_not_reached",
                f"min_version is {min_version}, but this game is at version {answer[0].version}",
            )
        return answer


async def _on_standby(replica: GameService, read: Read[T]) -> tuple[LoadedGame, T] | None:
    """``read`` on the standby's service; None when its answer is an error its lag may explain."""
    try:
        return await read(replica)
    except _MAYBE_LAGGING:
        return None


def _fresh(loaded: LoadedGame, min_version: int) -> bool:
    """Whether ``loaded`` is at ``min_version`` or later (0: any version is)."""
    return loaded.version >= min_version
