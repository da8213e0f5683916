"""What a Johari game is created with: no options, the rule page fixes everything (J-1)."""

from __future__ import annotations

import msgspec

__all__ = ["JohariOptions"]


class JohariOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Johari has no options."""
