"""The read side of a game: its detail as a seat sees it, its history, its state at a version, its score sheet.

Before a game is public every event is redacted by the game for the asking seat; once it is, events are
shown whole with their hashes (service/games/loading.py ``LoadedGame.public``).
"""

from __future__ import annotations

from typing import Any

from domain.core import Game, fold
from eventstore import RecordedEvent, StreamInfo
from service.games.clocks import clock_out, pending_out
from service.games.loading import ACTIVE, FINISHED, GameLoader, LoadedGame
from service.games.schemas import EventOut, GameDetail, ScoreSheetOut
from service.integrity.schemas import Seat
from service.integrity.signing import SignedHead, Signer
from service.runtime import errors


def seed_known_to_a_client(metadata: dict[str, Any]) -> bool:
    """Whether a client knows the game's seed, hence its chain key, while accounts it does not control hold
    seats: a lobby game whose creator chose the seed, a game of an account tournament whose organizer chose
    its seed (unrated). Hot-seat games and tournaments of {name} players are left out: their creator holds
    every seat's token anyway."""
    if not metadata.get("accounts"):
        return False
    return bool(metadata.get("seed_chosen") or (metadata.get("tournament") and not metadata.get("rated")))


class GameQueries:
    """Answers what a seat (or a spectator, ``seat`` None) may see of a game."""

    def __init__(self, loader: GameLoader, signer: Signer | None = None) -> None:
        self.loader = loader
        self.signer = signer  # signs the head shown with every view and command answer (None: unsigned)

    def envelope(
        self, loaded_game: Game[Any], recorded: RecordedEvent, seat: int | None, public: bool
    ) -> EventOut:
        """An event as ``seat`` may see it: whole (with its hash) once public, else redacted by the game."""
        event = self.loader.decode(loaded_game, recorded)
        if public:
            return EventOut(
                version=recorded.version,
                game=loaded_game.name,
                type=recorded.type,
                recorded_at=recorded.recorded_at,
                data=event,
                hash=recorded.hash.hex(),
            )
        return EventOut(
            version=recorded.version,
            game=loaded_game.name,
            type=recorded.type,
            recorded_at=recorded.recorded_at,
            data=loaded_game.redact(event, seat),
        )

    @staticmethod
    def seats(loaded: LoadedGame) -> list[Seat]:
        """The seats in order with their players' names and whether a bot plays them."""
        players: list[str] = loaded.info.metadata.get("players", [])
        bots: list[bool] = loaded.info.metadata.get("bots", [False] * len(players))
        return [
            Seat(seat=i, name=n, bot=bool(b)) for i, (n, b) in enumerate(zip(players, bots, strict=False))
        ]

    def detail(self, loaded: LoadedGame, seat: int | None) -> GameDetail:
        """The game as ``seat`` may see it, with who must act and the seat's legal commands."""
        game, state = loaded.game, loaded.state
        finished = loaded.finished
        return GameDetail(
            game_id=loaded.game_id,
            game=game.name,
            status=FINISHED if finished else ACTIVE,
            version=loaded.version,
            seats=self.seats(loaded),
            you=seat,
            view=loaded.view(seat),
            pending=pending_out(game, state),
            clock=clock_out(state),
            legal=loaded.legal(seat),
            result=loaded.result() if finished else None,
            seed_commitment=loaded.info.metadata.get("seed_commitment"),
            seed_chosen=bool(loaded.info.metadata.get("seed_chosen", False)),
            head=self.signed_head(loaded.game_id, loaded.version, loaded.head, loaded.info, finished),
        )

    def signed_head(
        self, game_id: str, version: int, head: bytes, info: StreamInfo, finished: bool
    ) -> SignedHead | None:
        """The game's head hash at ``version``, signed (None without a signer, and for a running game whose
        chain is not keyed, or keyed with a seed a client knows while other accounts hold seats: its hash
        would let anyone, or whoever chose the seed, test guesses of a hidden pick)."""
        if self.signer is None:
            return None
        if not finished and (not info.metadata.get("chain_keyed") or seed_known_to_a_client(info.metadata)):
            return None
        return self.signer.sign(game_id, version, head)

    async def history(
        self, game_id: str, seat: int | None, after: int = 0, limit: int | None = None
    ) -> tuple[LoadedGame, list[EventOut]]:
        """Events after version ``after``: whole once the game is finished, redacted for ``seat`` before."""
        loaded = await self.loader.load(game_id)
        records = await self.loader.store.read_stream(game_id, after=after, limit=limit, until=loaded.version)
        public = loaded.public
        return loaded, [self.envelope(loaded.game, r, seat, public) for r in records]

    async def state_at(self, game_id: str, seat: int | None, at: int) -> tuple[LoadedGame, Any]:
        """The view ``seat`` had right after version ``at`` (time travel)."""
        loaded = await self.loader.load(game_id)
        if at < 1 or at > loaded.version:
            raise errors.NotFound("no_such_version", f"version must be within 1..{loaded.version}")
        records = await self.loader.store.read_stream(game_id, until=at)
        state = fold(loaded.game, (self.loader.decode(loaded.game, r) for r in records))
        return loaded, loaded.game.view(state, seat)

    async def scoresheet(self, game_id: str) -> ScoreSheetOut:
        """The game's score sheet so far (final once the game is over)."""
        loaded = await self.loader.load(game_id)
        sheet = loaded.game.scoresheet(loaded.state)
        return ScoreSheetOut(
            game_id=game_id,
            game=loaded.game.name,
            final=sheet.final,
            columns=list(sheet.columns),
            rows=[list(row) for row in sheet.rows],
            winners=list(sheet.winners),
        )
