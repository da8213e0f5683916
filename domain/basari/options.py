"""What a Basari game is created with: no options, the rule page fixes everything (B-1)."""

from __future__ import annotations

import msgspec

__all__ = ["BasariOptions"]


class BasariOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Basari has no options: the rules page fixes everything."""
