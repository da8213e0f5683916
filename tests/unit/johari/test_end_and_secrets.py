"""The end of the game (J-15), the score sheet (J-17) and hidden information (J-18)."""

from __future__ import annotations

import msgspec

from domain.johari import GAME
from domain.johari.events import (
    DayEnded,
    DiscardReshuffled,
    GameEnded,
    GameStarted,
)
from tests.unit.johari.helpers import edit, noble, prestige_card, started, table, tokens, turn_of

# ---------------------------------------------------------------- J-15


def test_j15_game_ends_after_market_day_ten() -> None:
    """J-15: the last action of day 10 ends the day and the game, with the final scores."""
    state = table(2, day=10, round=3)
    state = edit(state, 0, tokens=tokens(red=5))
    after, events = turn_of(state, 0, "baksheesh", previous="sale")
    assert events[-2:] == [DayEnded(day=10), GameEnded(scores=(5, 0), winners=(0,))]
    assert GAME.is_over(after) and GAME.pending(after) == [] and GAME.legal(after, 0) == []


def test_j15_day_nine_is_not_the_end() -> None:
    """J-15: after day 9 a new Market Day starts."""
    state = table(2, day=9, round=3, draw=tuple(range(2, 20)), stack=(noble("prestige_5"),))
    after, _ = turn_of(state, 0, "baksheesh", previous="sale")
    assert not GAME.is_over(after) and after.day == 10


def test_j15_score_is_nobles_prestige_cards_and_gem_tokens() -> None:
    """J-15: Nobles' prestige + Prestige Cards + the four Gem Token positions."""
    state = edit(
        table(2),
        0,
        nobles=(noble("gold_seven"), noble("prestige_6")),
        prestige=(prestige_card(2), prestige_card(3)),
        tokens=(8, 14, 11, 18),
    )
    assert GAME.result(state).scores[0] == 1 + 6 + 5 + 51


def test_j15_ties_broken_by_gem_token_sum_then_shared() -> None:
    """J-15: equal totals: higher Gem Token sum wins; still equal: several winners, equal ranks."""
    state = table(3)
    state = edit(state, 0, tokens=tokens(red=10))  # 10, token sum 10
    state = edit(state, 1, tokens=tokens(red=5), prestige=(prestige_card(3), prestige_card(2)))  # 10, sum 5
    state = edit(state, 2, tokens=tokens(blue=10))  # 10, sum 10
    result = GAME.result(state)
    assert result.scores == (10, 10, 10)
    assert result.ranks == (1, 3, 1) and result.winners == (0, 2)


# ---------------------------------------------------------------- J-17


def test_j17_score_sheet_rows_and_winner_row() -> None:
    """J-17: gold, each Gem Token, Nobles with points, Prestige Cards, bonuses, total; winners' row."""
    state = edit(
        table(2), 0, tokens=(1, 2, 3, 4), nobles=(noble("one_per_noble"),), prestige=(prestige_card(1),)
    )
    state = msgspec.structs.replace(state, phase="over")
    sheet = GAME.scoresheet(state)
    assert sheet.final and sheet.winners == ("p0",)
    assert sheet.columns[:6] == (
        "player",
        "gold",
        "red_gem_token",
        "blue_gem_token",
        "green_gem_token",
        "white_gem_token",
    )
    row = dict(zip(sheet.columns, sheet.rows[0], strict=True))
    assert row["nobles"] == "one_per_noble (3)" and row["noble_points"] == 3
    assert row["prestige_cards"] == 1 and row["end_game_bonuses"] == 1 and row["total"] == 15
    assert sheet.rows[-1][0] == "winner(s)" and sheet.rows[-1][-1] == "p0"


# ---------------------------------------------------------------- J-18


def test_j18_draw_pile_and_noble_stack_order_are_secret() -> None:
    """J-18: the opening event reaches every seat without the pile and Noble stack order."""
    events, _ = started(2)
    begun = events[0]
    assert isinstance(begun, GameStarted)
    for seat in (None, 0, 1):
        seen = GAME.redact(begun, seat)
        assert isinstance(seen, GameStarted)
        assert seen.draw_pile == () and seen.noble_stack == ()
        assert seen.draw_pile_size == begun.draw_pile_size and seen.noble_track == begun.noble_track
    reshuffled = DiscardReshuffled(draw_pile=(3, 2, 1), size=3)
    assert GAME.redact(reshuffled, 0) == DiscardReshuffled(draw_pile=(), size=3)


def test_j18_commands_and_views_are_json_bodies() -> None:
    """J-10/J-13: commands decode from their JSON bodies through the game's command union."""
    from domain.johari.commands import AddJewelerCard, PlayActionCard, Purchase

    decode = msgspec.json.Decoder(GAME.command_type)
    assert decode.decode(b'{"type":"purchase","place":"booth_0"}') == Purchase(place="booth_0")
    assert decode.decode(b'{"type":"play_action_card","card":"sale"}') == PlayActionCard(card="sale")
    assert decode.decode(b'{"type":"add_jeweler_card","card":3,"as_colour":"red"}') == AddJewelerCard(
        card=3, as_colour="red"
    )
    _, state = started(2)
    view = GAME.view(state, 0)
    assert msgspec.json.decode(msgspec.json.encode(view), type=GAME.view_type) == view
