"""Seating rules: table sizes, round 1 at random, later rounds Swiss-style, and the per-table game seeds.

Table sizes (``split_tables``): every table of a round is within the game's [min, max] players, and never a
table of one (``MIN_TABLE``, Z-12: solitaire is not a tournament game; the creation raises the minimum); among the
table counts that allow that, the one whose tables come closest to the preferred size (least total
difference) wins, then one with equal tables, then fewer tables; the players are spread as evenly as possible
(sizes differ by at most one, largest first). Without a requested ``table_size`` the preferred size is the
game's maximum, so e.g. 10 Basari players (3-5) sit at two tables of 5, 11 at 4 + 4 + 3. The sizes are fixed
at creation and used by every round (the player list does not change).

Seating: round 1 shuffles the players with the Rng and fills the tables in that order. Later rounds order the
players by the standings (equal players in Rng-shuffled order) and seat them one by one, best first, each at
the lowest-numbered table with room where it adds the fewest repeats; so table 1 holds the top of the
standings as far as repeats allow. A repeat is a pair meeting again: a pair that met k times before costs
k * k, so a third meeting weighs more than two second meetings. While that seating has repeats, three
bounded, deterministic steps look for fewer: swaps of two players of different tables that lower the cost
(nearest in the standings first), a depth-first branch and bound over the same order (``SEARCH_LIMIT`` work;
exhaustive for small fields, so e.g. 9 or 11 players always get a round with the fewest repeats possible),
and a random walk of swaps that never add repeats (``WALK_LIMIT`` steps, drawn from the Rng). Finally,
swaps that add no repeats move players back towards their standings table (the one a plain top-down fill
would give them), restoring the Swiss order as far as the fewest repeats allow. Seat order within a table is
shuffled with the Rng.

Fair seating at unequal tables: a smaller table caps what its players can score, so before the
tables are filled the seats at the smaller tables go to the players who have sat at one the fewest times;
among equals, one by one, to whoever adds the fewest repeats, then to the lowest in the standings. The two
groups are then seated as above, each among itself. So nobody sits at a smaller table a second time before
everyone has sat at one once (the counts never differ by more than one); the standings and repeats decide
only who of the equally often seated goes there.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from domain.core import Rejected, Rng

__all__ = [
    "MIN_TABLE",
    "SEARCH_LIMIT",
    "WALK_LIMIT",
    "game_seed",
    "seat_first_round",
    "seat_swiss",
    "small_seats",
    "split_tables",
]

MIN_TABLE = 2  # Z-12: a tournament never has a table of one, even for a game with a solitaire variant

SEARCH_LIMIT = 20_000  # branch-and-bound work per round (tables looked at): fast and deterministic
WALK_LIMIT = 2_000  # random-walk swaps per round once the search stops short of a seating without repeats


def split_tables(
    n_players: int, min_size: int, max_size: int, preferred: int, *, equal: bool = False
) -> list[int]:
    """Table sizes (largest first) in [min_size, max_size], summing to n_players, closest to ``preferred``.

    ``equal`` (duplicate mode) admits only splits into tables of one size. Raises
    ``Rejected("impossible_table_split")`` when no split exists (with ``equal``:
    ``Rejected("duplicate_needs_equal_tables")`` when splits exist but none into equal tables).
    """
    best: tuple[tuple[int, bool, int], list[int]] | None = None
    any_split = False
    for count in range(1, n_players + 1):
        small, extra = divmod(n_players, count)
        if small < min_size or small + (extra > 0) > max_size:
            continue
        any_split = True
        if equal and extra:
            continue
        # with sizes differing by at most one, all lie on one side of ``preferred``: the total difference
        # is |n - count * preferred|, the least any split into ``count`` tables can reach
        key = (abs(n_players - count * preferred), extra > 0, count)
        if best is None or key < best[0]:
            best = (key, [small + 1] * extra + [small] * (count - extra))
    if best is None:
        if any_split:
            raise Rejected(
                "duplicate_needs_equal_tables",
                detail=f"duplicate mode needs equal tables; {n_players} players cannot sit at equal tables "
                f"of {min_size} to {max_size}",
            )
        raise Rejected(
            "impossible_table_split",
            detail=f"{n_players} players cannot be split into tables of {min_size} to {max_size}",
        )
    return best[1]


def game_seed(seed: str, round_number: int, table: int | None) -> str:
    """The seed of a table's game: hex SHA-256 of the tournament seed, round and table (duplicate: no table).

    ``SHA-256(UTF-8(seed) || 0x00 || UTF-8(context) || 0x00 || uint64_be(0))``, with context
    ``"game-r<round>"`` in duplicate mode (every table of the round gets one seed, hence one deal) and
    ``"game-r<round>-t<table>"`` otherwise: block 0 of ``Rng(seed, context)``, so an auditor can re-derive it
    from the revealed tournament seed, while a revealed game seed tells nothing about the tournament seed.
    """
    context = f"game-r{round_number}" if table is None else f"game-r{round_number}-t{table}"
    data = seed.encode() + b"\x00" + context.encode() + b"\x00" + (0).to_bytes(8, "big")
    return hashlib.sha256(data).hexdigest()


def seat_first_round(players: Sequence[str], sizes: Sequence[int], rng: Rng) -> list[tuple[str, ...]]:
    """Round 1: the players shuffled with the Rng, filling the tables in order (seat order as drawn)."""
    shuffled: list[str] = rng.shuffle(players)
    tables: list[tuple[str, ...]] = []
    start = 0
    for size in sizes:
        tables.append(tuple(shuffled[start : start + size]))
        start += size
    return tables


def small_seats(
    order: Sequence[str], sizes: Sequence[int], small: Mapping[str, int], met: Mapping[frozenset[str], int]
) -> set[str]:
    """Fair seating: the smaller tables' seats go to the fewest earlier smaller-table sittings; among equals
    one by one to whoever adds the fewest repeats to those chosen, then the lowest in the standings."""
    seats = sum(size for size in sizes if size < max(sizes, default=0))
    if not seats:
        return set()
    counts = sorted(small.get(name, 0) for name in order)
    cut = counts[seats - 1]
    chosen = [name for name in order if small.get(name, 0) < cut]
    ties = [name for name in reversed(order) if small.get(name, 0) == cut]  # lowest in the standings first
    while len(chosen) < seats:
        best = min(ties, key=lambda name: sum(met.get(frozenset((name, other)), 0) ** 2 for other in chosen))
        chosen.append(best)
        ties.remove(best)
    return set(chosen)


def seat_swiss(
    order: Sequence[str],
    sizes: Sequence[int],
    met: Mapping[frozenset[str], int],
    rng: Rng,
    *,
    small: Mapping[str, int] | None = None,
    limit: int = SEARCH_LIMIT,
    walk: int = WALK_LIMIT,
) -> list[tuple[str, ...]]:
    """Later rounds: tables filled from the standings (``order``, best first) avoiding repeat meetings; with
    ``small`` (each player's earlier sittings at a smaller table) the smaller tables are seated fairly first."""
    smaller = small_seats(order, sizes, small, met) if small is not None else set()
    if smaller:
        largest = max(sizes)
        large_sizes = [size for size in sizes if size == largest]
        small_sizes = [size for size in sizes if size < largest]
        large = [name for name in order if name not in smaller]
        rest = [name for name in order if name in smaller]
        return _seat_swiss(large, large_sizes, met, rng, limit, walk) + _seat_swiss(
            rest, small_sizes, met, rng, limit, walk
        )
    return _seat_swiss(order, sizes, met, rng, limit, walk)


def _seat_swiss(
    order: Sequence[str],
    sizes: Sequence[int],
    met: Mapping[frozenset[str], int],
    rng: Rng,
    limit: int,
    walk: int,
) -> list[tuple[str, ...]]:
    """Tables of ``sizes`` filled from the standings (``order``, best first) with the fewest repeat meetings."""
    # a pair that met k times before costs k * k: a third meeting weighs more than two second meetings
    meetings = [[met.get(frozenset((a, b)), 0) ** 2 if a != b else 0 for b in order] for a in order]
    tables = _search(meetings, sizes, 0, None)  # the greedy seating: the first the search reaches
    cost = _cost(tables, meetings)
    if cost > 0:
        cost = _descend(tables, meetings, cost)
    if cost > 0:
        better = _search(meetings, sizes, limit, cost)
        if better:
            tables = better
            cost = _descend(tables, meetings, _cost(tables, meetings))
    if cost > 0 and len(tables) > 1:
        tables = _walk(tables, meetings, cost, rng, walk)
    _straighten(tables, meetings, sizes)
    return [tuple(rng.shuffle([order[i] for i in members])) for members in tables]


def _cost(tables: list[list[int]], meetings: list[list[int]]) -> int:
    """The repeats of a seating: the weights of every pair sharing a table (k * k after k meetings)."""
    return sum(meetings[a][b] for members in tables for i, a in enumerate(members) for b in members[:i])


def _search(
    meetings: list[list[int]], sizes: Sequence[int], limit: int, bound: int | None
) -> list[list[int]]:
    """Depth-first branch and bound, players best first, each to the table adding the fewest repeats first.

    Returns the first seating of least cost found below ``bound`` (None: the first seating reached) within
    ``limit`` work (one unit per table looked at), or [] if none was found.
    """
    count = len(meetings)
    tables: list[list[int]] = [[] for _ in sizes]
    best: list[list[int]] = []
    best_cost = bound
    work = 0

    def visit(player: int, cost: int) -> bool:
        """Place ``player`` and those after it; True once the search should stop."""
        nonlocal best, best_cost, work
        if player == count:
            best, best_cost = [list(members) for members in tables], cost
            return cost == 0 or bound is None
        options: list[tuple[int, int]] = []
        empty_sizes: set[int] = set()
        work += len(tables)
        for index, members in enumerate(tables):
            if len(members) == sizes[index]:
                continue
            if not members:
                if sizes[index] in empty_sizes:
                    continue  # empty tables of one size are interchangeable: try the first only
                empty_sizes.add(sizes[index])
            options.append((sum(meetings[player][other] for other in members), index))
        options.sort()
        for added, index in options:
            if best_cost is not None and cost + added >= best_cost:
                return False  # the options are sorted: none after this one can do better either
            tables[index].append(player)
            stop = visit(player + 1, cost + added)
            tables[index].pop()
            if stop or (work >= limit and bound is not None):
                return True
        return False

    visit(0, 0)
    return best


def _swap_change(
    tables: list[list[int]], meetings: list[list[int]], a: tuple[int, int], b: tuple[int, int]
) -> int:
    """How the repeats change if player ``a[1]`` at table ``a[0]`` and ``b[1]`` at table ``b[0]`` swap."""
    (here, x), (there, y) = a, b
    change = 0
    for other in tables[here]:
        if other != x:
            change += meetings[y][other] - meetings[x][other]
    for other in tables[there]:
        if other != y:
            change += meetings[x][other] - meetings[y][other]
    return change


def _descend(tables: list[list[int]], meetings: list[list[int]], cost: int) -> int:
    """Swap players of different tables while that lowers the repeats (nearest in standings first)."""
    improved = True
    while improved and cost > 0:
        improved = False
        for here, members in enumerate(tables):
            for x in list(members):
                if not any(meetings[x][other] for other in members):
                    continue
                best: tuple[int, int, int, int] | None = None  # (change, standings distance, table, player)
                for there, others in enumerate(tables):
                    if there != here:
                        for y in others:
                            change = _swap_change(tables, meetings, (here, x), (there, y))
                            if change < 0 and (best is None or (change, abs(x - y)) < best[:2]):
                                best = (change, abs(x - y), there, y)
                if best is not None:
                    change, _, there, y = best
                    members[members.index(x)] = y
                    tables[there][tables[there].index(y)] = x
                    cost += change
                    improved = True
    return cost


def _walk(
    tables: list[list[int]], meetings: list[list[int]], cost: int, rng: Rng, budget: int
) -> list[list[int]]:
    """A random walk of swaps (a player with a repeat against anybody elsewhere) that never adds repeats.

    Escapes the local optima of ``_descend``; keeps the least-cost seating seen (the first of that cost).
    """
    best, best_cost = [list(members) for members in tables], cost
    for _ in range(budget):
        if best_cost == 0:
            break
        while True:  # a random player with a repeat at their table (there are some while cost > 0)
            here = rng.below(len(tables))
            x = rng.choice(tables[here])
            if any(meetings[x][other] for other in tables[here]):
                break
        there = rng.below(len(tables) - 1)
        there += there >= here
        y = rng.choice(tables[there])
        change = _swap_change(tables, meetings, (here, x), (there, y))
        if change <= 0:
            tables[here][tables[here].index(x)] = y
            tables[there][tables[there].index(y)] = x
            cost += change
            if cost < best_cost:
                best, best_cost = [list(members) for members in tables], cost
    return best


def _straighten(tables: list[list[int]], meetings: list[list[int]], sizes: Sequence[int]) -> None:
    """Swap players back towards their standings table (the one a plain top-down fill gives them) where
    that adds no repeats: the Swiss order, as far as the seating with the fewest repeats allows."""
    ideal = [index for index, size in enumerate(sizes) for _ in range(size)]

    def off(player: int, table: int) -> int:
        """How many tables away from its standings table ``player`` would sit."""
        return abs(table - ideal[player])

    improved = True
    while improved:
        improved = False
        for here, members in enumerate(tables):
            for x in list(members):
                if off(x, here) == 0:
                    continue
                best: tuple[int, int, int, int] | None = (
                    None  # (straightening, repeats change, table, player)
                )
                for there, others in enumerate(tables):
                    if off(x, there) >= off(x, here):
                        continue
                    for y in others:
                        shift = off(x, there) + off(y, here) - off(x, here) - off(y, there)
                        if shift < 0 and (best is None or shift < best[0]):
                            change = _swap_change(tables, meetings, (here, x), (there, y))
                            if change <= 0:
                                best = (shift, change, there, y)
                if best is not None:
                    _, _, there, y = best
                    members[members.index(x)] = y
                    tables[there][tables[there].index(y)] = x
                    improved = True
