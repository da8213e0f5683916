"""The strong level: single-observer information-set Monte Carlo tree search (Cowling, Powley, Whitehouse 2012).

Each iteration draws one determinization of the bot's knowledge (``Kit.sample``) and walks one shared tree
whose edges are (seat, command). In a node only the children whose command is legal in this determinization
are eligible; the acting seat picks by UCB1 on its own mean reward, with the number of times a child was
available in place of the parent's visit count (ISMCTS's availability correction). Every seat maximises its
own reward (max^n). A simultaneous decision (several seats pending at once, e.g. secret picks) is not
searched for the other seats: they would otherwise answer a pick they cannot see, so they play at random
there. Past the tree, the kit's random playout (``Kit.rollout``) runs for ``Budget.horizon`` commands, and
the kit's evaluation becomes every seat's reward (a logistic of its margin over the best other seat).
Simulations play by the game's own rules (``Kit.rules``): no clock layer, no ``resign`` among the commands
searched (a bot never resigns, and a seat resigning in the tree would end a simulated game early).

Why hand-written: no maintained pure-Python ISMCTS exists that runs on our deciders without other
dependencies (OpenSpiel's needs its C++ core, and the domain imports only the standard library and msgspec).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import msgspec

from domain.bots.core import Budget, Kit, advance, apply, reward, simulation
from domain.core import Command, Rejected, Rng

__all__ = ["search"]

K = TypeVar("K")
S = TypeVar("S")

_encode = msgspec.json.encode


class Node:
    """A tree node: its children by (seat, command), and per child visits, availability and reward sums."""

    __slots__ = ("children",)

    def __init__(self) -> None:
        self.children: dict[tuple[int, bytes], Child] = {}


class Child:
    """An edge of the tree: the command, how often it was tried and offered, and every seat's reward sum."""

    __slots__ = ("available", "command", "node", "rewards", "visits")

    def __init__(self, command: Command, seats: int) -> None:
        self.command = command
        self.visits = 0
        self.available = 0
        self.rewards = [0.0] * seats
        self.node = Node()


def search(
    kit: Kit[K, S],
    known: K,
    seat: int,
    legal: Sequence[Command],
    rng: Rng,
    budget: Budget,
    stop: Callable[[], bool] | None = None,
) -> Command:
    """The command of ``legal`` the search visited most (the robust child), ties by mean reward."""
    root = Node()
    sampled = kit.sample(known, seat, rng)
    rules = simulation(kit, sampled)
    seats = len(kit.evaluate(sampled))
    root_keys = [(seat, _encode(c)) for c in legal]
    for key, command in zip(root_keys, legal, strict=True):
        root.children[key] = Child(command, seats)
    for iteration in range(max(1, budget.iterations)):
        if stop is not None and iteration and stop():
            break
        world = kit.sample(known, seat, rng)
        path: list[Child] = []
        node = root
        first = True
        while not rules.is_over(world):
            pending = rules.pending(world)
            if not pending:
                break
            if first:
                actor, options = seat, legal
            else:
                actor = pending[0].seat
                if len(pending) > 1:
                    # a simultaneous decision: nobody answers a pick they cannot see; leave the tree
                    break
                options = rules.legal(world, actor)
            keys = root_keys if first else [(actor, _encode(c)) for c in options]
            first = False
            child = _select(node, actor, keys, options, seats, budget.exploration, rng)
            try:
                world = apply(rules, world, actor, child.command, rng)
            except Rejected:
                break  # cannot happen for a consistent sample; stop this walk rather than fail the decision
            path.append(child)
            node = child.node
            if child.visits == 0:
                break  # expanded one new node: the rest is the rollout
        world = advance(kit, rules, world, rng, budget.horizon)
        rewards = reward(kit.evaluate(world), kit.scale)
        for child in path:
            child.visits += 1
            for s in range(seats):
                child.rewards[s] += rewards[s]
    best = max(
        root.children.values(),
        key=lambda c: (c.visits, c.rewards[seat] / c.visits if c.visits else 0.0),
    )
    return best.command


def _select(
    node: Node,
    actor: int,
    keys: Sequence[tuple[int, bytes]],
    options: Sequence[Any],
    seats: int,
    exploration: float,
    rng: Rng,
) -> Child:
    """UCB1 with availability counts among the children legal here; an untried one first (at random)."""
    eligible: list[Child] = []
    untried: list[Child] = []
    for key, command in zip(keys, options, strict=True):
        child = node.children.get(key)
        if child is None:
            child = node.children[key] = Child(command, seats)
        child.available += 1
        eligible.append(child)
        if child.visits == 0:
            untried.append(child)
    if untried:
        return untried[rng.below(len(untried))]
    return max(
        eligible,
        key=lambda c: c.rewards[actor] / c.visits + exploration * math.sqrt(math.log(c.available) / c.visits),
    )
