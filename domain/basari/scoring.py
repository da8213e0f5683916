"""Basari's scoring: the end of a stage (B-9), the game's result (B-10) and the score sheet (B-11)."""

from __future__ import annotations

from typing import Literal

from domain.basari.components import COLOURS, COMPONENTS, ColourPoints, Gems
from domain.basari.events import StageLine, StageScored
from domain.basari.state import State
from domain.core import Result, ScoreSheet

__all__ = ["is_over", "result", "score_stage", "sheet", "winners"]


def is_over(state: State) -> bool:
    """B-10: the game is over once the third stage is scored."""
    return state.phase == "over"


def score_stage(state: State, reason: Literal["workers", "pile"]) -> StageScored:
    """B-9: colour majorities (ties split, rounded down), their returns, then the workers bonus."""
    seats = list(state.seats)
    majority: dict[int, dict[str, int]] = {seat: {} for seat in seats}
    returned: dict[int, dict[str, int]] = {seat: {} for seat in seats}
    for index, colour in enumerate(COLOURS):
        counts = [state.players[seat].gems[index] for seat in seats]
        most = max(counts, default=0)
        if most == 0:
            continue  # nobody owns the colour: nobody scores it
        holders = [seat for seat in seats if counts[seat] == most]
        points = getattr(COMPONENTS.majority_points, colour)
        if len(holders) == 1:
            # the single majority scores it all and returns half its gems, rounded up
            majority[holders[0]][colour] = points
            returned[holders[0]][colour] = (most + 1) // 2
        else:
            # a tie splits the points evenly, rounded down; each returns 2 (all, if it has fewer)
            for seat in holders:
                majority[seat][colour] = points // len(holders)
                returned[seat][colour] = min(COMPONENTS.tie_return, most)
    lines = []
    for seat in seats:
        player = state.players[seat]
        workers = player.workers()
        # the workers bonus goes to everybody at the threshold, never split
        bonus = COMPONENTS.workers_bonus if workers >= COMPONENTS.stage_end_workers else 0
        colour_points = ColourPoints(**majority[seat])
        gained = colour_points.total() + bonus
        lines.append(
            StageLine(
                seat=seat,
                action_b=player.action_b,
                majority=colour_points,
                returned=Gems(**returned[seat]),
                workers=workers,
                workers_bonus=bonus,
                stage_total=player.action_b + gained,
                running_total=player.points + gained,
            )
        )
    return StageScored(stage=state.stage, reason=reason, lines=tuple(lines))


def winners(scores: tuple[int, ...]) -> tuple[int, ...]:
    """B-10: every seat with the most points (ties give several winners)."""
    best = max(scores, default=0)
    return tuple(seat for seat, score in enumerate(scores) if score == best)


def result(state: State) -> Result:
    """B-10: scores, ranks (1 is best, equal points share a rank) and the winners."""
    scores = tuple(player.points for player in state.players)
    ranks = tuple(1 + sum(other > score for other in scores) for score in scores)
    return Result(scores=scores, ranks=ranks, winners=winners(scores))


_STAGE_COLUMNS = (
    "action B",
    "red",
    "yellow",
    "green",
    "blue",
    "workers bonus",
    "stage total",
    "running total",
)


def sheet(state: State, outcome: Result | None) -> ScoreSheet:
    """B-11: per player and stage the action-B, majority and workers points, stage and running totals; once
    over, the final row names the winner(s) of ``outcome``."""
    columns: list[str] = ["seat", "player"]
    for stage in range(1, COMPONENTS.stages + 1):
        columns += [f"stage {stage} {name}" for name in _STAGE_COLUMNS]
    columns.append("total")
    rows: list[tuple[str | int | None, ...]] = []
    for seat, player in enumerate(state.players):
        row: list[str | int | None] = [seat, player.name]
        running = 0
        for stage in range(1, COMPONENTS.stages + 1):
            if stage <= len(state.stages):
                record = state.stages[stage - 1]
                colours = record.majority[seat]
                stage_total = record.action_b[seat] + colours.total() + record.workers_bonus[seat]
                running += stage_total
                row += [record.action_b[seat], colours.red, colours.yellow, colours.green, colours.blue]
                row += [record.workers_bonus[seat], stage_total, running]
            elif stage == state.stage and state.phase != "over":
                # the running stage: action B scores at once; the rest waits for the stage's end
                row += [player.action_b] + [None] * (len(_STAGE_COLUMNS) - 1)
            else:
                row += [None] * len(_STAGE_COLUMNS)
        row.append(player.points)
        rows.append(tuple(row))
    names = () if outcome is None else tuple(state.players[seat].name for seat in outcome.winners)
    if outcome is not None:
        rows.append(("winners", ", ".join(names), *([None] * (len(columns) - 2))))
    return ScoreSheet(columns=tuple(columns), rows=tuple(rows), winners=names, final=outcome is not None)
