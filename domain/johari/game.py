"""Johari (J-1..J-19) declared as a ``GameSpec``, with its result (J-15) and score sheet (J-17)."""

from __future__ import annotations

from typing import Final

import msgspec

from domain.core import GameSpec, Result, ScoreSheet
from domain.johari import rules, view
from domain.johari.commands import JohariCommand
from domain.johari.components import COLOURS, DATA
from domain.johari.events import JohariEvent
from domain.johari.scoring import ranking, score
from domain.johari.state import State


class JohariOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Johari has no options."""


def is_over(state: State) -> bool:
    """J-15: the game is over after Market Day 10."""
    return state.phase == "over"


def result(state: State) -> Result:
    """J-15: totals, ranks by total then Gem Token sum, several winners on a full tie."""
    scores = [score(p) for p in state.players]
    ranks, winners = ranking(scores)
    return Result(
        scores=tuple(s.total for s in scores),
        ranks=ranks,
        winners=winners,
        note="ties broken by the sum of Gem Token positions (J-15)",
    )


def scoresheet(state: State) -> ScoreSheet:
    """J-17: gold, Gem Tokens, Nobles, Prestige Cards (public, J-18), end-game bonuses, total; the winners'
    row once the game is over."""
    final = state.phase == "over"
    columns = (
        "player",
        "gold",
        *(f"{c}_gem_token" for c in COLOURS),
        "nobles",
        "noble_points",
        "prestige_cards",
        "end_game_bonuses",
        "total",
        "gem_token_sum",
    )
    rows: list[tuple[str | int | None, ...]] = []
    scores = [score(p) for p in state.players]
    for player, s in zip(state.players, scores, strict=True):
        nobles = ", ".join(f"{DATA.nobles[n].ability} ({DATA.nobles[n].prestige})" for n in s.nobles)
        bonuses = s.bonuses + s.token_advance
        rows.append(
            (
                player.name,
                s.gold,
                *s.tokens,
                nobles,
                s.noble_points,
                s.prestige_cards,
                bonuses,
                s.total,
                s.tiebreak,
            )
        )
    _, winners = ranking(scores)
    names = tuple(state.players[w].name for w in winners) if final else ()
    if final:
        rows.append(("winner(s)", *([None] * (len(columns) - 2)), ", ".join(names)))
    return ScoreSheet(columns=columns, rows=tuple(rows), winners=names, final=final)


GAME: Final = GameSpec[State](
    name="johari",
    title="Johari",
    rules="rules/johari.md",
    min_players=2,
    max_players=4,
    players_rule="J-1",
    options_type=JohariOptions,
    command_type=JohariCommand,
    event_type=JohariEvent,
    view_type=view.JohariView,
    initial=State,
    deal=rules.setup,
    decide=rules.decide,
    evolve=rules.evolve,
    view=view.view,
    redact=view.redact,
    pending=rules.pending,
    legal=rules.legal,
    is_over=is_over,
    result=result,
    scoresheet=scoresheet,
)
