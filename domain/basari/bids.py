"""Bids of B-8: which bid beats which, and every bid a player could make that beats the current one."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from domain.counts import Counts

__all__ = ["BID_LIST_LIMIT", "beating_bids", "beats", "can_beat", "can_complete", "step_counts"]

# ``legal`` lists whole bids while at most this many beat the current bid (3 of each colour, the
# opening holdings, give 255 possible bids); beyond it, it lists the step-wise BidColour commands.
BID_LIST_LIMIT: Final = 256


def beats(bid: Counts, current: Counts | None) -> bool:
    """B-8: a bid beats another with more gems, or as many and more by value (red, yellow, green, blue).

    Against no bid at all (the opening bid) any non-empty bid will do.
    """
    if current is None:
        return sum(bid) > 0
    if sum(bid) != sum(current):
        return sum(bid) > sum(current)
    return bid > current


def _can_complete(prefix: Counts, owned: Counts, current: Counts | None) -> bool:
    """``can_complete`` for a prefix known to be within ``owned`` (the enumeration's inner test)."""
    strongest = prefix + owned[len(prefix) :]
    total = sum(strongest)
    if current is None:
        return total > 0
    wanted = sum(current)
    return total > wanted or (total == wanted and strongest > current)


def can_complete(prefix: Counts, owned: Counts, current: Counts | None) -> bool:
    """B-8: whether a bid starting with ``prefix`` (counts in value order) can still beat ``current``.

    The strongest completion adds every remaining gem the player owns: it has the most gems, and among
    bids with that many it is the only one, so it beats ``current`` exactly when some completion does.
    """
    if len(prefix) > len(owned) or any(c < 0 or c > h for c, h in zip(prefix, owned, strict=False)):
        return False
    return _can_complete(tuple(prefix), owned, current)


def can_beat(owned: Counts, current: Counts | None) -> bool:
    """B-8: whether gems ``owned`` can beat ``current`` at all (if not, the player may only accept)."""
    return can_complete((), owned, current)


def _step_counts(prefix: Counts, owned: Counts, current: Counts | None) -> list[int]:
    """``step_counts`` for a prefix that can still win."""
    if len(prefix) >= len(owned):
        return []
    return [c for c in range(owned[len(prefix)] + 1) if _can_complete((*prefix, c), owned, current)]


def step_counts(draft: Counts, owned: Counts, current: Counts | None) -> list[int]:
    """B-8: the counts of the next colour (after ``draft``) that still leave a bid beating ``current``."""
    if not can_complete(draft, owned, current):
        return []
    return _step_counts(tuple(draft), owned, current)


def _walk(prefix: Counts, owned: Counts, current: Counts | None) -> Iterator[Counts]:
    """Every beating bid extending ``prefix``; a dead prefix is never entered, so the work is per bid."""
    if len(prefix) == len(owned):
        yield prefix
        return
    for count in _step_counts(prefix, owned, current):
        yield from _walk((*prefix, count), owned, current)


def beating_bids(owned: Counts, current: Counts | None, limit: int = BID_LIST_LIMIT) -> list[Counts] | None:
    """B-8: every bid from ``owned`` that beats ``current``, weakest first; None if more than ``limit``."""
    found: list[Counts] = []
    for bid in _walk((), owned, current):
        found.append(bid)
        if len(found) > limit:
            return None
    found.sort(key=lambda bid: (sum(bid), bid))
    return found
