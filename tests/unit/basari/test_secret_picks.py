"""B-6, B-12: secret picks revealed at once in one event, and a draw pile whose order nobody sees."""

from __future__ import annotations

import msgspec

from domain.basari import GAME
from domain.basari.commands import ChooseAction
from domain.basari.events import ActionChosen, ActionsRevealed, CardDrawn, PileShuffled
from domain.core import Pending
from domain.resign import decisions
from tests.support.scenario import given

from .tables import HANNA, MAX, SARAH, after, new_events, play, started, state_of


def test_everybody_picks_in_step_two_b6() -> None:
    """B-6: after the deal every player owes a pick; each may pick any of their action cards."""
    state = state_of(started(3))
    assert GAME.pending(state) == [Pending(seat=seat, decision="choose_action") for seat in (0, 1, 2)]
    assert decisions(GAME.legal(state, MAX)) == [ChooseAction(action=a) for a in ("A", "B", "C")]


def test_a_pick_alone_reveals_nothing_b6() -> None:
    """B-6: a pick that is not the last causes only ActionChosen; the pick's seat no longer owes one."""
    given(GAME, started(3)).when(HANNA, ChooseAction(action="B")).then([ActionChosen(seat=HANNA, action="B")])
    state = state_of(play(started(3), (HANNA, ChooseAction(action="B"))))
    assert [p.seat for p in GAME.pending(state)] == [MAX, SARAH]
    assert decisions(GAME.legal(state, HANNA)) == []


def test_the_last_pick_reveals_all_picks_in_one_event_b6() -> None:
    """B-6: once all have picked, all picks are revealed at once, in ONE event with every pick."""
    history = play(started(3), (HANNA, ChooseAction(action="B")), (SARAH, ChooseAction(action="A")))
    events = given(GAME, history).when(MAX, ChooseAction(action="C")).decide()
    assert events[0] == ActionChosen(seat=MAX, action="C")
    reveals = [event for event in events if isinstance(event, ActionsRevealed)]
    assert reveals == [ActionsRevealed(picks=("B", "C", "A"))]
    assert events[1] == reveals[0]  # revealed before anything is resolved


def test_a_player_picks_once_b6() -> None:
    """B-6: exactly one action card per round; a second pick is refused."""
    history = play(started(3), (HANNA, ChooseAction(action="B")))
    given(GAME, history).when(HANNA, ChooseAction(action="A")).rejects("B-6", "already_picked")


def test_picks_only_in_step_two_b6() -> None:
    """B-6: once the picks are revealed (here a negotiation runs), nobody picks."""
    scenario = after(
        started(3),
        (0, ChooseAction(action="B")),
        (1, ChooseAction(action="B")),
        (2, ChooseAction(action="A")),
    )
    assert scenario.state.phase == "negotiate"
    scenario.when(SARAH, ChooseAction(action="C")).rejects("B-6", "not_choosing")


def test_view_hides_other_picks_until_the_reveal_b6_b12() -> None:
    """B-6, B-12: before the reveal a seat sees its own pick only; others and spectators see just "picked"."""
    state = state_of(play(started(3), (HANNA, ChooseAction(action="B"))))
    own = GAME.view(state, HANNA).players[HANNA]
    assert (own.picked, own.action) == (True, "B")
    for viewer in (MAX, SARAH, None):
        seen = GAME.view(state, viewer).players[HANNA]
        assert (seen.picked, seen.action) == (True, None)
        assert b'"B"' not in msgspec.json.encode(GAME.view(state, viewer).players)
    assert GAME.view(state, MAX).picks_revealed is False


def test_view_shows_all_picks_after_the_reveal_b6() -> None:
    """B-6: after the reveal every pick is public."""
    state = state_of(
        play(
            started(3),
            (HANNA, ChooseAction(action="B")),
            (MAX, ChooseAction(action="B")),
            (SARAH, ChooseAction(action="A")),
        )
    )
    for viewer in (HANNA, MAX, SARAH, None):
        view = GAME.view(state, viewer)
        assert view.picks_revealed
        assert [p.action for p in view.players] == ["B", "B", "A"]


def test_redact_hides_a_pick_from_everybody_but_the_picker_b12() -> None:
    """B-12: an ActionChosen event reaches other seats and spectators without its action."""
    event = ActionChosen(seat=HANNA, action="C")
    assert GAME.redact(event, HANNA) == event
    for viewer in (MAX, SARAH, None):
        redacted = GAME.redact(event, viewer)
        assert redacted == ActionChosen(seat=HANNA, action=None)
        assert b'"C"' not in msgspec.json.encode(redacted)


def test_redact_never_shows_the_pile_order_b12() -> None:
    """B-12: the draw pile's order is secret: the shuffle event keeps only the pile's size, for everybody."""
    shuffled = started(3)[1]
    assert isinstance(shuffled, PileShuffled)
    for viewer in (HANNA, MAX, SARAH, None):
        redacted = GAME.redact(shuffled, viewer)
        assert isinstance(redacted, PileShuffled)
        assert (redacted.stage, redacted.size, redacted.order) == (1, 39, None)


def test_view_shows_the_pile_size_not_its_order_b12() -> None:
    """B-12: the view shows how many cards the draw pile holds, never which or in what order."""
    state = state_of(started(3))
    for viewer in (HANNA, None):
        view = GAME.view(state, viewer)
        assert view.draw_pile == 36
        encoded = msgspec.json.decode(msgspec.json.encode(view))
        assert "pile" not in encoded and isinstance(encoded["draw_pile"], int)
        shown_cards = {card["id"] for player in encoded["players"] for card in player["cards"]}
        assert shown_cards == {1, 2, 3}  # only the dealt cards, face up


def test_revealed_events_pass_redaction_unchanged_b12() -> None:
    """B-12: everything else is public: the reveal and a card drawn with action A reach everybody whole."""
    history = play(started(3), (HANNA, ChooseAction(action="A")), (MAX, ChooseAction(action="B")))
    events = new_events(history, play(history, (SARAH, ChooseAction(action="C"))))
    for event in events:
        if isinstance(event, (ActionsRevealed, CardDrawn)):
            assert GAME.redact(event, None) == event
