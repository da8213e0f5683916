"""The Johari decider (J-1..J-19) behind the generic ``Game`` surface, plus the score sheet (J-17)."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.core import Command, Event, GameConfig, Pending, Rejected, Result, Rng, ScoreSheet
from domain.johari import rules, view
from domain.johari.commands import JohariCommand
from domain.johari.components import COLOURS, DATA
from domain.johari.events import JohariEvent
from domain.johari.scoring import ranking, score
from domain.johari.state import State


class JohariOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Johari has no options."""


class JohariGame:
    """Johari by Carlo Lavezzi, as the rule page ``rules/johari.md`` plays it."""

    name = "johari"
    title = "Johari"
    rules = "rules/johari.md"
    min_players = 2
    max_players = 4
    options_type: type[msgspec.Struct] = JohariOptions
    command_type: Any = JohariCommand
    event_type: Any = JohariEvent
    view_type: Any = view.JohariView

    def validate_config(self, config: GameConfig) -> None:
        """J-1: 2 to 4 players."""
        if not self.min_players <= len(config.players) <= self.max_players:
            raise Rejected("bad_player_count", rule="J-1", detail="Johari is for 2 to 4 players")
        if not isinstance(config.options, JohariOptions):
            raise Rejected("bad_options", rule=None, detail="Johari takes no options")

    def initial(self) -> State:
        """The empty state before GameStarted."""
        return State()

    def setup(self, config: GameConfig, rng: Rng) -> list[Event]:
        """J-6..J-8: the opening events."""
        self.validate_config(config)
        return rules.setup(config, rng)

    def decide(self, state: State, seat: int, command: Command, rng: Rng) -> list[Event]:
        """Validate and resolve one command (see ``rules.decide``)."""
        return rules.decide(state, seat, command, rng)

    def evolve(self, state: State, event: Event) -> State:
        """Apply one event (see ``rules.evolve``)."""
        return rules.evolve(state, event)

    def view(self, state: State, seat: int | None) -> msgspec.Struct:
        """J-18: what ``seat`` may see."""
        return view.view(state, seat)

    def redact(self, event: Event, seat: int | None) -> msgspec.Struct:
        """J-18: the event without the secrets ``seat`` may not know."""
        return view.redact(event, seat)

    def pending(self, state: State) -> list[Pending]:
        """Who owes which decision now."""
        return rules.pending(state)

    def legal(self, state: State, seat: int) -> list[Command]:
        """Every command ``seat`` may send now."""
        return rules.legal(state, seat)

    def is_over(self, state: State) -> bool:
        """J-15: over after Market Day 10."""
        return state.phase == "over"

    def result(self, state: State) -> Result:
        """J-15: totals, ranks by total then Gem Token sum, several winners on a full tie."""
        scores = [score(p) for p in state.players]
        ranks, winners = ranking(scores)
        return Result(
            scores=tuple(s.total for s in scores),
            ranks=ranks,
            winners=winners,
            note="ties broken by the sum of Gem Token positions (J-15)",
        )

    def scoresheet(self, state: State) -> ScoreSheet:
        """J-17: gold, Gem Tokens, Nobles, Prestige Cards (public, J-18), end-game bonuses, total; the
        winners' row once the game is over."""
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


GAME = JohariGame()
