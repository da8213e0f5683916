"""The tournament's rules: ``decide`` (one match over the commands) validates a command against the state and
returns its events (raising ``Rejected``, never mutating); ``evolve`` is in ``evolve.py``."""

from __future__ import annotations

import unicodedata
from collections import Counter
from itertools import combinations

import msgspec

from domain.core import Command, Event, Rejected, Rng, shown
from domain.names import account_name_problem, looks_repeated, name_problem, skeleton
from domain.tournament.commands import (
    AdjudicateGame,
    AttachGames,
    CreateTournament,
    EnterPlayer,
    RecordGame,
    SeatNextRound,
    TerminateTournament,
    WithdrawPlayer,
)
from domain.tournament.events import (
    GameAdjudicated,
    GameFinished,
    GamesCreated,
    PlayerEntered,
    PlayerWithdrawn,
    RoundClosed,
    RoundSeated,
    SeatedTable,
    TournamentCompleted,
    TournamentCreated,
    TournamentTerminated,
)
from domain.tournament.seating import MIN_TABLE, game_seed, seat_first_round, seat_swiss, split_tables
from domain.tournament.standings import tallies
from domain.tournament.state import RoundState, State, TableState

__all__ = [
    "MAX_PLAYERS",
    "MAX_ROUNDS",
    "decide",
    "forfeited_seats",
    "meetings",
    "round_tables",
    "seating_rng",
    "table_of_game",
]

replace = msgspec.structs.replace

MAX_TITLE_LENGTH = 100  # the tournament's own name
MAX_PLAYERS = 200
MAX_ROUNDS = 50
MAX_SEED_LENGTH = 200  # as for games


def seating_rng(state: State) -> Rng:
    """The Rng every seating draws from: the tournament seed, ``"round-<n>"`` for round n.

    ``decide`` derives it from the state for ``SeatNextRound`` (whatever Rng it is handed), so a seating is
    a function of the stream alone and an auditor re-derives every one from the revealed tournament seed.
    """
    return Rng(state.seed, f"round-{len(state.rounds) + 1}")


def decide(state: State, command: Command, rng: Rng) -> list[Event]:
    """Validate ``command`` and return the events it causes; raise Rejected otherwise (``rng`` is drawn from
    only for a creation without a seed: a seating draws from ``seating_rng(state)``)."""
    match command:
        case CreateTournament():
            return _create(state, command, rng)
        case SeatNextRound():
            return _seat_next_round(_created(state))
        case AttachGames():
            return _attach_games(_created(state), command)
        case RecordGame():
            return _record_game(_created(state), command)
        case WithdrawPlayer():
            return _withdraw(_running(state), command)
        case EnterPlayer():
            return _enter(_running(state), command)
        case TerminateTournament():
            return [TournamentTerminated(round=len(_running(state).rounds))]
        case AdjudicateGame():
            return _adjudicate(_created(state), command)
    raise Rejected("unknown_command", detail=f"not a tournament command: {type(command).__name__}")


def _created(state: State) -> State:
    """The state, if the tournament exists."""
    if not state.created:
        raise Rejected("tournament_not_created", detail="the tournament has not been created")
    return state


def _running(state: State) -> State:
    """The state, if the tournament exists and is neither completed nor terminated."""
    _created(state)
    if state.completed:
        raise Rejected("tournament_complete", detail="every round has been played")
    if state.terminated:
        raise Rejected("tournament_terminated", detail="the organizer has terminated the tournament")
    return state


def _create(state: State, command: CreateTournament, rng: Rng) -> list[Event]:
    """Creation: unique names that can be shown (domain/names.py), enough players for a table split,
    rounds, table size."""
    if state.created:
        raise Rejected("tournament_exists", detail="the tournament has already been created")
    title = command.name.strip()
    if not title or len(title) > MAX_TITLE_LENGTH:
        raise Rejected("bad_tournament_name", detail=f"a tournament name is 1-{MAX_TITLE_LENGTH} characters")
    if not command.game:
        raise Rejected("bad_game", detail="a tournament needs a game")
    if not 1 <= command.min_players <= command.max_players:
        raise Rejected("bad_player_limits", detail="the game's player limits need 1 <= min <= max")
    names = tuple(name.strip() for name in command.players)
    for name in names:
        if problem := name_problem(name):
            raise Rejected("bad_player_name", detail=problem)
    if len(set(names)) != len(names):
        duplicated = sorted(name for name, n in Counter(names).items() if n > 1)
        raise Rejected("duplicate_player_name", detail=f"player names must differ: {shown(duplicated)}")
    if looks_repeated(names):
        raise Rejected("duplicate_player_name", detail="player names must not look alike")
    smallest = max(MIN_TABLE, command.min_players)  # Z-12: never a table of one
    if not smallest <= len(names) <= MAX_PLAYERS:
        raise Rejected(
            "bad_player_count",
            detail=f"a tournament of this game needs {smallest} to {MAX_PLAYERS} players, not {len(names)}",
        )
    if not 1 <= command.rounds <= MAX_ROUNDS:
        raise Rejected("bad_rounds", detail=f"a tournament has 1 to {MAX_ROUNDS} rounds")
    preferred = command.max_players
    if command.table_size is not None:
        if not smallest <= command.table_size <= command.max_players:
            raise Rejected(
                "bad_table_size",
                detail=f"a tournament table of this game seats {smallest} to {command.max_players} players",
            )
        preferred = command.table_size
    sizes = split_tables(len(names), smallest, command.max_players, preferred, equal=command.duplicate)
    seed = command.seed if command.seed is not None else "".join(f"{rng.below(2**64):016x}" for _ in range(4))
    if not seed or len(seed) > MAX_SEED_LENGTH:
        raise Rejected("bad_seed", detail=f"a seed is 1-{MAX_SEED_LENGTH} characters")
    return [
        TournamentCreated(
            name=title,
            game=command.game,
            players=names,
            rounds=command.rounds,
            table_sizes=tuple(sizes),
            min_players=command.min_players,
            max_players=command.max_players,
            options=command.options,
            duplicate=command.duplicate,
            table_size=command.table_size,
            clock=command.clock,
            seed=seed,
        )
    ]


def meetings(state: State) -> Counter[frozenset[str]]:
    """How many times each pair of players has shared a table (every seated round counts)."""
    met: Counter[frozenset[str]] = Counter()
    for rnd in state.rounds:
        for table in rnd.tables:
            met.update(frozenset(pair) for pair in combinations(table.players, 2))
    return met


def small_table_sittings(state: State) -> Counter[str]:
    """How many times each player has sat at a table smaller than the largest of its round (fair seating)."""
    sat: Counter[str] = Counter()
    for rnd in state.rounds:
        largest = max((len(table.players) for table in rnd.tables), default=0)
        for table in rnd.tables:
            if len(table.players) < largest:
                sat.update(table.players)
    return sat


def round_tables(state: State) -> tuple[list[int], int]:
    """The next round's table sizes (largest first) and how many active players get a bye.

    With the players of the creation, the sizes fixed then. After a withdrawal or a late entry, the sizes
    the creation rules give the active players; when no split exists (too many or too few for equal tables
    in duplicate mode, say), the fewest byes that leave a count that splits. ``too_few_players`` when not
    even one table can be seated.
    """
    active = state.active()
    if not state.withdrawn and not state.entered:
        return list(state.table_sizes), 0
    smallest = max(MIN_TABLE, state.min_players)
    preferred = state.table_size if state.table_size is not None else state.max_players
    for byes in range(len(active) - smallest + 1):
        try:
            sizes = split_tables(
                len(active) - byes, smallest, state.max_players, preferred, equal=state.duplicate
            )
        except Rejected:
            continue
        return sizes, byes
    raise Rejected(
        "too_few_players",
        detail=f"{len(active)} active players cannot fill a table of {smallest}: terminate the tournament",
    )


def bye_counts(state: State) -> Counter[str]:
    """How many byes each player has had."""
    return Counter(name for rnd in state.rounds for name in rnd.byes)


def _byes(order: list[str], count: int, had: Counter[str]) -> tuple[str, ...]:
    """Who sits out: the fewest byes so far first, then the lowest in the standings (``order``, best first)."""
    ranked = sorted(range(len(order)), key=lambda index: (had[order[index]], -index))
    return tuple(sorted((order[index] for index in ranked[:count]), key=order.index))


def _seat_next_round(state: State) -> list[Event]:
    """Seating: only once every game of the current round has finished, and not past the last round;
    the active players only (not withdrawn), with byes when their number cannot be seated; every draw from
    ``seating_rng(state)``."""
    if state.terminated:
        raise Rejected("tournament_terminated", detail="the organizer has terminated the tournament")
    current = state.current()
    if current is not None and not current.closed:
        raise Rejected("round_in_progress", detail=f"round {current.round} is still being played")
    if state.completed or len(state.rounds) >= state.round_count:
        raise Rejected("tournament_complete", detail="every round has been played")
    sizes, bye_count = round_tables(state)
    number = len(state.rounds) + 1
    rng = seating_rng(state)
    byes: tuple[str, ...] = ()
    if number == 1:
        players = list(state.active())
        if bye_count:
            byes = _byes(rng.shuffle(players), bye_count, Counter())
        seated = seat_first_round([name for name in players if name not in byes], sizes, rng)
    else:
        totals = tallies(state)
        order = sorted(rng.shuffle(state.active()), key=lambda name: totals[name].key())
        if bye_count:
            byes = _byes(order, bye_count, bye_counts(state))
        seated = seat_swiss(
            [name for name in order if name not in byes],
            sizes,
            meetings(state),
            rng,
            small=small_table_sittings(state),
        )
    tables = tuple(
        SeatedTable(
            table=index,
            players=players,
            seed=game_seed(state.seed, number, None if state.duplicate else index),
        )
        for index, players in enumerate(seated, start=1)
    )
    return [RoundSeated(round=number, tables=tables, byes=byes)]


def _attach_games(state: State, command: AttachGames) -> list[Event]:
    """Games of a seated round: one non-empty, distinct id per table, in table order, attached once."""
    current = state.current()
    if current is None or command.round != current.round:
        raise Rejected("unknown_round", detail=f"round {command.round} is not the round being seated")
    if any(table.game_id is not None for table in current.tables):
        raise Rejected("games_already_created", detail=f"round {current.round} already has its games")
    if len(command.game_ids) != len(current.tables):
        raise Rejected(
            "wrong_game_count",
            detail=f"round {current.round} has {len(current.tables)} tables, one game each",
        )
    if not all(command.game_ids) or len(set(command.game_ids)) != len(command.game_ids):
        raise Rejected("bad_game_ids", detail="every table needs its own non-empty game id")
    return [GamesCreated(round=current.round, game_ids=command.game_ids)]


def table_of_game(state: State, game_id: str) -> tuple[int, int] | None:
    """The (round, table) whose game is ``game_id``, None for a game of no table of the tournament."""
    for rnd in state.rounds:
        for table in rnd.tables:
            if table.game_id == game_id:
                return rnd.round, table.table
    return None


def _table_of(
    state: State, round_number: int, table_number: int, game_id: str
) -> tuple[RoundState, TableState]:
    """A known table of a seated round and its game."""
    if not 1 <= round_number <= len(state.rounds):
        raise Rejected("unknown_round", detail=f"round {round_number} has not been seated")
    rnd = state.rounds[round_number - 1]
    if not 1 <= table_number <= len(rnd.tables):
        raise Rejected("unknown_table", detail=f"round {rnd.round} has no table {table_number}")
    table = rnd.tables[table_number - 1]
    if table.outcome is None and (table.game_id is None or game_id != table.game_id):
        raise Rejected("wrong_game", detail=f"game {game_id} is not played at that table")
    return rnd, table


def _check_outcome(table: TableState, ranks: tuple[int, ...], scores: tuple[int, ...]) -> None:
    """One rank and score per seat; ranks from 1 (best) to the seat count, somebody first."""
    seats = len(table.players)
    if len(ranks) != seats or len(scores) != seats:
        raise Rejected("wrong_seat_count", detail=f"that table has {seats} seats: one rank and score each")
    if not all(1 <= rank <= seats for rank in ranks) or 1 not in ranks:
        raise Rejected("bad_ranks", detail=f"ranks run from 1 (best) to {seats}; equal ranks tie")


def _closing(state: State, rnd: RoundState, table_number: int) -> list[Event]:
    """``RoundClosed`` (and ``TournamentCompleted`` after the last round) once this table was the last open."""
    if not all(other.outcome is not None or other.table == table_number for other in rnd.tables):
        return []
    if rnd.round == state.round_count:
        return [RoundClosed(round=rnd.round), TournamentCompleted()]
    return [RoundClosed(round=rnd.round)]


def _record_game(state: State, command: RecordGame) -> list[Event]:
    """A finished game: one played out (an adjudicated game's result is its adjudication), of a tournament
    still running, at a known table of a seated round, once; one rank and score per seat."""
    if command.adjudicated:
        raise Rejected(
            "reported_by_adjudication",
            detail=f"game {command.game_id} was adjudicated: the adjudication records its result",
        )
    _running(state)
    rnd, table = _table_of(state, command.round, command.table, command.game_id)
    if table.outcome is not None:
        raise Rejected(
            "duplicate_report", detail=f"round {rnd.round} table {table.table} has already been reported"
        )
    _check_outcome(table, command.ranks, command.scores)
    finished = GameFinished(
        round=rnd.round,
        table=table.table,
        game_id=command.game_id,
        ranks=command.ranks,
        scores=command.scores,
        audit_head=command.audit_head,
    )
    return [finished, *_closing(state, rnd, table.table)]


def _adjudicate(state: State, command: AdjudicateGame) -> list[Event]:
    """Adjudication: a game that has not finished by itself (one played out counts with its own result), of
    a tournament still running, at a table of a seated round with no result yet; closes the round like a
    report when it was the last."""
    if command.played_out:
        raise Rejected(
            "game_already_decided", detail=f"game {command.game_id} has finished; its own result counts"
        )
    _running(state)
    rnd, table = _table_of(state, command.round, command.table, command.game_id)
    if table.outcome is not None:
        raise Rejected(
            "game_already_decided",
            detail=f"round {rnd.round} table {table.table} already has its result",
        )
    _check_outcome(table, command.ranks, command.scores)
    adjudicated = GameAdjudicated(
        round=rnd.round,
        table=table.table,
        game_id=command.game_id,
        ranks=command.ranks,
        scores=command.scores,
        audit_head=command.audit_head,
    )
    return [adjudicated, *_closing(state, rnd, table.table)]


def _withdraw(state: State, command: WithdrawPlayer) -> list[Event]:
    """Withdrawal: a player of the tournament, once; they keep what they earned, later rounds skip them."""
    if command.name not in state.players:
        raise Rejected("unknown_player", detail=f"no player {shown(command.name)} in this tournament")
    if command.name in state.withdrawn:
        raise Rejected("already_withdrawn", detail=f"{command.name} has already been withdrawn")
    return [PlayerWithdrawn(name=command.name, round=len(state.rounds))]


def forfeited_seats(state: State) -> list[tuple[str, int]]:
    """The seats withdrawals resign (a stand-in plays them to the end, domain/resign.py): every withdrawn
    player's seat in a created game of the current round that has no result yet, as (game id, seat)."""
    current = state.current()
    if current is None or current.closed:
        return []
    return [
        (table.game_id, seat)
        for table in current.tables
        if table.game_id is not None and table.outcome is None
        for seat, name in enumerate(table.players)
        if name in state.withdrawn
    ]


def _enter(state: State, command: EnterPlayer) -> list[Event]:
    """Late entry: a new name that follows the rules of an account's name (NFKC; domain/names.py), looks like
    no player's, while a round is left to seat, within the player limit."""
    name = unicodedata.normalize("NFKC", command.name.strip())
    if problem := account_name_problem(name):
        raise Rejected("bad_player_name", detail=problem[1])
    if skeleton(name) in {skeleton(player) for player in state.players}:
        raise Rejected("duplicate_player_name", detail=f"{name} already plays (or looks like a player) here")
    if len(state.rounds) >= state.round_count:
        raise Rejected("no_rounds_left", detail="every round has been seated: nobody can enter any more")
    if len(state.players) >= MAX_PLAYERS:
        raise Rejected("too_many_players", detail=f"a tournament has at most {MAX_PLAYERS} players")
    return [PlayerEntered(name=name, round=len(state.rounds) + 1)]
