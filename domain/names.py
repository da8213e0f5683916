"""Display names of players: what a seat's, a tournament player's and an account's name must be to be shown."""

from __future__ import annotations

import unicodedata

MAX_NAME_LENGTH = 40
# Characters that render as nothing or steer the text around them: controls, format characters (zero-width
# joiners, bidi marks), surrogates, private use, unassigned code points, line and paragraph separators, and
# the letters that are blank (the Hangul fillers). Two names differing only by them would look the same.
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0")


def invisible_at(name: str) -> int | None:
    """The index of the first character of ``name`` that renders as nothing or controls the text, if any."""
    for index, char in enumerate(name):
        if char in INVISIBLE_LETTERS or unicodedata.category(char) in INVISIBLE_CATEGORIES:
            return index
    return None


def name_problem(name: str) -> str | None:
    """Why a player's name (already stripped) cannot be shown: empty, over 40 characters, or holding an
    invisible or controlling character; None when it can."""
    if not name or len(name) > MAX_NAME_LENGTH:
        return f"player names are 1-{MAX_NAME_LENGTH} characters"
    index = invisible_at(name)
    if index is not None:
        return f"a player name may not contain invisible or control characters (U+{ord(name[index]):04X} at {index})"
    return None
