"""The end of the game (J-15), the score sheet (J-17) and hidden information (J-18)."""

from __future__ import annotations

import msgspec

from domain.johari import GAME
from domain.johari.events import (
    CardsExchanged,
    CardsTaken,
    DayEnded,
    DiscardReshuffled,
    GameEnded,
    GameStarted,
    SetupCardPicked,
)
from domain.johari.view import JohariView
from tests.unit.johari.helpers import edit, gem, noble, prestige_card, started, table, tokens, turn_of

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


def test_j17_running_score_sheet_hides_prestige_card_values() -> None:
    """J-17/J-18: while the game runs the Prestige Card values stay secret on the sheet."""
    state = edit(table(2), 0, prestige=(prestige_card(3),), tokens=tokens(red=2))
    sheet = GAME.scoresheet(state)
    row = dict(zip(sheet.columns, sheet.rows[0], strict=True))
    assert not sheet.final and row["prestige_cards"] is None and row["total"] == 2


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


def test_j18_prestige_cards_taken_are_hidden_from_others() -> None:
    """J-18: other seats see only how many Prestige Cards a player took, never which."""
    taken = CardsTaken(seat=0, place="store_gold", to="display", cards=(81,), prestige_cards=(95,))
    assert GAME.redact(taken, 0) == taken
    for seat in (1, None):
        assert GAME.redact(taken, seat) == msgspec.structs.replace(
            taken, prestige_cards=(), hidden_prestige=1
        )
    picked = SetupCardPicked(seat=1, place="store_gold", cards=(), prestige_cards=(95,))
    assert GAME.redact(picked, 0) == SetupCardPicked(
        seat=1, place="store_gold", cards=(), prestige_cards=(), hidden_prestige=1
    )
    swapped = CardsExchanged(seat=1, given=96, given_to="store_gold", place="store_gold", taken=95)
    assert GAME.redact(swapped, 0) == msgspec.structs.replace(swapped, taken=None, hidden_prestige=1)
    public = CardsExchanged(seat=1, given=2, given_to="booth_0", place="booth_0", taken=3)
    assert GAME.redact(public, 0) == public


def test_j18_view_shows_own_secrets_and_only_counts_of_others() -> None:
    """J-18: a seat sees its own Prestige Cards and hand; others' only as a count; spectators neither."""
    state = edit(table(2), 0, prestige=(prestige_card(3),), display=(gem("red", 2),))
    own = GAME.view(state, 0)
    other = GAME.view(state, 1)
    spectator = GAME.view(state, None)
    assert isinstance(own, JohariView) and isinstance(other, JohariView) and isinstance(spectator, JohariView)
    assert own.players[0].prestige_cards == (prestige_card(3),) and own.players[0].hand is not None
    assert other.players[0].prestige_cards is None and other.players[0].prestige_count == 1
    assert other.players[0].hand is None and other.players[0].display == (gem("red", 2),)
    assert spectator.players[0].prestige_cards is None and spectator.players[1].hand is None
    encoded = msgspec.json.encode(other)
    assert b"draw_pile_size" in encoded and b'"draw"' not in encoded


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
