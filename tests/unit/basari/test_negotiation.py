"""B-8: two players who chose the same action negotiate with gems; the winner of the bid performs it."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product

import pytest
from hypothesis import given as hypothesis_given
from hypothesis import strategies as st

from domain.basari import GAME
from domain.basari.bids import BID_LIST_LIMIT, beating_bids, beats, can_beat, can_complete
from domain.basari.commands import Accept, Bid, BidColour, ChooseAction
from domain.basari.components import Gems
from domain.basari.events import (
    BidAccepted,
    BidDrafted,
    BidPlaced,
    CardDrawn,
    CardsDealt,
    NegotiationOpened,
    PointsScored,
    WonForFree,
)
from domain.basari.rules import first_bidder_order
from domain.core import Event, Pending, Rng
from domain.counts import Counts, plus
from domain.resign import decisions
from tests.support.scenario import given

from .tables import (
    EACH,
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

# Max owns one red more than Hanna, so he makes the first offer.
MAX_RICHER = [EACH, gems(red=4, yellow=3, green=3, blue=3), EACH]


def negotiating(holdings: Sequence[Gems] = MAX_RICHER, pile: Sequence[int] | None = None) -> list[Event]:
    """Hanna and Max both chose B, Sarah chose A: Sarah has drawn, the negotiation for B is open."""
    return play(started(3, holdings=holdings, pile=pile), *picks("BBA"))


# ------------------------------------------------------------------------------------------ who bids first


def test_two_players_on_one_action_negotiate_b8() -> None:
    """B-8: exactly two chose B; A is performed first, then Max (more red) opens the negotiation for B."""
    history = negotiating()
    assert of_type(history, CardDrawn) == [CardDrawn(seat=SARAH, card=4)]
    assert of_type(history, NegotiationOpened) == [
        NegotiationOpened(action="B", first_bidder=MAX, opponent=HANNA)
    ]
    state = state_of(history)
    assert GAME.pending(state) == [Pending(seat=MAX, decision="open_bid")]
    view = GAME.view(state, None).negotiation
    assert view is not None and (view.action, view.to_move, view.current_bid) == ("B", MAX, None)


@pytest.mark.parametrize(
    ("hanna", "max_", "points", "pile", "first"),
    [
        # more red wins even against more of everything else
        (gems(red=3, yellow=9, green=9, blue=9), gems(red=4), {}, None, MAX),
        # equal red: more yellow
        (gems(red=3, green=9, blue=9), gems(red=3, yellow=1), {}, None, MAX),
        # equal red and yellow: more green
        (gems(yellow=2, blue=9), gems(yellow=2, green=1), {}, None, MAX),
        # equal down to green: more blue
        (gems(green=2), gems(green=2, blue=1), {}, None, MAX),
        # equal gems: more victory points (Hanna has more workers: 4 against 1)
        (EACH, EACH, {MAX: 5}, stacked(32, 1, 2), MAX),
        # equal gems and points: more workers
        (EACH, EACH, {}, stacked(1, 32, 2), MAX),
        # everything equal: the eldest (lower seat) bids first
        (EACH, EACH, {}, stacked(1, 2, 3), HANNA),
    ],
    ids=["red", "yellow", "green", "blue", "points", "workers", "eldest"],
)
def test_first_bidder_chain_b8(
    hanna: Gems, max_: Gems, points: dict[int, int], pile: Sequence[int] | None, first: int
) -> None:
    """B-8: first bidder: more red, then yellow, green, blue, then victory points, workers, the eldest."""
    state = with_points(started(3, holdings=[hanna, max_, EACH], pile=pile), points)
    assert first_bidder_order(state, [HANNA, MAX])[0] == first


def test_first_bidder_by_workers_in_play_b8() -> None:
    """B-8: with equal gems and points, Max's 4 workers (card 32) against Hanna's 1 make him open."""
    history = play(started(3, pile=stacked(1, 32, 2)), *picks("CCB"))
    assert of_type(history, NegotiationOpened) == [
        NegotiationOpened(action="C", first_bidder=MAX, opponent=HANNA)
    ]


# ------------------------------------------------------------------------------------------ bids


def test_rulebook_example_one_red_three_blue_beats_four_yellow_b8() -> None:
    """B-8, the rulebook's example: a bid of 1 red and 3 blue gems is higher than 4 yellow gems."""
    assert beats(held(red=1, blue=3), held(yellow=4))
    assert not beats(held(yellow=4), held(red=1, blue=3))


def test_rulebook_example_in_a_negotiation_b8() -> None:
    """B-8: Max offers 4 yellow; Hanna may raise to 1 red + 3 blue (same number, higher value)."""
    holdings = [gems(red=1, blue=3), gems(red=4, yellow=4), EACH]
    history = play(negotiating(holdings), (MAX, Bid(gems=gems(yellow=4))))
    given(GAME, history).when(HANNA, Bid(gems=gems(red=1, blue=3))).then(
        [BidPlaced(seat=HANNA, action="B", gems=gems(red=1, blue=3))]
    )


@pytest.mark.parametrize(
    ("raise_", "current", "wins"),
    [
        (gems(blue=3), gems(red=2), True),  # by number: more gems, colours do not matter
        (gems(red=1, blue=1), gems(blue=2), True),  # by value: as many gems, more red
        (
            gems(yellow=2, blue=1),
            gems(yellow=2, green=1),
            False,
        ),  # by value: compare red, yellow, green, blue
        (gems(yellow=2, green=1), gems(yellow=2, blue=1), True),
        (gems(blue=2), gems(blue=2), False),  # an equal bid does not beat
        (gems(red=1), gems(blue=2), False),  # never fewer gems, whatever their value
    ],
)
def test_a_raise_beats_by_number_or_by_value_b8(raise_: Gems, current: Gems, wins: bool) -> None:
    """B-8: a bid beats another with more gems, or as many and more by value (red, yellow, green, blue)."""
    assert beats(raise_.counts(), current.counts()) is wins
    holdings = [gems(red=3, yellow=3, green=3, blue=3), gems(red=4, yellow=3, green=3, blue=3), EACH]
    history = play(negotiating(holdings), (MAX, Bid(gems=current)))
    scenario = given(GAME, history).when(HANNA, Bid(gems=raise_))
    if wins:
        scenario.then([BidPlaced(seat=HANNA, action="B", gems=raise_)])
    else:
        scenario.rejects("B-8", "bid_too_low")


def test_max_and_hanna_negotiate_as_in_the_rulebook_b8() -> None:
    """B-8, the rulebook's example: Max offers 1 yellow, Hanna raises to 1 red, ... Hanna offers 3 blue,
    Max accepts: he receives the 3 blue gems from Hanna (his own offered gems never left him), Hanna performs.
    """
    history = play(
        negotiating(),
        (MAX, Bid(gems=gems(yellow=1))),
        (HANNA, Bid(gems=gems(red=1))),
        (MAX, Bid(gems=gems(green=1, blue=1))),
        (HANNA, Bid(gems=gems(blue=3))),
    )
    before = state_of(history)
    state = (
        given(GAME, history)
        .when(MAX, Accept())
        .then(
            [
                BidAccepted(seat=MAX, bidder=HANNA, action="B", gems=gems(blue=3)),
                PointsScored(seat=HANNA, card=1, points=7),  # Hanna performs B with her current card
                CardsDealt(stage=1, round=2, cards=(5, 6, 7)),
            ]
        )
    )
    assert state.players[MAX].gems == held(red=4, yellow=3, green=3, blue=6)
    assert state.players[HANNA].gems == held(red=3, yellow=3, green=3, blue=0)  # her 1 red bid was replaced
    assert state.players[MAX].points == 0 and state.players[HANNA].points == 7
    assert state.stock == before.stock  # payments never touch the stock (B-7)


def test_a_raise_replaces_the_earlier_bid_entirely_b8() -> None:
    """B-8: a raise replaces that player's earlier bid; the view shows each negotiator's latest bid only."""
    history = play(
        negotiating(),
        (MAX, Bid(gems=gems(yellow=1))),
        (HANNA, Bid(gems=gems(red=1))),
        (MAX, Bid(gems=gems(blue=2))),
    )
    talks = GAME.view(state_of(history), HANNA).negotiation
    assert talks is not None
    assert [(bid.seat, bid.gems) for bid in talks.bids] == [(MAX, gems(blue=2)), (HANNA, gems(red=1))]
    assert (talks.current_bid, talks.current_bidder, talks.to_move) == (gems(blue=2), MAX, HANNA)
    # bids are declarations: every gem is still with its owner
    state = state_of(history)
    assert state.players[MAX].gems == MAX_RICHER[MAX].counts() and state.players[HANNA].gems == EACH.counts()


def test_the_first_bid_cannot_be_accepted_b8() -> None:
    """B-8: the first bidder must offer; there is nothing to accept yet."""
    given(GAME, negotiating()).when(MAX, Accept()).rejects("B-8", "nothing_to_accept")


def test_a_bid_is_non_empty_b8() -> None:
    """B-8: a bid is a non-empty set of gems."""
    given(GAME, negotiating()).when(MAX, Bid(gems=Gems())).rejects("B-8", "empty_bid")


def test_a_bid_is_of_gems_the_bidder_owns_b8() -> None:
    """B-8: a bid is made of gems the bidder owns."""
    given(GAME, negotiating()).when(MAX, Bid(gems=gems(red=5))).rejects("B-8", "not_your_gems")


def test_negative_counts_are_refused_b8() -> None:
    """B-8: a gem count cannot be negative (decoding refuses it; so does decide)."""
    given(GAME, negotiating()).when(MAX, Bid(gems=Gems(red=2, blue=-1))).rejects("B-8", "bad_gems")


def test_negotiators_alternate_b8() -> None:
    """B-8: only the player to move bids or accepts; the other negotiator and bystanders are refused."""
    history = negotiating()
    given(GAME, history).when(HANNA, Bid(gems=gems(red=1))).rejects("B-8", "not_your_turn")
    given(GAME, history).when(SARAH, Bid(gems=gems(red=1))).rejects("B-8", "not_your_turn")
    given(GAME, started(3)).when(HANNA, Accept()).rejects("B-8", "not_negotiating")


# ------------------------------------------------------------------------------------- ends of a negotiation


def test_a_player_who_cannot_beat_the_bid_may_only_accept_b8() -> None:
    """B-8: Hanna owns a single blue gem against Max's 2 blue: legal shows only accept, bids are refused."""
    history = play(negotiating([gems(blue=1), EACH, EACH]), (MAX, Bid(gems=gems(blue=2))))
    state = state_of(history)
    assert GAME.pending(state) == [Pending(seat=HANNA, decision="accept")]
    assert decisions(GAME.legal(state, HANNA)) == [Accept()]
    assert not can_beat(held(blue=1), held(blue=2))
    given(GAME, history).when(HANNA, Bid(gems=gems(blue=1))).rejects("B-8", "bid_too_low")
    after = given(GAME, history).when(HANNA, Accept()).then()
    assert after.players[HANNA].gems == held(blue=3)
    assert after.players[MAX].points == 7  # Max performs B: his current card (2) shows 7 points


def test_a_first_bidder_without_gems_lets_the_other_win_for_free_b8() -> None:
    """B-8: if the first bidder owns no gem at all, the other player wins the action for free.

    Hanna and Max own nothing; all else equal, Hanna (the eldest) bids first, so Max wins B for free.
    """
    history = play(
        started(3, holdings=[Gems(), Gems(), EACH]),
        (HANNA, ChooseAction(action="B")),
        (SARAH, ChooseAction(action="A")),
    )
    events = given(GAME, history).when(MAX, ChooseAction(action="B")).decide()
    assert of_type(events, NegotiationOpened) == []
    assert of_type(events, WonForFree) == [WonForFree(action="B", seat=MAX, opponent=HANNA)]
    assert of_type(events, PointsScored) == [PointsScored(seat=MAX, card=2, points=7)]


# ------------------------------------------------------------------------------------------ legal bids


def _all_bids(holdings: Counts) -> list[Counts]:
    """Every non-empty handful of ``holdings``, by brute force."""
    ranges = [range(count + 1) for count in holdings]
    return [counts for counts in product(*ranges) if sum(counts)]


def test_legal_lists_every_beating_bid_when_few_b8() -> None:
    """B-8: while at most 256 bids beat the current one, legal lists them all whole (and accept)."""
    history = play(negotiating(), (MAX, Bid(gems=gems(yellow=2, blue=1))))
    state = state_of(history)
    listed = decisions(GAME.legal(state, HANNA))
    assert listed[0] == Accept()
    bids = [command.gems.counts() for command in listed[1:] if isinstance(command, Bid)]
    assert len(bids) == len(listed) - 1
    expected = [bid for bid in _all_bids(EACH.counts()) if beats(bid, held(yellow=2, blue=1))]
    assert sorted(bids) == sorted(expected)
    for command in listed:
        GAME.decide(state, HANNA, command, _rng())


def test_the_opening_bid_lists_every_non_empty_handful_b8() -> None:
    """B-8: the first bid may hold any number of gems of any colour, at least one: 4*4*4*4 - 1 of them."""
    state = state_of(negotiating([EACH, EACH, EACH]))
    assert GAME.pending(state) == [Pending(seat=HANNA, decision="open_bid")]  # the eldest opens
    listed = decisions(GAME.legal(state, HANNA))
    assert len(listed) == 4 * 4 * 4 * 4 - 1 <= BID_LIST_LIMIT
    assert all(isinstance(command, Bid) for command in listed)


def test_many_beating_bids_are_listed_step_wise_b8() -> None:
    """B-8: with 5 of each colour (1295 bids) legal lists bid steps by colour: red, yellow, green, blue."""
    rich = [EACH, gems(red=5, yellow=5, green=5, blue=5), EACH]
    history = negotiating(rich)
    state = state_of(history)
    assert decisions(GAME.legal(state, MAX)) == [BidColour(colour="red", count=n) for n in range(6)]
    history = play(
        history,
        (MAX, BidColour(colour="red", count=0)),
        (MAX, BidColour(colour="yellow", count=0)),
        (MAX, BidColour(colour="green", count=0)),
    )
    assert of_type(history, BidDrafted)[-1] == BidDrafted(seat=MAX, colour="green", count=0)
    state = state_of(history)
    talks = GAME.view(state, None).negotiation
    assert talks is not None and talks.draft == (0, 0, 0)
    # an empty bid cannot open: blue must be at least 1
    assert decisions(GAME.legal(state, MAX)) == [BidColour(colour="blue", count=n) for n in range(1, 6)]
    given(GAME, history).when(MAX, BidColour(colour="blue", count=0)).rejects("B-8", "empty_bid")
    given(GAME, history).when(MAX, BidColour(colour="red", count=1)).rejects("B-8", "wrong_colour")
    given(GAME, history).when(MAX, BidColour(colour="blue", count=2)).then(
        [BidPlaced(seat=MAX, action="B", gems=gems(blue=2))]
    )


def test_a_step_that_cannot_win_is_refused_b8() -> None:
    """B-8: a bid step is refused when no bid starting with it can beat the current bid."""
    rich = [gems(red=4, yellow=4, green=4, blue=4), gems(red=5, yellow=5, green=5, blue=5), EACH]
    hannas = gems(red=4, yellow=4, green=2)
    history = play(negotiating(rich), (MAX, Bid(gems=gems(blue=1))), (HANNA, Bid(gems=hannas)))
    assert (
        beating_bids(rich[MAX].counts(), hannas.counts()) is None
    )  # 598 bids beat Hanna's 10 gems: listed step-wise
    assert decisions(GAME.legal(state_of(history), MAX)) == [Accept()] + [
        BidColour(colour="red", count=n) for n in range(6)
    ]
    history = play(history, (MAX, BidColour(colour="red", count=0)))
    # no red: even 5 green + 5 blue is 10 gems of less value than 4 red + 4 yellow + 2 green, so 1+ yellow
    assert decisions(GAME.legal(state_of(history), MAX)) == [Accept()] + [
        BidColour(colour="yellow", count=n) for n in range(1, 6)
    ]
    given(GAME, history).when(MAX, BidColour(colour="yellow", count=0)).rejects("B-8", "bid_too_low")
    given(GAME, history).when(MAX, BidColour(colour="yellow", count=9)).rejects("B-8", "not_your_gems")
    accepted = given(GAME, history).when(MAX, Accept()).then()  # accepting stays open during a step-wise bid
    assert accepted.players[MAX].gems == plus(rich[MAX].counts(), hannas.counts())


def test_a_whole_bid_is_accepted_even_when_legal_lists_steps_b8() -> None:
    """B-8: decide accepts any valid bid, whether legal lists it whole or as steps."""
    rich = [EACH, gems(red=5, yellow=5, green=5, blue=5), EACH]
    given(GAME, negotiating(rich)).when(MAX, Bid(gems=gems(red=1, green=4))).then(
        [BidPlaced(seat=MAX, action="B", gems=gems(red=1, green=4))]
    )


counts = st.integers(min_value=0, max_value=4)
handfuls = st.tuples(counts, counts, counts, counts)


@hypothesis_given(holdings=handfuls, current=st.one_of(st.none(), handfuls))
def test_beating_bids_are_exactly_the_brute_force_ones_b8(holdings: Counts, current: Counts | None) -> None:
    """B-8: the listed bids are exactly the handfuls that beat the current bid; the steps agree with them."""
    expected = [bid for bid in _all_bids(holdings) if beats(bid, current)]
    listed = beating_bids(holdings, current, limit=10_000)
    assert listed is not None
    assert sorted(listed) == sorted(expected)
    assert can_beat(holdings, current) is bool(expected)
    for red in range(holdings[0] + 1):
        assert can_complete((red,), holdings, current) is any(bid[0] == red for bid in expected)
    small = beating_bids(holdings, current, limit=3)
    assert small is None if len(expected) > 3 else small is not None and len(small) == len(expected)


def _rng() -> Rng:
    """A generator for deciding outside a scenario."""
    return Rng("legal", "v0")
