"""Z-9, Z-11..Z-14: points of a purchase, the result with its tie-breaks, and the score sheet."""

from __future__ import annotations

from domain.bazaar.components import EDITION, Edition
from domain.bazaar.state import State
from domain.core import Result, ScoreSheet

__all__ = [
    "SCORESHEET_COLUMNS",
    "SOLITAIRE_COLUMNS",
    "is_over",
    "points",
    "result",
    "sheet",
    "stars_for",
]

SCORESHEET_COLUMNS = ("turn", "player", "ware", "stars", "stones_left", "points", "total")
SOLITAIRE_COLUMNS = ("player", "turns", "solved")  # Z-12: turns taken, fewer is better; never points


def is_over(state: State) -> bool:
    """Z-12, Z-13: the game is over once two stalls are sold out (or the solitaire game is decided)."""
    return state.over


def stars_for(state: State, ware: int, edition: Edition = EDITION) -> int:
    """Z-9: a ware's stars, one higher once any stall is sold out (at most two)."""
    base = 1 if edition.wares[ware].star else 0
    upgrade = 1 if state.empty_stalls > 0 else 0
    return min(base + upgrade, len(edition.score_table[0]) - 1)


def points(stones_left: int, stars: int, edition: Edition = EDITION) -> int:
    """Z-9: 3+/2/1/0 stones left give 1/2/3/5 (no star), 2/3/5/8 (one), 3/5/8/12 (two) in the house table."""
    row = edition.score_table[min(stones_left, len(edition.score_table) - 1)]
    return row[min(max(stars, 0), len(row) - 1)]


def _ranks(state: State) -> tuple[int, ...]:
    """Z-13: higher score first; on a tie fewer wares first; still tied, equal rank."""
    keys = [(-player.score, len(player.wares)) for player in state.players]
    return tuple(1 + sum(1 for other in keys if other < key) for key in keys)


def result(state: State) -> Result:
    """Z-12, Z-13: scores, ranks and winners.

    Multiplayer: score = points; rank 1 is the highest score, ties broken by fewer wares, then shared.
    Solitaire: score = the number of turns taken, ``lower_is_better``, with ``solved``; solved, the player is
    the winner; unsolved after the turn limit, the score is the turns played and there is no winner.
    """
    if state.solitaire:
        turns = state.turn
        solved = state.end_reason == "solitaire_solved"
        if solved:
            note = f"solitaire solved in {turns} turns (score = turns taken; fewer is better)"
        elif state.end_reason == "solitaire_unsolved":
            note = f"solitaire unsolved: no match within the {EDITION.solitaire_turn_limit}-turn limit"
        else:
            note = "solitaire under way"
        return Result(
            scores=(turns,),
            ranks=(1,),
            winners=(0,) if solved else (),
            note=note,
            lower_is_better=True,
            solved=solved,
        )
    ranks = _ranks(state)
    winners = tuple(seat for seat, rank in enumerate(ranks) if rank == 1)
    note = "highest score wins; a tie goes to fewer wares, then the win is shared (Z-13)"
    return Result(
        scores=tuple(player.score for player in state.players), ranks=ranks, winners=winners, note=note
    )


def _solitaire_sheet(state: State, outcome: Result | None) -> ScoreSheet:
    """Z-12: the player, the turns taken (fewer is better) and the outcome's ``solved`` (None while it runs)."""
    solved = None if outcome is None else outcome.solved
    name = state.players[0].name
    return ScoreSheet(
        columns=SOLITAIRE_COLUMNS,
        rows=((name, state.turn, solved),),
        winners=() if outcome is None else tuple(state.players[seat].name for seat in outcome.winners),
        final=outcome is not None,
    )


def sheet(state: State, outcome: Result | None) -> ScoreSheet:
    """Z-14: one row per purchase with the player's running total; once over, a final row names the winners.

    Columns: turn (counted over all seats), player, ware id, stars after upgrades, stones left, points,
    running total of that player. The final row reads ``("final", <winners of outcome>, None, None, None,
    None, <winning score>)``. Solitaire (Z-12) has no purchases: its one row, also its final row, is the
    player, the turns taken (fewer is better) and the outcome's ``solved`` (None while it runs).
    """
    if state.solitaire:
        return _solitaire_sheet(state, outcome)
    totals = [0] * len(state.players)
    rows: list[tuple[str | int | None, ...]] = []
    for row in state.sheet:
        totals[row.seat] += row.points
        name = state.players[row.seat].name
        rows.append((row.turn, name, row.ware, row.stars, row.stones_left, row.points, totals[row.seat]))
    winners: tuple[str, ...] = ()
    if outcome is not None:
        winners = tuple(state.players[seat].name for seat in outcome.winners)
        best = outcome.scores[outcome.winners[0]] if outcome.winners else outcome.scores[0]
        label = ", ".join(winners) if winners else "unsolved"
        rows.append(("final", label, None, None, None, None, best))
    return ScoreSheet(
        columns=SCORESHEET_COLUMNS, rows=tuple(rows), winners=winners, final=outcome is not None
    )
