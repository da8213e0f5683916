"""B-9, B-10, B-11: the end of a stage and its scoring, the end of the game, the score sheet."""

from __future__ import annotations

from domain.basari import GAME
from domain.basari.commands import Accept, ChooseAction
from domain.basari.components import COMPONENTS, ColourPoints
from domain.basari.events import (
    ActionChosen,
    ActionsRevealed,
    CardDrawn,
    CardsDealt,
    GameEnded,
    GemsTaken,
    PileShuffled,
    PointsScored,
    StageLine,
    StageScored,
)
from domain.basari.scoring import winners
from domain.core import Rng
from domain.resign import decisions
from tests.support.random_play import play_randomly
from tests.support.scenario import given

from .tables import (
    HANNA,
    MAX,
    SARAH,
    gems,
    held,
    of_type,
    picks,
    play,
    stacked,
    started,
    state_of,
    with_points,
)

# Hanna gets 4-worker cards and takes A twice: 4 + 4 (round 1), + 4 + 4 (round 2) = 16 workers.
WORKERS_PILE = stacked(32, 1, 2, 33, 34, 3, 4, 35)


def test_a_stage_ends_after_the_round_in_which_someone_has_15_workers_b9() -> None:
    """B-9: the stage ends once every action of the round is resolved and a player has 15+ workers.

    Hanna reaches 16 workers with action A in round 2; B and C are still performed, then the stage is scored:
    red is tied three ways (14 split, rounded down: 4 each, each returns 2), Sarah alone has the most yellow,
    green and blue (she scores them and returns half, rounded up), and Hanna scores the 12 workers bonus.
    """
    history = play(started(3, pile=WORKERS_PILE), *picks("ABC"))
    assert state_of(history).round == 2  # 8 workers: the stage goes on
    history = play(history, (HANNA, ChooseAction(action="A")), (MAX, ChooseAction(action="B")))
    order = tuple(Rng("scenario", f"v{len(history)}").shuffle(COMPONENTS.card_ids()))
    state = (
        given(GAME, history)
        .when(SARAH, ChooseAction(action="C"))
        .then(
            [
                ActionChosen(seat=SARAH, action="C"),
                ActionsRevealed(picks=("A", "B", "C")),
                CardDrawn(seat=HANNA, card=35),
                PointsScored(seat=MAX, card=3, points=7),
                GemsTaken(
                    seat=SARAH,
                    card=4,
                    shown=gems(yellow=1, green=1, blue=1),
                    received=gems(yellow=1, green=1, blue=1),
                ),
                StageScored(
                    stage=1,
                    reason="workers",
                    lines=(
                        StageLine(
                            seat=HANNA,
                            action_b=0,
                            majority=ColourPoints(red=4),
                            returned=gems(red=2),
                            workers=16,
                            workers_bonus=12,
                            stage_total=16,
                            running_total=16,
                        ),
                        StageLine(
                            seat=MAX,
                            action_b=14,
                            majority=ColourPoints(red=4),
                            returned=gems(red=2),
                            workers=2,
                            workers_bonus=0,
                            stage_total=18,
                            running_total=18,
                        ),
                        StageLine(
                            seat=SARAH,
                            action_b=0,
                            majority=ColourPoints(red=4, yellow=12, green=10, blue=8),
                            returned=gems(red=2, yellow=2, green=3, blue=3),
                            workers=2,
                            workers_bonus=0,
                            stage_total=34,
                            running_total=34,
                        ),
                    ),
                ),
                PileShuffled(stage=2, size=39, order=order),  # B-9: all 39 cards shuffled into a new pile
                CardsDealt(stage=2, round=1, cards=order[:3]),
            ]
        )
    )
    assert [p.points for p in state.players] == [16, 18, 34]
    # players keep their gems (less what they returned); the cards of stage 1 are gone
    assert [p.gems for p in state.players] == [
        held(red=1, yellow=3, green=3, blue=3),
        held(red=1, yellow=3, green=3, blue=3),
        held(red=1, yellow=2, green=3, blue=3),
    ]
    assert state.stock == held(red=19, yellow=14, green=13, blue=13)
    assert [p.cards for p in state.players] == [(card,) for card in order[:3]]
    assert (state.stage, state.round, len(state.pile)) == (2, 1, 36)


def test_ties_split_the_points_and_return_two_or_all_b9() -> None:
    """B-9, the rulebook's note: tied players split the points, rounded down, and each returns 2 gems
    (all they have, if fewer); a colour nobody owns scores nothing; a lone majority returns half, rounded up.
    """
    holdings = [gems(red=5, green=1), gems(red=5, yellow=1, green=1), gems(red=2)]
    history = play(started(3, holdings=holdings, pile=(1, 2, 3)), *picks("AA"))
    events = given(GAME, history).when(SARAH, ChooseAction(action="A")).decide()
    scored = of_type(events, StageScored)
    assert len(scored) == 1 and scored[0].reason == "pile"
    lines = scored[0].lines
    assert [line.majority for line in lines] == [
        ColourPoints(red=7, green=5),
        ColourPoints(red=7, yellow=12, green=5),
        ColourPoints(),
    ]
    assert [line.returned for line in lines] == [
        gems(red=2, green=1),
        gems(red=2, yellow=1, green=1),
        gems(),
    ]
    assert [line.stage_total for line in lines] == [12, 24, 0]


def test_the_stage_ends_when_the_pile_cannot_deal_everybody_b9() -> None:
    """B-9 (house ruling): at the start of step I, a pile with fewer cards than players ends the stage."""
    short = play(started(3, pile=(1, 2, 3, 4, 5)), *picks("CCC"))  # 2 cards left for 3 players
    assert [event.reason for event in of_type(short, StageScored)] == ["pile"]
    assert of_type(short, CardsDealt)[-1].stage == 2
    enough = play(started(3, pile=(1, 2, 3, 4, 5, 6)), *picks("CCC"))  # 3 cards left: round 2 is dealt
    assert of_type(enough, StageScored) == []
    assert of_type(enough, CardsDealt)[-1] == CardsDealt(stage=1, round=2, cards=(4, 5, 6))


def test_the_score_sheet_b11() -> None:
    """B-11: per player and stage: action B, colour majorities, workers bonus, stage and running totals."""
    history = play(started(3, pile=WORKERS_PILE), *picks("ABC"), *picks("ABC"))
    sheet = GAME.scoresheet(state_of(history))
    assert sheet.columns[:12] == (
        "seat",
        "player",
        "stage 1 action B",
        "stage 1 red",
        "stage 1 yellow",
        "stage 1 green",
        "stage 1 blue",
        "stage 1 workers bonus",
        "stage 1 stage total",
        "stage 1 running total",
        "stage 2 action B",
        "stage 2 red",
    )
    assert len(sheet.columns) == 2 + 3 * 8 + 1 and sheet.columns[-1] == "total"
    nothing_yet = (None,) * 7
    unplayed = (None,) * 8
    assert sheet.rows == (
        (0, "Hanna", 0, 4, 0, 0, 0, 12, 16, 16, 0, *nothing_yet, *unplayed, 16),
        (1, "Max", 14, 4, 0, 0, 0, 0, 18, 18, 0, *nothing_yet, *unplayed, 18),
        (2, "Sarah", 0, 4, 12, 10, 8, 0, 34, 34, 0, *nothing_yet, *unplayed, 34),
    )
    assert (sheet.final, sheet.winners) == (False, ())


def test_the_game_ends_after_the_third_stage_b10_b11() -> None:
    """B-10: three stages are played, then the game ends; B-11: the final row names the winner(s)."""
    run = play_randomly(GAME, 4, "three-stages")
    assert [event.stage for event in of_type(run.events, StageScored)] == [1, 2, 3]
    assert isinstance(run.events[-1], GameEnded)
    assert GAME.is_over(run.state) and GAME.pending(run.state) == []
    result = GAME.result(run.state)
    assert run.events[-1] == GameEnded(scores=result.scores, winners=result.winners)
    sheet = GAME.scoresheet(run.state)
    assert sheet.final and len(sheet.rows) == 5
    names = ", ".join(f"p{seat}" for seat in result.winners)
    assert sheet.rows[-1][:2] == ("winners", names)
    assert sheet.winners == tuple(f"p{seat}" for seat in result.winners)
    for seat, row in enumerate(sheet.rows[:4]):
        assert row[-1] == row[-2] == result.scores[seat]  # the stage-3 running total is the final score
    view = GAME.view(run.state, None)
    assert view.over and view.winners == result.winners


def test_no_command_after_the_game_b10() -> None:
    """B-10: once the third stage is scored, every command is refused."""
    run = play_randomly(GAME, 3, "over")
    scenario = given(GAME, run.events)
    scenario.when(0, ChooseAction(action="A")).rejects("B-10", "game_over")
    scenario.when(1, Accept()).rejects("B-10", "game_over")
    assert all(decisions(GAME.legal(run.state, seat)) == [] for seat in range(3))


def test_most_points_wins_and_ties_give_several_winners_b10() -> None:
    """B-10: the most points wins; equal points share a rank, and several players can win."""
    state = with_points(started(3), {HANNA: 50, MAX: 50, SARAH: 41})
    result = GAME.result(state)
    assert (result.scores, result.ranks, result.winners) == ((50, 50, 41), (1, 1, 3), (0, 1))
    assert winners((30, 41, 41, 12)) == (1, 2)
    single = GAME.result(with_points(started(4), {0: 9, 1: 30, 2: 12, 3: 12}))
    assert (single.ranks, single.winners) == ((4, 1, 2, 2), (1,))


def test_reveal_precedes_resolution_in_the_last_round_b9() -> None:
    """B-9: the round is played out: the reveal and every action come before the stage's scoring."""
    history = play(started(3, pile=WORKERS_PILE), *picks("ABC"), *picks("ABC"))
    kinds = [type(event) for event in history]
    last_reveal = len(kinds) - 1 - kinds[::-1].index(ActionsRevealed)
    assert kinds.index(StageScored) > last_reveal + 3
