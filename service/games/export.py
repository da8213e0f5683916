"""A game's public record: the audit report (checks in service/integrity/audit.py) and the export of a finished game.

A game's seed is secret while it runs (and, in a duplicate round, while any table of the round does):
only the audit's verdicts are shown then, and no export is given.
"""

from __future__ import annotations

import msgspec

from domain.core import TimeControl
from service.games.loading import ACTIVE, FINISHED, GameLoader, LoadedGame
from service.games.queries import GameQueries
from service.integrity.audit import (
    SEAT_HOLDER_CHANGED,
    SEED_MISMATCH,
    Move,
    Reveal,
    StoredEvent,
    audit_events,
    signed_facts,
)
from service.integrity.schemas import AuditReport, ExportedCommand, ExportedEvent, GameExport, SeedReveal
from service.runtime import errors


class GameExporter:
    """Audits games and exports finished ones."""

    def __init__(self, loader: GameLoader, queries: GameQueries) -> None:
        self.loader = loader
        self.queries = queries

    async def reveal(self, loaded: LoadedGame) -> Reveal | None:
        """A finished game's seed, published commitment and set-up (None while it runs, or while other tables
        of its duplicate round do: seeds are secret)."""
        if not loaded.public:
            return None
        return await self.secrets(loaded)

    async def secrets(self, loaded: LoadedGame) -> Reveal:
        """A game's seed (with a commit-reveal seed's parts), published commitment and set-up, for the
        service's own checks (never shown while the game runs)."""
        metadata = loaded.info.metadata
        entropies = metadata.get("seed_entropies")
        committed = None if entropies is None else await self.loader.keys.committed(loaded.game_id)
        return Reveal(
            seed=loaded.keys.seed,
            commitment=str(metadata.get("seed_commitment", "")),
            players=metadata.get("players", []),
            options=metadata.get("options"),
            clock=metadata.get("clock"),
            server_seed=None if committed is None else committed.secret,
            entropies=entropies,
        )

    async def audit(self, game_id: str) -> AuditReport:
        """Recompute the hash chain and the fold, re-derive the opening and re-decide every move with the
        seed (running games too: only the verdicts are shown); a finished game's seed is revealed."""
        loaded = await self.loader.load(game_id)
        chain = await self.loader.store.verify_chain(game_id)
        records = await self.loader.store.read_stream(game_id)
        reveal = await self.reveal(loaded)
        stored = [StoredEvent(version=r.version, body=r.data, move=r.cause) for r in records]
        findings = audit_events(
            loaded.game,
            chain,
            stored,
            loaded.finished,
            await self.secrets(loaded),
            commands_required=commands_stored(loaded),
        )
        problems = findings.problems + await self.kept_facts_problems(loaded)
        return AuditReport(
            game_id=game_id,
            status=FINISHED if loaded.finished else ACTIVE,
            version=loaded.version,
            ok=not problems,
            chain_ok=chain.ok,
            head_hash=chain.head if loaded.public else None,
            replay_ok=findings.replay_ok,
            setup_ok=findings.setup_ok,
            seed=None
            if reveal is None
            else SeedReveal(
                seed=reveal.seed,
                commitment=reveal.commitment,
                matches=bool(findings.seed_matches),
                server_seed=reveal.server_seed,
                entropies=None if reveal.entropies is None else list(reveal.entropies),
            ),
            problems=problems,
            moves_ok=findings.moves_ok,
            moves_checked=findings.moves_checked,
            notes=findings.notes,
        )

    async def kept_facts_problems(self, loaded: LoadedGame) -> list[str]:
        """The named failures of a game's facts kept beside its stream: every seat an account held at the
        start (the stream's write-once metadata) must still be held by that account, and a lobby game's
        published commitment (``seed_commits``, before anybody joined) must be the one its stream was
        started with (else somebody chose its seed)."""
        problems = []
        metadata = loaded.info.metadata
        seated = {seat: account for seat, account in enumerate(metadata.get("accounts") or []) if account}
        if self.loader.accounts is not None and seated:
            held = await self.loader.accounts.seat_holders(loaded.game_id)
            for seat in sorted(set(seated) | set(held)):
                if held.get(seat) != seated.get(seat):
                    problems.append(
                        f"{SEAT_HOLDER_CHANGED}: seat {seat} is held by another account than the one seated"
                        " when the game started"
                    )
        committed = await self.loader.keys.committed(loaded.game_id)
        if committed is not None and committed.commitment != metadata.get("seed_commitment"):
            problems.append(
                f"{SEED_MISMATCH}: the game was started with another seed than the one committed when it was"
                " listed"
            )
        return problems

    async def export(self, game_id: str) -> GameExport:
        """A finished game as one self-contained document an auditor re-verifies offline, signed by the
        service (409 while it runs: its seed is secret until the end)."""
        loaded = await self.loader.load(game_id)
        reveal = await self.reveal(loaded)
        if reveal is None:
            raise errors.Conflict(
                "game_not_finished",
                "only a finished game can be exported (of a duplicate round: once every table is): its seed is"
                " secret until the end",
            )
        records = await self.loader.store.read_stream(game_id, until=loaded.version, as_stored=True)
        export = GameExport(
            game_id=game_id,
            game=loaded.game.name,
            created_at=loaded.info.created_at,
            finished_at=records[-1].recorded_at,
            seats=self.queries.seats(loaded),
            options=dict(loaded.info.metadata.get("options") or {}),
            tournament=loaded.info.metadata.get("tournament"),
            rated=bool(loaded.info.metadata.get("rated", False)),
            seed=reveal.seed,
            seed_commitment=reveal.commitment,
            server_seed=reveal.server_seed,
            entropies=None if reveal.entropies is None else list(reveal.entropies),
            version=loaded.version,
            head_hash=records[-1].hash.hex(),
            chain_keyed=bool(loaded.info.metadata.get("chain_keyed", False)),
            events=[
                ExportedEvent(
                    version=r.version,
                    type=r.type,
                    schema_version=r.schema_version,
                    recorded_at=r.recorded_at,
                    data=msgspec.json.decode(r.data),
                    hash=r.hash.hex(),
                    command=None if r.cause is None else exported_command(r.cause),
                )
                for r in records
            ],
            result=loaded.result(),
            scoresheet=loaded.game.scoresheet(loaded.state),
            clock=None if reveal.clock is None else msgspec.convert(reveal.clock, TimeControl),
            commands_recorded=commands_stored(loaded) or any(r.cause is not None for r in records),
        )
        signer = self.queries.signer  # without one (tests of the rules alone) the export is unsigned
        if signer is None:
            return export
        return msgspec.structs.replace(export, signature=signer.sign_game(signed_facts(export)))


def commands_stored(loaded: LoadedGame) -> bool:
    """Whether the game was created since commands are stored with their events: its write-once metadata
    says its chain is keyed (both came with the audit revision), so every move must carry its command and
    none missing is a game played before they were stored (docs/audit.md)."""
    return bool(loaded.info.metadata.get("chain_keyed", False))


def exported_command(cause: bytes) -> ExportedCommand:
    """A stored move as the export shows it."""
    try:
        move = msgspec.json.decode(cause, type=Move)
        return ExportedCommand(seat=move.seat, command=msgspec.json.decode(move.command))
    except msgspec.DecodeError:  # not written by this service: shown as no command, which fails verify
        return ExportedCommand(seat=-1, command=None)
