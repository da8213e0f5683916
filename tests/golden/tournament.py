"""Record a seeded tournament (``domain/tournament``) as JSON lines: every command the service sends for the
organizer, the events it decided, each table's game and the standings after each round.

A tournament has no seats and no view per seat (``domain/tournament/__init__.py``), so its file has a format
of its own (one JSON document per line):

- line 1: ``{"tournament", "game", "seed", "players", "rounds", "commands", "standings"}`` (the final
  standings);
- each command: ``{"step", "command", "events"}``, in the order the service sends them: create, then per
  round the organizer's withdrawals and late entries, seat, attach the games, and report each game;
- before each report, the table's game: ``{"round", "table", "game_id", "commands", "result"}``, played to
  its end by random legal play from the table's seed (``tests.support.random_play``), its audit head the
  SHA-256 of its events' JSON (the store's hash chain is not the domain's);
- after each round: ``{"round", "standings"}``;
- last: ``{"step": "end", "overview", "results"}``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from domain.core import Command, Event, Rng
from domain.registry import all_games
from domain.tournament import (
    TOURNAMENT,
    AttachGames,
    CreateTournament,
    EnterPlayer,
    RecordGame,
    RoundSeated,
    SeatNextRound,
    WithdrawPlayer,
    seating_rng,
)
from tests.support.random_play import play_randomly

FOLDER = Path(__file__).parent


@dataclass(frozen=True)
class TournamentRecording:
    """One recorded tournament: its game, players, rounds and seed, and who withdraws or enters when."""

    game: str
    players: tuple[str, ...]
    rounds: int
    seed: str
    withdraw: tuple[tuple[int, str], ...] = ()  # (round, name): withdrawn before that round is seated
    enter: tuple[tuple[int, str], ...] = ()  # (round, name): enters before that round is seated

    @property
    def path(self) -> Path:
        """Where the golden file lives."""
        return FOLDER / f"tournament_{self.game}_{len(self.players)}p_playthrough.jsonl"


TOURNAMENT_RECORDINGS = (
    # Swiss rounds of Basari with a withdrawal before round 2 and a late entry before round 3
    TournamentRecording(
        "basari",
        ("ana", "ben", "cai", "dua", "eli", "fay", "gus"),
        rounds=3,
        seed="golden-tournament-basari",
        withdraw=((2, "cai"),),
        enter=((3, "hal"),),
    ),
)


def _line(document: Any) -> bytes:
    """One compact JSON line."""
    return msgspec.json.encode(document) + b"\n"


def record_tournament(recording: TournamentRecording) -> bytes:
    """The golden file's content as the code plays the tournament today."""
    game = all_games()[recording.game]
    state = TOURNAMENT.initial()
    body: list[bytes] = []
    step = 0

    def send(command: Command, rng: Rng) -> list[Event]:
        """Decide ``command`` on the tournament as it stands, fold its events and record both."""
        nonlocal state, step
        step += 1
        events = TOURNAMENT.decide(state, command, rng)
        for event in events:
            state = TOURNAMENT.evolve(state, event)
        body.append(_line({"step": step, "command": command, "events": events}))
        return events

    create = CreateTournament(
        name=f"golden {recording.game}",
        game=recording.game,
        players=recording.players,
        rounds=recording.rounds,
        min_players=game.min_players,
        max_players=game.max_players,
        seed=recording.seed,
    )
    send(create, Rng(recording.seed, "create"))
    while not state.over():
        number = len(state.rounds) + 1
        for name in (name for at, name in recording.withdraw if at == number):
            send(WithdrawPlayer(name=name), Rng(recording.seed, f"withdraw-{name}"))
        for name in (name for at, name in recording.enter if at == number):
            send(EnterPlayer(name=name), Rng(recording.seed, f"enter-{name}"))
        seated = next(e for e in send(SeatNextRound(), seating_rng(state)) if isinstance(e, RoundSeated))
        ids = tuple(f"round-{seated.round}-table-{table.table}" for table in seated.tables)
        send(AttachGames(round=seated.round, game_ids=ids), Rng(recording.seed, f"attach-{seated.round}"))
        options = msgspec.convert(state.options or {}, game.options_type)
        for table, game_id in zip(seated.tables, ids, strict=True):
            played = play_randomly(game, len(table.players), table.seed, options, names=table.players)
            result = game.result(played.state)
            body.append(
                _line(
                    {
                        "round": seated.round,
                        "table": table.table,
                        "game_id": game_id,
                        "commands": played.commands,
                        "result": result,
                    }
                )
            )
            head = hashlib.sha256(msgspec.json.encode(played.events)).hexdigest()
            report = RecordGame(
                round=seated.round,
                table=table.table,
                game_id=game_id,
                ranks=result.ranks,
                scores=result.scores,
                audit_head=head,
            )
            send(report, Rng(recording.seed, f"report-{game_id}"))
        body.append(_line({"round": seated.round, "standings": TOURNAMENT.standings(state)}))
    body.append(
        _line({"step": "end", "overview": TOURNAMENT.overview(state), "results": TOURNAMENT.results(state)})
    )
    head = {
        "tournament": f"golden {recording.game}",
        "game": recording.game,
        "seed": recording.seed,
        "players": recording.players,
        "rounds": recording.rounds,
        "commands": step,
        "standings": TOURNAMENT.standings(state),
    }
    return _line(head) + b"".join(body)
