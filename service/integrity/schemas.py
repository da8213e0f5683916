"""The audit report and the export document: a finished game in one file that an auditor verifies offline."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from domain.core import Result, ScoreSheet, TimeControl
from service.integrity.signing import GameSignature


class Seat(msgspec.Struct, frozen=True, kw_only=True):
    """A seat and its player's name."""

    seat: int
    name: str
    bot: bool = False


class SeedReveal(msgspec.Struct, frozen=True, kw_only=True):
    """A finished game's seed, its commitment, and whether the seed matches it: SHA-256(seed) equals the
    commitment, or for a commit-reveal game (``server_seed`` and ``entropies`` given) SHA-256(server_seed)
    does and the seed is the server's half mixed with the seats' entropies (docs/audit.md)."""

    seed: str
    commitment: str
    matches: bool
    server_seed: str | None = None
    entropies: list[str] | None = None


class AuditReport(msgspec.Struct, frozen=True, kw_only=True):
    """The audit of a game: hash chain, replay, set-up re-derived from the seed (finished games only)."""

    game_id: str
    status: str
    version: int
    ok: bool
    chain_ok: bool
    head_hash: str | None
    replay_ok: bool
    setup_ok: bool | None
    seed: SeedReveal | None
    problems: list[str]
    moves_ok: bool | None = None  # every move re-decided to exactly its stored events; None: not re-checked
    moves_checked: int = 0  # how many moves were re-decided
    notes: list[str] = []  # what the audit could not check, and why


EXPORT_FORMAT = "bazaar-games/game-export"
EXPORT_FORMAT_VERSION = 4  # 2: each move's command (``command``), the keyed chain (``chain_keyed``);
# 3: the parts of a commit-reveal seed (``server_seed``, ``entropies``); 4: the service's signature of the
# finished game (``signature``) and whether its moves' commands were stored (``commands_recorded``)
READABLE_EXPORT_VERSIONS = (1, 2, 3, 4)


class ExportedCommand(msgspec.Struct, frozen=True, kw_only=True):
    """The command that produced an event and the ones after it up to the next command: who sent it and
    its body, as the game's command decoder reads it."""

    seat: int
    command: Any


class ExportedEvent(msgspec.Struct, frozen=True, kw_only=True):
    """An event as stored, with its chained hash: ``hash`` = SHA-256(previous event's hash, or 32 zero bytes
    || "<game_id>\\n<version>\\n<type>\\n<schema_version>\\n" || ``data`` as compact UTF-8 JSON: no
    whitespace, keys in the order given)."""

    version: int
    type: str
    schema_version: int
    recorded_at: datetime
    data: Any
    hash: str
    command: ExportedCommand | None = None  # on the first event of each move; None for opening events


class GameExport(msgspec.Struct, frozen=True, kw_only=True):
    """A finished game in one self-contained document: everything an auditor needs to re-verify it offline
    (``python -m service verify FILE``): seats, options, the revealed seed and its commitment, every event
    as stored with its chained hash, the head hash, the result and the score sheet. No seat tokens."""

    format: str = EXPORT_FORMAT
    format_version: int = EXPORT_FORMAT_VERSION
    game_id: str
    game: str
    created_at: datetime
    finished_at: datetime
    seats: list[Seat]
    options: dict[str, Any]
    tournament: str | None = None
    rated: bool = False
    seed: str
    seed_commitment: str
    # a commit-reveal seed (lobby games): the server's committed half and the seats' entropies in seat
    # order; seed = mixed_seed(server_seed, entropies) and SHA-256(server_seed) = seed_commitment
    server_seed: str | None = None
    entropies: list[str] | None = None
    version: int
    head_hash: str
    chain_keyed: bool = (
        False  # hashes keyed with SHA-256("bazaar-games/chain-key" 0x00 || seed); docs/audit.md
    )
    events: list[ExportedEvent]
    result: Result
    scoresheet: ScoreSheet
    clock: TimeControl | None = None  # a timed game's clock as created: part of its set-up
    # false only for a game played before commands were stored (its moves cannot be re-decided); a document
    # of format_version 2 or later that says true (or leaves it out) must carry every move's command
    commands_recorded: bool = True
    # the service's signature of the finished game's facts (service/integrity/audit.py signed_facts; docs/audit.md):
    # null in documents before format_version 4, which therefore prove nothing about who played
    signature: GameSignature | None = None
