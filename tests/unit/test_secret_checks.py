"""The secret checks of tests/support/secrets.py themselves: they find every secret in unredacted documents
(so the HTTP walker cannot pass by missing a leak) and nothing in the documents the games really serve."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from domain.bazaar.events import BazaarDealt
from domain.core import Event, Game, GameConfig, Rng, fold
from domain.registry import all_games
from domain.resign import decisions
from tests.support.secrets import (
    Secrets,
    basari_secrets,
    bazaar_secrets,
    encodings,
    johari_secrets,
    leaks,
)

GAMES = all_games()
JSON = "application/json"


def play_to(name: str, players: int, stop: Callable[[Any], bool], seed: str) -> tuple[Any, list[Event]]:
    """Random legal play from set-up until ``stop`` holds (fails if the game ends first)."""
    game: Game[Any] = GAMES[name]
    config = GameConfig(players=tuple(f"p{i}" for i in range(players)), options=game.options_type())
    events = game.setup(config, Rng(seed, "setup"))
    state = fold(game, events)
    chooser = random.Random(seed)
    while not stop(state):
        assert not game.is_over(state), "the game ended before the point looked for"
        seat = chooser.choice(game.pending(state)).seat
        new = game.decide(
            state, seat, chooser.choice(decisions(game.legal(state, seat))), Rng(seed, f"v{len(events)}")
        )
        state = fold(game, new, state)
        events += new
    return state, events


def detail(game: Game[Any], state: Any, seat: int | None) -> str:
    """A game detail document holding the view of ``seat``."""
    return msgspec.json.encode({"view": game.view(state, seat)}).decode()


def history(game: Game[Any], events: list[Event], seat: int | None, redacted: bool) -> str:
    """An events page, redacted for ``seat`` or whole."""
    out = [
        {"version": i + 1, "type": "x", "data": game.redact(e, seat) if redacted else e}
        for i, e in enumerate(events)
    ]
    return msgspec.json.encode({"events": out}).decode()


def test_basari_mid_pick_leaks_are_found() -> None:
    """B-12: another seat's pick in the view, unredacted picks and pile order in the history."""
    game = GAMES["basari"]

    def mid_pick(state: Any) -> bool:
        return bool(state.phase == "choose" and state.picked[1] and not state.picked[0])

    state, events = play_to("basari", 4, mid_pick, "checks-basari")
    secrets = basari_secrets(state, 0, False, len(events))
    assert not leaks(detail(game, state, 0), JSON, "detail", secrets)
    assert not leaks(history(game, events, 0, redacted=True), JSON, "events", secrets)
    assert leaks(detail(game, state, 1), JSON, "detail", secrets)
    found = leaks(history(game, events, 0, redacted=False), JSON, "events", secrets)
    assert any("pick" in leak for leak in found) and any("order" in leak for leak in found), found


def test_bazaar_face_down_leaks_are_found() -> None:
    """Z-15: the stalls' face-down cards and the unused wares in the unredacted history."""
    game = GAMES["bazaar"]
    state, events = play_to("bazaar", 3, lambda s: any(player.wares for player in s.players), "checks-bz")
    dealt = next(e for e in events if isinstance(e, BazaarDealt))
    secrets = bazaar_secrets(state, dealt.set_aside or (), False)
    assert not leaks(detail(game, state, None), JSON, "detail", secrets)
    assert not leaks(history(game, events, None, redacted=True), JSON, "events", secrets)
    found = leaks(history(game, events, None, redacted=False), JSON, "events", secrets)
    assert any("face-down" in leak for leak in found), found
    unused = msgspec.json.encode({"ware": next(iter(dealt.set_aside or ()))}).decode()
    assert leaks(unused, JSON, "other", secrets), "an unused ware's id under 'ware' is a leak"


def test_johari_leaks_are_found() -> None:
    """J-18: another seat's face-down card and hand, the draw pile and Noble stack are found; another seat's
    Prestige Cards (public since J-13/J-18 say so) are not a leak."""
    game = GAMES["johari"]

    def mid_play_with_prestige(state: Any) -> bool:
        if state.phase != "play" or not state.players[1].prestige:
            return False
        return (
            state.players[1].slots[state.round - 1] is not None
            and state.players[0].slots[state.round - 1] is None
        )

    state, events = play_to("johari", 3, mid_play_with_prestige, "checks-johari")
    secrets = johari_secrets(state, 0, False, len(events))
    assert not leaks(detail(game, state, 0), JSON, "detail", secrets)
    assert not leaks(history(game, events, 0, redacted=True), JSON, "events", secrets)
    assert game.view(state, 0).players[1].prestige_cards == state.players[1].prestige  # shown, and no leak
    in_view = leaks(detail(game, state, 1), JSON, "detail", secrets)
    assert any("unrevealed" in leak for leak in in_view) and any("hand" in leak for leak in in_view), in_view
    in_history = leaks(history(game, events, 0, redacted=False), JSON, "events", secrets)
    for word in ("draw pile", "Noble stack", "action card"):
        assert any(word in leak for leak in in_history), (word, in_history)


@pytest.mark.parametrize("media", [JSON, "text/csv", "application/x-ndjson"])
def test_tokens_and_seeds_are_found_in_any_encoding(media: str) -> None:
    """A token or seed, plain, hex or base64, anywhere in a body."""
    secret = "seed-checks-0123456789abcdef"
    secrets = Secrets(strings=encodings(secret))
    for shown in encodings(secret):
        body = {JSON: f'{{"x": "{shown}"}}', "text/csv": f"a,b\n1,{shown}\n"}.get(
            media, f'{{"x": "{shown}"}}\n'
        )
        assert leaks(body, media, "other", secrets)
    assert not leaks('{"x": "seed-checks"}', JSON, "other", secrets)
