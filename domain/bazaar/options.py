"""Z-11: the options a Bazaar game is created with."""

from __future__ import annotations

import msgspec

__all__ = ["BazaarOptions"]


class BazaarOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Bazaar's game options: ``double_purchase`` allows two purchases in one turn (Z-11)."""

    double_purchase: bool = False
