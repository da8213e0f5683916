"""The end of the game (J-15), the score sheet (J-17) and hidden information (J-18)."""

from __future__ import annotations

import msgspec

from domain.core import GameConfig, Rng, fold
from domain.johari import GAME
from domain.johari.events import (
    DayEnded,
    DiscardReshuffled,
    GameEnded,
    GameStarted,
)
from domain.resign import decisions
from tests.unit.johari.tables import hired, holding, noble, now, prestige_card, table, tokens, turn

CONFIG = GameConfig(players=("p0", "p1"), options=GAME.options_type())

# ---------------------------------------------------------------- J-15


def test_j15_game_ends_after_market_day_ten() -> None:
    """J-15: the last action of day 10 ends the day and the game, with the final scores."""
    history = [*table(2, day=10, round=3), *tokens(0, red=5)]
    history, events = turn(history, 0, "baksheesh", previous="sale")
    assert events[-2:] == [DayEnded(day=10), GameEnded(scores=(5, 0), winners=(0,))]
    state = now(history)
    assert GAME.is_over(state) and GAME.pending(state) == [] and decisions(GAME.legal(state, 0)) == []


def test_j15_day_nine_is_not_the_end() -> None:
    """J-15: after day 9 a new Market Day starts."""
    history = table(2, day=9, round=3, draw=tuple(range(42, 60)), stack=(noble("prestige_5"),))
    history, _ = turn(history, 0, "baksheesh", previous="sale")
    assert not GAME.is_over(now(history)) and now(history).day == 10


def test_j15_score_is_nobles_prestige_cards_and_gem_tokens() -> None:
    """J-15: Nobles' prestige + Prestige Cards + the four Gem Token positions."""
    history = [
        *table(2),
        *hired(0, noble("gold_seven")),
        *hired(0, noble("prestige_6")),
        holding(0, prestige_card(2), prestige_card(3)),
        *tokens(0, red=8, blue=14, green=11, white=18),
    ]
    assert GAME.result(now(history)).scores[0] == 1 + 6 + 5 + 51


def test_j15_ties_broken_by_gem_token_sum_then_shared() -> None:
    """J-15: equal totals: higher Gem Token sum wins; still equal: several winners, equal ranks."""
    history = [
        *table(3),
        *tokens(0, red=10),  # 10, token sum 10
        *tokens(1, red=5),
        holding(1, prestige_card(3), prestige_card(2)),  # 10, sum 5
        *tokens(2, blue=10),  # 10, sum 10
    ]
    result = GAME.result(now(history))
    assert result.scores == (10, 10, 10)
    assert result.ranks == (1, 3, 1) and result.winners == (0, 2)
    assert "ranked by the sum of Gem Token positions" in result.note


def test_j15_the_result_names_a_tie_break_only_when_one_decided() -> None:
    """J-15: a result without equal totals says most points won, and claims no tie-break."""
    history = [*table(2), *tokens(0, red=10), *tokens(1, red=3)]
    result = GAME.result(now(history))
    assert result.scores == (10, 3)
    assert result.note == "most points wins (J-15)"
    shared = GAME.result(now([*table(2), *tokens(0, red=4), *tokens(1, blue=4)]))
    assert shared.winners == (0, 1)
    assert "share their rank" in shared.note and "ranked by" not in shared.note


# ---------------------------------------------------------------- J-17


def test_j17_score_sheet_rows_and_winner_row() -> None:
    """J-17: gold, each Gem Token, Nobles with points, Prestige Cards, bonuses, total; winners' row."""
    history = [
        *table(2, day=10, round=3),
        *tokens(0, red=1, blue=2, green=3, white=4),
        *hired(0, noble("one_per_noble")),
        holding(0, prestige_card(1)),
    ]
    history, _ = turn(history, 0, "baksheesh", previous="sale")
    sheet = GAME.scoresheet(now(history))
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
    assert row["gold"] == 17 and row["nobles"] == "one_per_noble (3)" and row["noble_points"] == 3
    assert row["prestige_cards"] == 1 and row["end_game_bonuses"] == 1 and row["total"] == 15
    assert sheet.rows[-1][0] == "winner(s)" and sheet.rows[-1][-1] == "p0"


# ---------------------------------------------------------------- J-18


def test_j18_draw_pile_and_noble_stack_order_are_secret() -> None:
    """J-18: the opening event reaches every seat without the pile and Noble stack order."""
    begun = GAME.setup(CONFIG, Rng("seed", "setup"))[0]
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
    view = GAME.view(fold(GAME, GAME.setup(CONFIG, Rng("seed", "setup"))), 0)
    assert msgspec.json.decode(msgspec.json.encode(view), type=GAME.view_type) == view
