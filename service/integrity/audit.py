"""A game's audit as pure checks, one implementation for the online audit (``GET /audit``) and the offline
verification of an export (``python -m service verify FILE``): hash chain, replay, status, the seed against
its commitment, the opening events re-derived from the seed, and (offline) the result and score sheet.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import msgspec

from domain.clock import stored_command_type
from domain.core import Event, Game, GameConfig, Rejected, Rng, TimeControl, fold
from domain.registry import all_games
from eventstore.protocol import ChainCheck, Upcasters, check_chain, upcast
from service.integrity.schemas import EXPORT_FORMAT, READABLE_EXPORT_VERSIONS, GameExport
from service.integrity.seeds import mixed_seed
from service.integrity.signing import SignedHead, key_id, verify_game, verify_head
from service.integrity.tokens import seed_commitment


@dataclass(frozen=True)
class Reveal:
    """What a finished game discloses: its seed, the commitment published at creation, and its set-up
    (the players' names in seat order and the options as stored)."""

    seed: str
    commitment: str
    players: Sequence[str]
    options: Mapping[str, Any] | None
    clock: Mapping[str, Any] | None = None  # a timed game's TimeControl as stored
    server_seed: str | None = None  # a commit-reveal seed's parts (service/integrity/seeds.py), else None
    entropies: Sequence[str] | None = None


# The named failures an audit reports (docs/audit.md lists what each means); every problem is
# "<name>: <what was found>".
CHAIN_BROKEN = "chain_broken"  # an event does not match its hash, or versions have a gap
HISTORY_TRUNCATED = "history_truncated"  # fewer events than the stream's row (or a receipt) counts
HEAD_MISMATCH = "head_mismatch"  # the stream's row disagrees with its events otherwise
REPLAY_FAILED = "replay_failed"  # an event cannot be read as one of the game's events
STATUS_MISMATCH = "status_mismatch"  # finished or not, the events say otherwise than the stored status
SEED_MISMATCH = "seed_mismatch"  # the seed does not match its published commitment
SETUP_MISMATCH = "setup_mismatch"  # the opening events are not the ones the seed deals
SEAT_HOLDER_CHANGED = (
    "seat_holder_changed"  # a seat is held by another account than the one seated at the start
)
UNDECIDED_EVENT = "undecided_event"  # an event that no stored command produced
BAD_COMMAND = "bad_command"  # a stored command that is not one of the game's commands
ILLEGAL_MOVE = "illegal_move"  # a stored command the rules refuse on the state before it (e.g. wrong seat)
EVENTS_DIFFER = "events_differ"  # a command's stored events are not the ones it produces (rigged roll, score)
MISSING_EVENTS = "missing_events"  # a command's events stop short of what it produces
RESULT_MISMATCH = "result_mismatch"  # the document's result or score sheet is not the replay's
RECEIPT_CONTRADICTED = "receipt_contradicted"  # a signed head kept by a client does not match the history
RECEIPT_INVALID = "receipt_invalid"  # a receipt whose signature does not verify
RECEIPT_FOREIGN = "receipt_foreign"  # a receipt signed by another key than the service's: no evidence
UNSIGNED = "unsigned"  # an export without the service's signature (before format_version 4): proves nothing
SIGNATURE_INVALID = "signature_invalid"  # the signature does not cover the document's facts (one changed)
SIGNATURE_FOREIGN = "signature_foreign"  # the export is signed by another key than the one the auditor gave

CHAIN_KEY_CONTEXT = b"bazaar-games/chain-key\x00"
LEGACY_NOTE = (
    "moves not re-checked: this game was played before commands were stored with their events, so its"
    " events are chained, replayed and its opening re-derived, but no move is re-decided"
)


def signed_facts(export: GameExport) -> dict[str, Any]:
    """The facts of a finished game the service signs into its export (docs/audit.md "The service's
    signature"): which game and rules, who sat where, how long its history is and its head hash (hence every
    event, the seed through the chain key and the opening), the commitment, whether its commands were stored,
    its result, and its tournament and rating labels."""
    return {
        "game_id": export.game_id,
        "game": export.game,
        "seats": [{"seat": s.seat, "name": s.name, "bot": s.bot} for s in export.seats],
        "version": export.version,
        "head_hash": export.head_hash,
        "chain_keyed": export.chain_keyed,
        "seed_commitment": export.seed_commitment,
        "commands_recorded": export.commands_recorded,
        "result": msgspec.to_builtins(export.result),
        "tournament": export.tournament,
        "rated": export.rated,
    }


def service_keys(public_key: str | Sequence[str] | None) -> tuple[str, ...]:
    """The keys an auditor gave as the service's (its current one and any retired by a rotation,
    docs/operations.md), lower-cased; none given: empty."""
    given = [public_key] if isinstance(public_key, str) else list(public_key or ())
    return tuple(key.lower() for key in given)


def signature_problem(export: GameExport, public_key: str | Sequence[str] | None = None) -> str | None:
    """The named failure of an export's signature (None if the service's signature covers its facts): none
    at all, one by a key not among ``public_key`` (the service's published keys, when the auditor gives
    them), or one that does not verify over the facts as the document states them."""
    signed = export.signature
    if signed is None or export.format_version < 4:
        return (
            f"{UNSIGNED}: the export carries no signature of the service (format_version"
            f" {export.format_version}), so nothing binds its game id, seats and result to the service;"
            " export the game again"
        )
    keys = service_keys(public_key)
    if keys and signed.public_key.lower() not in keys:
        return (
            f"{SIGNATURE_FOREIGN}: the export is signed by key {_key_id(signed.public_key)}, not by the"
            f" service's key {_key_ids(keys)}"
        )
    if not verify_game(signed_facts(export), signed):
        return (
            f"{SIGNATURE_INVALID}: the service's signature does not cover this document's game id, seats,"
            " version, head hash or result (one of them was changed after it was signed)"
        )
    return None


def _key_id(public_key: str) -> str:
    """A key's id for messages (the key itself, if it is not hexadecimal)."""
    try:
        return key_id(public_key)
    except ValueError:
        return repr(public_key)


def _key_ids(public_keys: Sequence[str]) -> str:
    """Keys' ids for messages: ``a``, ``a or b``."""
    return " or ".join(_key_id(key) for key in public_keys)


def chain_key(seed: str) -> bytes:
    """A game's chain key: SHA-256("bazaar-games/chain-key" || 0x00 || UTF-8(seed)); secret while the seed is."""
    return hashlib.sha256(CHAIN_KEY_CONTEXT + seed.encode()).digest()


class Move(msgspec.Struct, frozen=True, kw_only=True):
    """A stored command (the cause of an append): the seat that sent it and the command's JSON body."""

    seat: int
    command: msgspec.Raw


def encode_move(seat: int, command: Any) -> bytes:
    """The stored form of an accepted command: ``{"seat": <seat>, "command": <the command's JSON>}``."""
    return msgspec.json.encode({"seat": seat, "command": command})


@dataclass(frozen=True)
class StoredEvent:
    """An event as the audit reads it: version, JSON body (current schema) and its command, if it has one."""

    version: int
    body: bytes
    move: bytes | None = None


@dataclass(frozen=True)
class Findings:
    """The outcome of the checks; ``problems`` lists every mismatch found, most fundamental first, each
    "<failure name>: <detail>"; ``notes`` says what could not be checked."""

    chain: ChainCheck
    replay_ok: bool
    setup_ok: bool | None
    seed_matches: bool | None
    state: Any = None  # the replayed final state (None if the replay failed)
    problems: list[str] = field(default_factory=list)
    moves_ok: bool | None = None
    moves_checked: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every check passed."""
        return not self.problems

    @property
    def failures(self) -> list[str]:
        """The names of the failures found, in order."""
        return [problem.split(":", 1)[0] for problem in self.problems]


def game_config(
    game: Game[Any],
    players: Sequence[str],
    options: Mapping[str, Any] | None,
    clock: Mapping[str, Any] | None = None,
) -> GameConfig:
    """The set-up a game was created with, from its stored players, options and clock
    (msgspec.ValidationError if the options or the clock do not fit)."""
    return GameConfig(
        players=tuple(players),
        options=msgspec.convert(dict(options or {}), game.options_type),
        clock=None if clock is None else msgspec.convert(dict(clock), TimeControl),
    )


def seed_problem(reveal: Reveal) -> str | None:
    """The named failure of a seed against its commitment (None if it matches): SHA-256(seed) must be the
    commitment, or for a commit-reveal seed SHA-256(server_seed) must be, and the seed must be the server's
    half mixed with the seats' entropies."""
    if reveal.entropies is None:
        if seed_commitment(reveal.seed) != reveal.commitment:
            return f"{SEED_MISMATCH}: the seed does not match the published commitment"
        return None
    if reveal.server_seed is None or seed_commitment(reveal.server_seed) != reveal.commitment:
        return f"{SEED_MISMATCH}: the server's seed half does not match the commitment published at creation"
    if mixed_seed(reveal.server_seed, reveal.entropies) != reveal.seed:
        return f"{SEED_MISMATCH}: the seed is not the server's half mixed with the players' entropies"
    return None


def chain_problem(chain: ChainCheck) -> str | None:
    """The named failure of a hash chain check (None if it passed)."""
    if chain.ok:
        return None
    if chain.reason == "row_ahead":
        return f"{HISTORY_TRUNCATED}: {chain.detail} (events were deleted from its end)"
    if chain.reason in ("row_behind", "row_head", "row_missing"):
        return f"{HEAD_MISMATCH}: {chain.detail}"
    return f"{CHAIN_BROKEN}: at version {chain.first_bad_version}: {chain.detail}"


def recheck_moves(
    game: Game[Any], seed: str, opening: int, events: Sequence[Event], stored: Sequence[StoredEvent]
) -> tuple[int, str | None]:
    """Re-decide every stored command on the state before it with ``Rng(seed, "v<N>")`` (N the version
    before it) and require exactly the stored events after it, up to the next command; every event after
    the ``opening`` must be produced so. The number of moves re-decided and the first failure, if any."""
    state = fold(game, events[:opening])
    version, checked = opening, 0
    while version < len(stored):
        record = stored[version]
        if record.move is None:
            return checked, f"{UNDECIDED_EVENT}: version {record.version} was not produced by any command"
        try:
            move = msgspec.json.decode(record.move, type=Move)
            command = msgspec.json.decode(move.command, type=stored_command_type(game.command_type))
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            return checked, f"{BAD_COMMAND}: the command stored at version {record.version}: {exc}"
        try:
            produced = game.decide(state, move.seat, command, Rng(seed, f"v{version}"))
        except Rejected as refusal:
            return checked, (
                f"{ILLEGAL_MOVE}: the command of seat {move.seat} stored at version {record.version} is refused"
                f" on the state before it: {refusal.code} ({refusal.rule})"
            )
        if not produced:
            return checked, (
                f"{EVENTS_DIFFER}: the command of seat {move.seat} stored at version {record.version}"
                " produces no event"
            )
        end = version + len(produced)
        kept = list(events[version:end])
        caused_later = [r.version for r in stored[version + 1 : end] if r.move is not None]
        if len(kept) < len(produced) or caused_later:
            missing = caused_later[0] if caused_later else len(stored) + 1
            return checked, (
                f"{MISSING_EVENTS}: the command of seat {move.seat} stored at version {record.version}"
                f" produces {len(produced)} events, but version {missing} is not one of them"
            )
        for offset, (expected, found) in enumerate(zip(produced, kept, strict=True)):
            if expected != found:
                return checked, (
                    f"{EVENTS_DIFFER}: version {version + offset + 1} is not the event the command of seat"
                    f" {move.seat} stored at version {record.version} produces (a changed draw, score or"
                    " outcome)"
                )
        for event in produced:
            state = game.evolve(state, event)
        version, checked = end, checked + 1
    return checked, None


def audit_events(
    game: Game[Any],
    chain: ChainCheck,
    stored: Sequence[StoredEvent],
    finished: bool,
    reveal: Reveal | None,
    commands_required: bool = False,
) -> Findings:
    """Check a history: ``chain`` (the hash chain recomputed over the stored bytes), the events replayed
    through the game, the replay's status against the stored one, and with ``reveal`` (the seed: the
    service always has it, an offline verifier once the game is over) the seed against its commitment,
    the opening events against ``setup`` drawn from ``Rng(seed, "setup")``, and every move re-decided
    (recheck_moves). A history without any stored command (played before they were stored) gets a note
    saying its moves were not re-checked, unless ``commands_required`` (a document, or a game's metadata,
    that says its commands were stored); one with some but not all fails."""
    problems: list[str] = []
    notes: list[str] = []
    seed_matches: bool | None = None
    if reveal is not None:  # first: the chain key comes from the seed
        mismatch = seed_problem(reveal)
        seed_matches = mismatch is None
        if mismatch is not None:
            problems.append(mismatch)
    broken = chain_problem(chain)
    if broken:
        problems.append(broken)
    replay_ok = True
    state: Any = None
    events: list[Event] = []
    decoder = msgspec.json.Decoder(game.event_type)
    try:
        events = [decoder.decode(record.body) for record in stored]
        state = fold(game, events)
    except Exception as exc:  # an auditor wants the failure reported, not a crash
        replay_ok = False
        problems.append(f"{REPLAY_FAILED}: {type(exc).__name__}")
    if [record.version for record in stored] != list(range(1, len(stored) + 1)):
        replay_ok = False
        problems.append(f"{CHAIN_BROKEN}: versions are not 1..n")
    if state is not None and game.is_over(state) != finished:
        replay_ok = False
        problems.append(
            f"{STATUS_MISMATCH}: the events say the game is {'' if game.is_over(state) else 'not '}over"
        )
    setup_ok: bool | None = None
    moves_ok: bool | None = None
    checked = 0
    if reveal is not None:
        expected: list[Event] = []
        try:
            config = game_config(game, reveal.players, reveal.options, reveal.clock)
            game.validate_config(config)
            expected = game.setup(config, Rng(reveal.seed, "setup"))
        except Exception as exc:  # players or options no game can be set up with: a finding, not a crash
            setup_ok = False
            problems.append(
                f"{SETUP_MISMATCH}: the game cannot be set up with these players and options: {exc}"
            )
        else:
            setup_ok = events[: len(expected)] == expected
            if not setup_ok:
                problems.append(f"{SETUP_MISMATCH}: the opening events do not follow from the seed")
        if setup_ok and replay_ok:
            if not commands_required and all(record.move is None for record in stored):
                notes.append(LEGACY_NOTE)
            else:
                checked, failure = recheck_moves(game, reveal.seed, len(expected), events, stored)
                moves_ok = failure is None
                if failure is not None:
                    problems.append(failure)
    return Findings(
        chain=chain,
        replay_ok=replay_ok,
        setup_ok=setup_ok,
        seed_matches=seed_matches,
        state=state if replay_ok else None,
        problems=problems,
        moves_ok=moves_ok,
        moves_checked=checked,
        notes=notes,
    )


class NotAnExport(ValueError):
    """The document is not a game export this version of the service can read."""


class _Header(msgspec.Struct, kw_only=True):
    """The fields that say which document this is (the rest is read once they are known)."""

    format: Any = None
    format_version: Any = None
    status: Any = None  # a problem+json answer saved in place of an export (e.g. 409 game_not_finished)
    code: Any = None
    detail: Any = None


def read_export(document: bytes) -> GameExport:
    """Parse an export document (NotAnExport, saying why, if it is not one)."""
    try:
        header = msgspec.json.decode(document, type=_Header)
    except msgspec.DecodeError as exc:
        raise NotAnExport(f"not a JSON object: {exc}") from None
    if header.format != EXPORT_FORMAT:
        if isinstance(header.status, int) and isinstance(header.code, str):
            raise NotAnExport(
                f"not a game export: the server answered {header.status} {header.code}: {header.detail}"
            )
        raise NotAnExport(f"not a game export (format is not {EXPORT_FORMAT!r})")
    if header.format_version not in READABLE_EXPORT_VERSIONS:
        raise NotAnExport(
            f"format_version {header.format_version!r} is not supported (this verifier reads "
            f"{', '.join(map(str, READABLE_EXPORT_VERSIONS))})"
        )
    try:
        return msgspec.json.decode(document, type=GameExport)
    except msgspec.DecodeError as exc:
        raise NotAnExport(f"malformed export: {exc}") from None


def verify_export(
    export: GameExport,
    games: Mapping[str, Game[Any]],
    upcasters: Upcasters | None = None,
    public_key: str | Sequence[str] | None = None,
) -> Findings:
    """Re-verify an exported finished game without a database: the audit's checks over the exported events
    (their hashes recomputed from ``data`` re-encoded as compact JSON, keyed with the seed's chain key when
    ``chain_keyed``), every move re-decided from its exported command (required from format_version 2 on,
    unless the signed document says none were stored), the result and the score sheet recomputed from the
    replay, and last the service's signature over the game's facts (by one of ``public_key`` when given)."""
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
    key = chain_key(export.seed) if export.chain_keyed else b""
    chain = check_chain(export.game_id, rows, (export.version, head_hash), key)
    stored = [
        StoredEvent(
            version=version,
            body=upcast(upcasters or {}, type_, schema, data)[1],
            move=None if e.command is None else encode_move(e.command.seat, e.command.command),
        )
        for (version, type_, schema, data, _), e in zip(rows, export.events, strict=True)
    ]
    names = [seat.name for seat in sorted(export.seats, key=lambda seat: seat.seat)]
    clock = None if export.clock is None else msgspec.to_builtins(export.clock)
    reveal = Reveal(
        export.seed,
        export.seed_commitment,
        names,
        export.options,
        clock,
        export.server_seed,
        export.entropies,
    )
    required = export.format_version >= 2 and export.commands_recorded
    findings = audit_events(game, chain, stored, finished=True, reveal=reveal, commands_required=required)
    problems = list(findings.problems)
    if findings.state is not None:
        if game.result(findings.state) != export.result:
            problems.append(f"{RESULT_MISMATCH}: the result does not follow from the events")
        if game.scoresheet(findings.state) != export.scoresheet:
            problems.append(f"{RESULT_MISMATCH}: the score sheet does not follow from the events")
    unsigned = signature_problem(export, public_key)
    if unsigned is not None:
        problems.append(unsigned)
    return replace(findings, problems=problems)


def read_receipts(document: bytes) -> list[SignedHead]:
    """Signed heads a client kept: a JSON array, or one JSON value per line, of signed heads or of answers
    that carry one in ``head`` (game details, command answers), as saved (NotAnExport if unreadable)."""
    text = document.strip()
    try:
        values: list[Any] = (
            msgspec.json.decode(text)
            if text.startswith(b"[")
            else [msgspec.json.decode(line) for line in text.splitlines() if line.strip()]
        )
    except msgspec.DecodeError as exc:
        raise NotAnExport(f"receipts: not JSON: {exc}") from None
    heads = []
    for value in values:
        body = value.get("head", value) if isinstance(value, dict) else value
        if body is None:
            continue
        try:
            heads.append(msgspec.convert(body, SignedHead))
        except msgspec.ValidationError as exc:
            raise NotAnExport(f"receipts: not a signed head: {exc}") from None
    return heads


def check_receipts(
    export: GameExport, receipts: Sequence[SignedHead], public_key: str | Sequence[str] | None = None
) -> list[str]:
    """The problems a client's kept signed heads find in an export: each receipt of this game must be signed
    by a key of the service (one of ``public_key`` when given, the current key and those a rotation retired;
    else the key that signed the export) and name a version
    the export has, whose hash is the receipt's head. A receipt past the export's end means its tail was
    deleted; another hash means its history was rewritten. A receipt signed by another key is foreign: it
    says nothing of what this service signed."""
    problems = []
    hashes = {event.version: event.hash for event in export.events}
    keys = service_keys(public_key) or service_keys(
        None if export.signature is None else export.signature.public_key
    )
    for receipt in receipts:
        if receipt.game_id != export.game_id:
            continue
        if not verify_head(receipt):
            problems.append(
                f"{RECEIPT_INVALID}: the receipt for version {receipt.version} carries no valid signature"
            )
        elif keys and receipt.public_key.lower() not in keys:
            problems.append(
                f"{RECEIPT_FOREIGN}: the receipt for version {receipt.version} is signed by key"
                f" {_key_id(receipt.public_key)}, not by this service's key {_key_ids(keys)}: it proves"
                " nothing about this export"
            )
        elif receipt.version not in hashes:
            problems.append(
                f"{RECEIPT_CONTRADICTED}: the service signed version {receipt.version}, the export has"
                f" {len(export.events)} events (its history was cut)"
            )
        elif hashes[receipt.version] != receipt.head_hash:
            problems.append(
                f"{RECEIPT_CONTRADICTED}: the service signed another head for version {receipt.version}"
                " (its history was rewritten)"
            )
    return problems


def verify_file(
    path: Path, receipts: Path | None = None, public_key: str | Sequence[str] | None = None
) -> int:
    """``python -m service verify FILE [--receipts R] [--public-key K ...]``: 0 and a one-line summary on stdout if
    the export verifies (and contradicts none of the signed heads in R), else 1 with the first mismatch
    (then any others) on stderr. FILE ``-`` reads standard input."""
    kept: list[SignedHead] | None = None
    try:
        export = read_export(sys.stdin.buffer.read() if str(path) == "-" else path.read_bytes())
        findings = verify_export(export, all_games(), public_key=public_key)
        if receipts is not None:
            kept = read_receipts(receipts.read_bytes())
            findings = replace(
                findings, problems=findings.problems + check_receipts(export, kept, public_key)
            )
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
    moves = f"{findings.moves_checked} moves re-decided" if findings.moves_ok else "moves NOT re-checked"
    assert export.signature is not None  # else the findings name it unsigned
    signer = f"key {_key_id(export.signature.public_key)}"
    signer = f"the given {signer}" if public_key else f"{signer} (compare: GET /v1/signing-key)"
    held = "" if kept is None else f"; {receipts_held(export, kept)}"
    print(
        f"{path}: OK: {export.game} game {export.game_id}, {len(export.events)} events, chain head "
        f"{export.head_hash[:16]}..., seed matches its commitment, opening, {moves}, result re-derived, "
        f"signed by {signer}{held}; winners: {winners}"
    )
    for note in findings.notes:
        print(f"  note: {note}")
    return 0


def receipts_held(export: GameExport, kept: Sequence[SignedHead]) -> str:
    """What the kept receipts held the export to, for verify's summary: how many are of this game (each one
    agrees, or verify failed), so that a file of another game's receipts is not mistaken for a check."""
    mine = sum(1 for receipt in kept if receipt.game_id == export.game_id)
    if mine == 0:
        return f"none of the receipts given ({len(kept)}) is of this game: nothing was held to them"
    agree = "1 kept receipt of this game agrees" if mine == 1 else f"{mine} kept receipts of this game agree"
    others = len(kept) - mine
    return agree if others == 0 else f"{agree} ({others} of other games left aside)"
