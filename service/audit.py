"""A game's audit as pure checks, one implementation for the online audit (``GET /audit``) and the offline
verification of an export (``python -m service verify FILE``): hash chain, replay, status, the seed against
its commitment, the opening events re-derived from the seed, and (offline) the result and score sheet.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import msgspec

from domain.core import Event, Game, GameConfig, Rng, fold
from domain.registry import all_games
from eventstore import ChainCheck, Upcasters, check_chain, upcast
from service.models import EXPORT_FORMAT, EXPORT_FORMAT_VERSION, GameExport
from service.tokens import seed_commitment


@dataclass(frozen=True)
class Reveal:
    """What a finished game discloses: its seed, the commitment published at creation, and its set-up
    (the players' names in seat order and the options as stored)."""

    seed: str
    commitment: str
    players: Sequence[str]
    options: Mapping[str, Any] | None


@dataclass(frozen=True)
class Findings:
    """The outcome of the checks; ``problems`` lists every mismatch found, most fundamental first."""

    chain: ChainCheck
    replay_ok: bool
    setup_ok: bool | None
    seed_matches: bool | None
    state: Any = None  # the replayed final state (None if the replay failed)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every check passed."""
        return not self.problems


def game_config(game: Game[Any], players: Sequence[str], options: Mapping[str, Any] | None) -> GameConfig:
    """The set-up a game was created with, from its stored players and options (msgspec.ValidationError if
    the options do not fit the game)."""
    return GameConfig(players=tuple(players), options=msgspec.convert(dict(options or {}), game.options_type))


def audit_events(
    game: Game[Any],
    chain: ChainCheck,
    bodies: Sequence[tuple[int, bytes]],
    finished: bool,
    reveal: Reveal | None,
) -> Findings:
    """Check a history: ``chain`` (the hash chain recomputed over the stored bytes), ``bodies`` (each event's
    version and its JSON body at the current schema) replayed through the game, the replay's status against
    the stored one, and with ``reveal`` the seed against its commitment and the opening events against
    ``setup`` drawn from ``Rng(seed, "setup")``."""
    problems: list[str] = []
    if not chain.ok:
        problems.append(f"hash chain broken at version {chain.first_bad_version}: {chain.detail}")
    replay_ok = True
    state: Any = None
    events: list[Event] = []
    decoder = msgspec.json.Decoder(game.event_type)
    try:
        events = [decoder.decode(body) for _, body in bodies]
        state = fold(game, events)
    except Exception as exc:  # an auditor wants the failure reported, not a crash
        replay_ok = False
        problems.append(f"replay failed: {type(exc).__name__}")
    if [version for version, _ in bodies] != list(range(1, len(bodies) + 1)):
        replay_ok = False
        problems.append("versions are not 1..n")
    if state is not None and game.is_over(state) != finished:
        replay_ok = False
        problems.append("replayed status differs from the stored status")
    setup_ok: bool | None = None
    seed_matches: bool | None = None
    if reveal is not None:
        seed_matches = seed_commitment(reveal.seed) == reveal.commitment
        if not seed_matches:
            problems.append("the revealed seed does not match the published commitment")
        try:
            config = game_config(game, reveal.players, reveal.options)
            game.validate_config(config)
            expected = game.setup(config, Rng(reveal.seed, "setup"))
        except Exception as exc:  # players or options no game can be set up with: a finding, not a crash
            setup_ok = False
            problems.append(f"the game cannot be set up with these players and options: {exc}")
        else:
            setup_ok = events[: len(expected)] == expected
            if not setup_ok:
                problems.append("the opening events do not follow from the revealed seed")
    return Findings(
        chain=chain,
        replay_ok=replay_ok,
        setup_ok=setup_ok,
        seed_matches=seed_matches,
        state=state if replay_ok else None,
        problems=problems,
    )


class NotAnExport(ValueError):
    """The document is not a game export this version of the service can read."""


class _Header(msgspec.Struct, kw_only=True):
    """The fields that say which document this is (the rest is read once they are known)."""

    format: Any = None
    format_version: Any = None


def read_export(document: bytes) -> GameExport:
    """Parse an export document (NotAnExport, saying why, if it is not one)."""
    try:
        header = msgspec.json.decode(document, type=_Header)
    except msgspec.DecodeError as exc:
        raise NotAnExport(f"not a JSON object: {exc}") from None
    if header.format != EXPORT_FORMAT:
        raise NotAnExport(f"not a game export (format is not {EXPORT_FORMAT!r})")
    if header.format_version != EXPORT_FORMAT_VERSION:
        raise NotAnExport(
            f"format_version {header.format_version!r} is not supported (this verifier reads "
            f"{EXPORT_FORMAT_VERSION})"
        )
    try:
        return msgspec.json.decode(document, type=GameExport)
    except msgspec.DecodeError as exc:
        raise NotAnExport(f"malformed export: {exc}") from None


def verify_export(
    export: GameExport, games: Mapping[str, Game[Any]], upcasters: Upcasters | None = None
) -> Findings:
    """Re-verify an exported finished game without a database: the audit's checks over the exported events
    (their hashes recomputed from ``data`` re-encoded as compact JSON), then the result and the score sheet
    recomputed from the replay."""
    game = games.get(export.game)
    if game is None:
        raise NotAnExport(f"unknown game {export.game!r}")
    try:
        head_hash = bytes.fromhex(export.head_hash)
        rows = [
            (e.version, e.type, e.schema_version, msgspec.json.encode(e.data), bytes.fromhex(e.hash))
            for e in export.events
        ]
    except ValueError:
        raise NotAnExport("a hash is not hexadecimal") from None
    chain = check_chain(export.game_id, rows, (export.version, head_hash))
    bodies = [
        (version, upcast(upcasters or {}, type_, schema, data)[1]) for version, type_, schema, data, _ in rows
    ]
    names = [seat.name for seat in sorted(export.seats, key=lambda seat: seat.seat)]
    reveal = Reveal(export.seed, export.seed_commitment, names, export.options)
    findings = audit_events(game, chain, bodies, finished=True, reveal=reveal)
    if findings.state is None:
        return findings
    problems = list(findings.problems)
    if game.result(findings.state) != export.result:
        problems.append("the result does not follow from the events")
    if game.scoresheet(findings.state) != export.scoresheet:
        problems.append("the score sheet does not follow from the events")
    return replace(findings, problems=problems)


def verify_file(path: Path) -> int:
    """``python -m service verify FILE``: 0 and a one-line summary on stdout if the export verifies, else 1
    with the first mismatch (then any others) on stderr. FILE ``-`` reads standard input."""
    try:
        export = read_export(sys.stdin.buffer.read() if str(path) == "-" else path.read_bytes())
        findings = verify_export(export, all_games())
    except (OSError, NotAnExport) as exc:
        print(f"{path}: FAILED: {exc}", file=sys.stderr)
        return 1
    if not findings.ok:
        first, *others = findings.problems
        print(f"{path}: FAILED: {first}", file=sys.stderr)
        for problem in others:
            print(f"  also: {problem}", file=sys.stderr)
        return 1
    winners = ", ".join(export.seats[seat].name for seat in export.result.winners)
    print(
        f"{path}: OK: {export.game} game {export.game_id}, {len(export.events)} events, chain head "
        f"{export.head_hash[:16]}..., seed matches its commitment, opening and result re-derived; "
        f"winners: {winners}"
    )
    return 0
