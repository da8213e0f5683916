"""The decider surface every game implements, the Rejected error and the seeded generator.

A game is a pure decider (docs/architecture.md "Where a rule lives"):

    state   = fold(evolve, events, game.initial())
    events  = game.decide(state, seat, command, rng)      # raises Rejected, never mutates
    state'  = game.evolve(state, event)                   # never validates, never fails, never mutates

Randomness never happens in ``evolve``: ``setup`` and ``decide`` draw from an ``Rng`` handed in by the
service and write the outcome (the deck order, the die face) into the events, so a replay is a pure fold
and an auditor can re-derive every draw from the revealed seed (see ``Rng`` for the construction).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import msgspec

__all__ = [
    "Command",
    "Event",
    "Game",
    "GameConfig",
    "GameSpec",
    "Pending",
    "Rejected",
    "Result",
    "Rng",
    "ScoreSheet",
    "TimeControl",
    "commitment",
    "fold",
    "shown",
]


def shown(value: Any) -> str:
    """A value as an error detail shows it: as JSON (a string in double quotes, a list in brackets)."""
    return msgspec.json.encode(value).decode()


class Rejected(Exception):
    """A command refused by the rules: ``code`` names the refusal, ``rule`` cites the ruling (e.g. "B-8")."""

    def __init__(self, code: str, rule: str | None = None, detail: str = "") -> None:
        super().__init__(detail or code)
        self.code = code
        self.rule = rule
        self.detail = detail or code.replace("_", " ")


# forbid_unknown_fields: a misspelt field must be refused (400), not let an optional field keep its default
class Command(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=True):
    """Base of every command: a verb, tagged by ``type`` in its JSON body (``{"type": "bid", ...}``)."""


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every event: past tense, tagged by ``type``; ``schema_version`` is stored beside it."""

    schema_version: ClassVar[int] = 1


class TimeControl(msgspec.Struct, frozen=True, kw_only=True):
    """A game's clock (``domain.clock``): each decision may take ``decision_ms``; past that the
    seat's bank (``bank_ms`` at the start) runs down; ``max_timeouts`` timeouts hand the seat to the
    stand-in. ``start`` is when the opening decisions fell due (milliseconds since the Unix epoch, UTC),
    stamped by the service: the domain reads no clock. ``first_grace_ms``: extra time for each seat's first
    decision (a rated game's: the joiner who starts it gets to the board)."""

    decision_ms: int
    bank_ms: int = 0
    max_timeouts: int = 3
    start: int = 0
    first_grace_ms: int = 0


class GameConfig(msgspec.Struct, frozen=True, kw_only=True):
    """What a game is created with: the seated players' names (seat = index), the validated options and
    its clock (None: untimed)."""

    players: tuple[str, ...]
    options: msgspec.Struct
    clock: TimeControl | None = None


D = TypeVar("D", bound=str, covariant=True)  # a game's decision kinds: a Literal of its own


class Pending(msgspec.Struct, Generic[D], frozen=True, kw_only=True):
    """A seat that must act now and the kind of decision it owes (several seats at once in secret picks)."""

    seat: int
    decision: D


class Result(msgspec.Struct, frozen=True, kw_only=True):
    """The outcome of a finished game: per seat its score and rank (1 is best; equal ranks tie).

    ``lower_is_better``: the scores count turns taken (Bazaar solitaire, Z-12), fewer is better; ``solved``
    says whether such a game met its target (None for every game scored in points, higher is better).
    """

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    winners: tuple[int, ...]
    note: str = ""
    lower_is_better: bool = False
    solved: bool | None = None


class ScoreSheet(msgspec.Struct, frozen=True, kw_only=True):
    """A score sheet as a table: the same rows serve JSON and CSV. Once ``final``, the last row is the rule
    page's final row, naming ``winners`` (the result's winners, see ``GameSpec.scoresheet``)."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str | int | None, ...], ...]
    winners: tuple[str, ...]
    final: bool


S = TypeVar("S")


class Game(Protocol[S]):
    """The surface every game exposes (as ``GAME``), so the service stays generic."""

    @property
    def name(self) -> str:
        """The game's key in URLs and the store: "basari", "bazaar", "johari"."""
        ...

    @property
    def title(self) -> str:
        """The human name."""
        ...

    @property
    def rules(self) -> str:
        """The rule-sheet reference, e.g. "rules/basari.md"."""
        ...

    @property
    def min_players(self) -> int:
        """The fewest players the rules seat."""
        ...

    @property
    def max_players(self) -> int:
        """The most players the rules seat."""
        ...

    @property
    def options_type(self) -> type[msgspec.Struct]:
        """The game's options, all fields with defaults."""
        ...

    @property
    def command_type(self) -> Any:
        """The tagged union of the game's commands (for msgspec decoding and OpenAPI)."""
        ...

    @property
    def event_type(self) -> Any:
        """The tagged union of the game's events (one typed decoder reads a whole history)."""
        ...

    @property
    def view_type(self) -> Any:
        """The struct ``view`` returns."""
        ...

    def validate_config(self, config: GameConfig, /) -> None:
        """Refuse a player count or option combination the rules do not allow (raises Rejected)."""
        ...

    def initial(self) -> S:
        """The empty state every history is folded from."""
        ...

    def setup(self, config: GameConfig, rng: Rng, /) -> list[Event]:
        """The opening events: players, options, shuffled decks, dealt cards."""
        ...

    def decide(self, state: S, seat: int, command: Command, rng: Rng, /) -> list[Event]:
        """Validate ``command`` from ``seat`` and return the events it causes; raise Rejected otherwise."""
        ...

    def evolve(self, state: S, event: Event, /) -> S:
        """Apply one event; never validates, never fails on a stored event, never mutates ``state``."""
        ...

    def view(self, state: S, seat: int | None, /) -> msgspec.Struct:
        """What ``seat`` (None: a spectator) may see now; once over, its winners are ``result``'s."""
        ...

    def redact(self, event: Event, seat: int | None, /) -> msgspec.Struct:
        """The event as ``seat`` (None: a spectator) may see it while the game runs (secrets removed)."""
        ...

    def pending(self, state: S, /) -> Sequence[Pending[str]]:
        """Who must act now and the kind of decision each owes."""
        ...

    def legal(self, state: S, seat: int, /) -> list[Command]:
        """Every command ``seat`` may send now; complete (a client posting only these can finish the game)."""
        ...

    def is_over(self, state: S, /) -> bool:
        """Whether the game has ended."""
        ...

    def result(self, state: S, /) -> Result:
        """Scores, ranks and winners with the game's tie-breaks applied (meaningful once over)."""
        ...

    def scoresheet(self, state: S, /) -> ScoreSheet:
        """The score sheet of the rule page, so far; once over, its final row names ``result``'s winners."""
        ...


@dataclass(frozen=True, kw_only=True)
class GameSpec(Generic[S]):
    """One game declared: its metadata and the pure functions of its decider (see ``Game`` for each role).

    Each game package declares exactly one ``GAME = GameSpec(...)``; the player count and the options type
    are checked here once for every game (``validate_config``), and ``setup`` checks them before dealing.
    """

    name: str
    title: str
    rules: str
    min_players: int
    max_players: int
    players_rule: str  # the ruling that fixes the player count, e.g. "B-1"
    options_type: type[msgspec.Struct]
    command_type: Any
    event_type: Any
    view_type: Any
    initial: Callable[[], S]
    deal: Callable[[GameConfig, Rng], list[Event]]  # the opening events of a validated config
    decide: Callable[[S, int, Command, Rng], list[Event]]
    evolve: Callable[[S, Event], S]
    # what a seat (None: a spectator) sees: the table so far (outcome None), or over with the outcome's winners
    table: Callable[[S, int | None, Result | None], msgspec.Struct]
    redact: Callable[[Event, int | None], msgspec.Struct]
    pending: Callable[[S], Sequence[Pending[str]]]
    legal: Callable[[S, int], list[Command]]
    is_over: Callable[[S], bool]
    result: Callable[[S], Result]
    # the rule page's score sheet: so far (outcome None), or final with the outcome's winners in its last row
    sheet: Callable[[S, Result | None], ScoreSheet]

    def validate_config(self, config: GameConfig, /) -> None:
        """The rule page's player count (``players_rule``) and the game's own options type (raises Rejected)."""
        count = len(config.players)
        if not self.min_players <= count <= self.max_players:
            raise Rejected(
                "bad_player_count",
                rule=self.players_rule,
                detail=f"{self.title} seats {self.min_players} to {self.max_players} players, not {count}",
            )
        if not isinstance(config.options, self.options_type):
            raise Rejected("bad_options", detail=f"{self.title}'s options are {self.options_type.__name__}")

    def setup(self, config: GameConfig, rng: Rng, /) -> list[Event]:
        """The opening events, once the config is valid (raises Rejected otherwise)."""
        self.validate_config(config)
        return self.deal(config, rng)

    def scoresheet(self, state: S, /) -> ScoreSheet:
        """The score sheet so far; once over, final and a view of ``result``: one ranking names the winners."""
        return self.sheet(state, self._outcome(state))

    def view(self, state: S, seat: int | None, /) -> msgspec.Struct:
        """What ``seat`` sees; once over, its outcome (over, winners, scores) is ``result``'s, as on the sheet."""
        return self.table(state, seat, self._outcome(state))

    def _outcome(self, state: S) -> Result | None:
        """The game's ``result`` once it is over (None while it runs): what the sheet and the views show."""
        return self.result(state) if self.is_over(state) else None


def _a_spec_is_a_game(spec: GameSpec[S]) -> Game[S]:
    """Never called: mypy proves here, once for every game and state type, that a GameSpec is a Game."""
    return spec


def fold(game: Game[S], events: Iterable[Event], state: S | None = None) -> S:
    """Rebuild a state by applying events in order to ``state`` (default: the game's initial state)."""
    current = game.initial() if state is None else state
    for event in events:
        current = game.evolve(current, event)
    return current


def commitment(secret: str) -> str:
    """The public commitment to a seed (or a seed's secret half): SHA-256 of its UTF-8 bytes, hex."""
    return hashlib.sha256(secret.encode()).hexdigest()


class Rng:
    """The seeded generator, documented so an auditor can re-derive every draw in any language.

    Construction (SHA-256 in counter mode):
      block(i) = SHA-256( UTF-8(seed) || 0x00 || UTF-8(context) || 0x00 || uint64_be(i) ),  i = 0, 1, 2, ...
    Each 32-byte block is read as four unsigned 64-bit big-endian words, in order; the words of
    block 0, then block 1, ... form the stream ``w0, w1, w2, ...``.

    ``below(n)`` (a uniform integer in 0..n-1): take the next word ``w``; if ``w >= limit`` where
    ``limit = 2**64 - (2**64 % n)``, discard it and take the next; else return ``w % n``.
    ``shuffle(xs)`` (Fisher-Yates): for ``i`` from ``len(xs)-1`` down to 1: ``j = below(i+1)``;
    swap ``xs[i]`` and ``xs[j]``.
    ``choice(xs)`` is ``xs[below(len(xs))]``.

    Contexts used by the service: ``"setup"`` for a game's opening events, and ``"v<N>"`` for the
    command decided when the game stood at version N (the number of events stored before it).
    """

    def __init__(self, seed: str, context: str) -> None:
        self._prefix = seed.encode() + b"\x00" + context.encode() + b"\x00"
        self._counter = 0
        self._words: list[int] = []

    def _next_word(self) -> int:
        """The next 64-bit word of the stream."""
        if not self._words:
            block = hashlib.sha256(self._prefix + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            self._words = [int.from_bytes(block[k : k + 8], "big") for k in (24, 16, 8, 0)]
        return self._words.pop()

    def below(self, n: int) -> int:
        """A uniform integer in 0..n-1 by rejection sampling (no modulo bias)."""
        if n <= 0:
            raise ValueError("below(n) needs n >= 1")
        limit = 2**64 - (2**64 % n)
        while True:
            word = self._next_word()
            if word < limit:
                return word % n

    def shuffle(self, items: Sequence[Any]) -> list[Any]:
        """A new list: ``items`` shuffled by Fisher-Yates from the last position down."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out

    def choice(self, items: Sequence[Any]) -> Any:
        """One element of ``items``, uniformly."""
        return items[self.below(len(items))]
