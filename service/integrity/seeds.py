"""Commit-reveal seeds (docs/decisions/0002-commit-reveal-seeds.md): a lobby game's seed mixes the server's
secret half, committed to when the game is created, with the entropy each player gives when taking a seat; it
is fixed when the game starts.

The server cannot choose the deal (its half is committed before any player contributes, and every player's
entropy changes the seed unpredictably), and no player can (the server's half stays secret until the game
is over, so nobody can compute the deal a given entropy would give). docs/audit.md "Commit-reveal seeds"::

    e_i  = UTF-8(entropy of seat i, "" if none)
    seed = hex( SHA-256( "bazaar-games/seed-mix/v1" || 0x00 || UTF-8(server_seed) || 0x00
                         || uint32_be(len(e_0)) || e_0 || uint32_be(len(e_1)) || e_1 || ... ) )
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

MIX_CONTEXT = b"bazaar-games/seed-mix/v1\x00"


def mixed_seed(server_seed: str, entropies: Sequence[str]) -> str:
    """The seed of a commit-reveal game: the server's half and each seat's entropy (in seat order) hashed,
    every entropy length-prefixed so no two lists of entropies give the same bytes."""
    digest = hashlib.sha256(MIX_CONTEXT + server_seed.encode() + b"\x00")
    for entropy in entropies:
        data = entropy.encode()
        digest.update(len(data).to_bytes(4, "big") + data)
    return digest.hexdigest()


@dataclass(frozen=True)
class SeedMix:
    """The parts of a commit-reveal seed: the server's committed secret half and the seats' entropies."""

    server_seed: str
    entropies: tuple[str, ...]

    @property
    def seed(self) -> str:
        """The game's seed."""
        return mixed_seed(self.server_seed, self.entropies)
