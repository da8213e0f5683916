"""Bids of B-8: which bid beats which, and every bid a player could make that beats the current one."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from domain.basari.components import Gems

__all__ = ["BID_LIST_LIMIT", "beating_bids", "beats", "can_beat", "can_complete", "step_counts"]

# ``legal`` lists whole bids while at most this many beat the current bid (3 of each colour, the
# opening holdings, give 255 possible bids); beyond it, it lists the step-wise BidColour commands.
BID_LIST_LIMIT: Final = 256


def beats(bid: Gems, current: Gems | None) -> bool:
    """B-8: a bid beats another with more gems, or as many and more by value (red, yellow, green, blue).

    Against no bid at all (the opening bid) any non-empty bid will do.
    """
    if current is None:
        return bid.total() > 0
    if bid.total() != current.total():
        return bid.total() > current.total()
    return bid.counts() > current.counts()


def _can_complete(prefix: tuple[int, ...], owned: tuple[int, ...], current: tuple[int, ...] | None) -> bool:
    """``can_complete`` on plain counts (the enumeration below calls it for every candidate)."""
    strongest = prefix + owned[len(prefix) :]
    total = sum(strongest)
    if current is None:
        return total > 0
    wanted = sum(current)
    return total > wanted or (total == wanted and strongest > current)


def can_complete(prefix: tuple[int, ...], holdings: Gems, current: Gems | None) -> bool:
    """B-8: whether a bid starting with ``prefix`` (counts in value order) can still beat ``current``.

    The strongest completion adds every remaining gem the player owns: it has the most gems, and among
    bids with that many it is the only one, so it beats ``current`` exactly when some completion does.
    """
    owned = holdings.counts()
    if len(prefix) > len(owned) or any(c < 0 or c > h for c, h in zip(prefix, owned, strict=False)):
        return False
    return _can_complete(tuple(prefix), owned, None if current is None else current.counts())


def can_beat(holdings: Gems, current: Gems | None) -> bool:
    """B-8: whether ``holdings`` can beat ``current`` at all (if not, the player may only accept)."""
    return can_complete((), holdings, current)


def _step_counts(
    prefix: tuple[int, ...], owned: tuple[int, ...], current: tuple[int, ...] | None
) -> list[int]:
    """``step_counts`` on plain counts."""
    if len(prefix) >= len(owned):
        return []
    return [c for c in range(owned[len(prefix)] + 1) if _can_complete((*prefix, c), owned, current)]


def step_counts(draft: tuple[int, ...], holdings: Gems, current: Gems | None) -> list[int]:
    """B-8: the counts of the next colour (after ``draft``) that still leave a bid beating ``current``."""
    if not can_complete(draft, holdings, current):
        return []
    return _step_counts(tuple(draft), holdings.counts(), None if current is None else current.counts())


def _walk(
    prefix: tuple[int, ...], owned: tuple[int, ...], current: tuple[int, ...] | None
) -> Iterator[tuple[int, ...]]:
    """Every beating bid extending ``prefix``; a dead prefix is never entered, so the work is per bid."""
    if len(prefix) == len(owned):
        yield prefix
        return
    for count in _step_counts(prefix, owned, current):
        yield from _walk((*prefix, count), owned, current)


def beating_bids(holdings: Gems, current: Gems | None, limit: int = BID_LIST_LIMIT) -> list[Gems] | None:
    """B-8: every bid from ``holdings`` that beats ``current``, weakest first; None if more than ``limit``."""
    found: list[tuple[int, ...]] = []
    for bid in _walk((), holdings.counts(), None if current is None else current.counts()):
        found.append(bid)
        if len(found) > limit:
            return None
    found.sort(key=lambda bid: (sum(bid), bid))
    return [Gems.of(list(bid)) for bid in found]
