"""Final scoring (J-15, J-16 end-game Nobles, J-17 score sheet): totals, tie-break, ranks and winners; the end
(``is_over``), the ``result`` and the score ``sheet``."""

from __future__ import annotations

import msgspec

from domain.core import Result, ScoreSheet
from domain.johari.components import COLOURS, COMPONENTS
from domain.johari.nobles import has
from domain.johari.state import Player, State, card


class Score(msgspec.Struct, frozen=True, kw_only=True):
    """One player's final score broken down as on the score sheet (J-17)."""

    gold: int
    tokens: tuple[int, ...]
    nobles: tuple[int, ...]
    noble_points: int
    prestige_cards: int
    bonuses: int
    token_advance: int
    total: int
    tiebreak: int  # J-15: the sum of Gem Token positions (after advance_tokens)


def advance_gain(tokens: tuple[int, ...]) -> int:
    """J-16 advance_tokens: the best of one token +2 or two tokens +1, within the track (owner's best)."""
    room = [COMPONENTS.track_max - t for t in tokens]
    one = max(min(2, r) for r in room)
    two = sum(sorted((min(1, r) for r in room), reverse=True)[:2])
    return max(one, two)


def score(player: Player) -> Score:
    """J-15: Nobles' prestige + Prestige Cards + Gem Token positions + end-game Noble abilities."""
    noble_points = sum(COMPONENTS.nobles[n].prestige for n in player.nobles)
    prestige = sum(card(c).prestige for c in player.prestige)
    bonuses = 0
    if has(player, "prestige_cards_plus_one"):
        bonuses += len(player.prestige)
    if has(player, "two_per_type"):
        # J-16: the gem colours present in the display (Gold and Prestige Cards are not gem types).
        present = {card(c).colour for c in (*player.display, *player.trade) if card(c).kind == "gem"}
        bonuses += 2 * sum(1 for c in COLOURS if c in present)
    if has(player, "one_per_noble"):
        bonuses += len(player.nobles)  # J-16: itself included
    gain = advance_gain(player.tokens) if has(player, "advance_tokens") else 0
    tokens = sum(player.tokens) + gain
    return Score(
        gold=player.gold,
        tokens=player.tokens,
        nobles=player.nobles,
        noble_points=noble_points,
        prestige_cards=prestige,
        bonuses=bonuses,
        token_advance=gain,
        total=noble_points + prestige + tokens + bonuses,
        tiebreak=tokens,
    )


def ranking(scores: list[Score]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """J-15: ranks (1 best) by total then Gem Token sum; equal on both share a rank; rank 1 wins."""
    keys = [(s.total, s.tiebreak) for s in scores]
    ranks = tuple(1 + sum(1 for other in keys if other > key) for key in keys)
    winners = tuple(seat for seat, r in enumerate(ranks) if r == 1)
    return ranks, winners


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
        note=tie_note(scores, ranks),
    )


def tie_note(scores: list[Score], ranks: tuple[int, ...]) -> str:
    """J-15 in words, naming the tie-break only where it decided a rank (equal totals, different ranks) and
    a shared rank only where totals and Gem Token sums were both equal."""
    tied = [
        (a, b)
        for a in range(len(scores))
        for b in range(a + 1, len(scores))
        if scores[a].total == scores[b].total
    ]
    if any(ranks[a] != ranks[b] for a, b in tied):
        return "most points wins; equal totals were ranked by the sum of Gem Token positions (J-15)"
    if tied:
        return "most points wins; equal totals with equal Gem Token sums share their rank (J-15)"
    return "most points wins (J-15)"


def sheet(state: State, outcome: Result | None) -> ScoreSheet:
    """J-17: gold, Gem Tokens, Nobles, Prestige Cards (public, J-18), end-game bonuses, total; once over, the
    final row names the winner(s) of ``outcome``."""
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
        nobles = ", ".join(
            f"{COMPONENTS.nobles[n].ability} ({COMPONENTS.nobles[n].prestige})" for n in s.nobles
        )
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
    names = () if outcome is None else tuple(state.players[w].name for w in outcome.winners)
    if outcome is not None:
        rows.append(("winner(s)", *([None] * (len(columns) - 2)), ", ".join(names)))
    return ScoreSheet(columns=columns, rows=tuple(rows), winners=names, final=outcome is not None)
