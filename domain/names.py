"""Display names of players: what a seat's, a tournament player's and an account's name must be to be shown,
and when two names look the same (their skeletons, after Unicode's UTS #39)."""

from __future__ import annotations

import unicodedata

MAX_NAME_LENGTH = 40
# Characters that render as nothing or steer the text around them: controls, format characters (zero-width
# joiners, bidi marks), surrogates, private use, unassigned code points, line and paragraph separators, and
# the letters that are blank (the Hangul fillers). Two names differing only by them would look the same.
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0")
# Combining marks stack on the letter before them: more than two on one letter make an unreadable name (and
# one that can hide another under it). Counted on the decomposed form (NFD), so a precomposed letter counts
# its marks too ("ệ" is e with two, the most Vietnamese puts on a letter).
MAX_MARKS_ON_A_LETTER = 2
NAME_PUNCTUATION = frozenset(" ._-")  # besides letters and digits, what an account's name may hold

# Letters of the Latin, Greek and Cyrillic scripts (and digits) that pass for another, each mapped to the
# Latin letter it is taken for, so that "str\u03bfng-johari" (a Greek small omicron) cannot sit beside
# "strong-johari". A compact part of Unicode's confusables table (UTS #39 skeletons) for the scripts names
# here are written in, kept by hand: of the PyPI packages for it, confusable-homoglyphs flags mixed scripts
# but gives no skeleton to compare two names by, and confusables has had no release since 2021. Both cases
# are listed, since the skeleton maps before case-folding (a Greek capital eta looks like "H", its small
# letter like "n").
LOOKALIKES = str.maketrans(
    {
        # Latin look-alikes within Latin and digits (UTS #39 maps I, l, 1 and |, and O and 0, together)
        "I": "l",
        "1": "l",
        "0": "o",
        "\u0131": "i",
        "\u0251": "a",
        "\u0261": "g",
        "\u029f": "l",
        # Greek capitals, then small letters
        "\u0391": "A",
        "\u0392": "B",
        "\u0395": "E",
        "\u0396": "Z",
        "\u0397": "H",
        "\u0399": "l",
        "\u039a": "K",
        "\u039c": "M",
        "\u039d": "N",
        "\u039f": "O",
        "\u03a1": "P",
        "\u03a4": "T",
        "\u03a5": "Y",
        "\u03a7": "X",
        "\u03f9": "C",
        "\u037f": "J",
        "\u03b1": "a",
        "\u03b3": "y",
        "\u03b7": "n",
        "\u03b9": "i",
        "\u03bd": "v",
        "\u03bf": "o",
        "\u03c1": "p",
        "\u03c3": "o",
        "\u03c5": "u",
        "\u03c7": "x",
        "\u03f2": "c",
        "\u03f3": "j",
        # Cyrillic capitals, then small letters
        "\u0410": "A",
        "\u0412": "B",
        "\u0415": "E",
        "\u041a": "K",
        "\u041c": "M",
        "\u041d": "H",
        "\u041e": "O",
        "\u0420": "P",
        "\u0421": "C",
        "\u0422": "T",
        "\u0423": "Y",
        "\u0425": "X",
        "\u0405": "S",
        "\u0406": "l",
        "\u0408": "J",
        "\u04ae": "Y",
        "\u04c0": "l",
        "\u051a": "Q",
        "\u051c": "W",
        "\u04bb": "h",
        "\u0417": "3",
        "\u0430": "a",
        "\u0435": "e",
        "\u043e": "o",
        "\u0440": "p",
        "\u0441": "c",
        "\u0443": "y",
        "\u0445": "x",
        "\u0455": "s",
        "\u0456": "i",
        "\u0458": "j",
        "\u0501": "d",
        "\u04cf": "l",
        "\u051b": "q",
        "\u051d": "w",
        "\u0457": "i",
    }
)


def invisible_at(name: str) -> int | None:
    """The index of the first character of ``name`` that renders as nothing or controls the text, if any."""
    for index, char in enumerate(name):
        if char in INVISIBLE_LETTERS or unicodedata.category(char) in INVISIBLE_CATEGORIES:
            return index
    return None


def stacked_mark_at(name: str) -> int | None:
    """The index of the first combining mark of ``name`` (in its decomposed form, NFD) that follows no letter
    or is the third or later on one letter, if any."""
    marks = 0
    for index, char in enumerate(unicodedata.normalize("NFD", name)):
        if not unicodedata.category(char).startswith("M"):
            marks = 0
            continue
        marks += 1
        if index == 0 or marks > MAX_MARKS_ON_A_LETTER:
            return index
    return None


def skeleton(name: str) -> str:
    """How a name looks, after UTS #39's skeleton and case-insensitive: NFKC, decomposed (NFD), each
    look-alike letter mapped to the Latin one it passes for, case-folded and mapped again, decomposed; two
    names with one skeleton look the same, so they may not sit beside each other."""
    decomposed = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", name))
    folded = decomposed.translate(LOOKALIKES).casefold().translate(LOOKALIKES)
    return unicodedata.normalize("NFD", folded)


def looks_repeated(names: list[str] | tuple[str, ...]) -> bool:
    """Whether two of these names look the same (one skeleton)."""
    return len({skeleton(name) for name in names}) != len(names)


def name_problem(name: str) -> str | None:
    """Why a player's name (already stripped) cannot be shown: empty, over 40 characters, holding an
    invisible or controlling character, or a combining mark on no letter or more than two on one; None when
    it can."""
    if not name or len(name) > MAX_NAME_LENGTH:
        return f"player names are 1-{MAX_NAME_LENGTH} characters"
    index = invisible_at(name)
    if index is not None:
        return f"a player name may not contain invisible or control characters (U+{ord(name[index]):04X} at {index})"
    index = stacked_mark_at(name)
    if index is not None:
        return (
            f"a combining mark must follow a letter, at most {MAX_MARKS_ON_A_LETTER} on one letter"
            f" (at {index} of the name's decomposed form)"
        )
    return None


def account_name_problem(name: str) -> tuple[str, str] | None:
    """Why ``name`` (in NFKC form) cannot be an account's, or a late entrant's to a tournament: (code,
    detail) of the first rule it breaks (1-40 characters; letters, digits, spaces and ``._-`` only, with at
    most two combining marks on a letter; no space at either end or two in a row), None when it can be.

    Written here because this rule set is not one of PRECIS's profiles (UsernameCaseMapped forbids spaces
    and allows symbols)."""
    if not 1 <= len(name) <= MAX_NAME_LENGTH:
        return "name_length", f"a name is 1-{MAX_NAME_LENGTH} characters (after Unicode NFKC normalization)"
    for index, char in enumerate(name):
        category = unicodedata.category(char)
        code = f"U+{ord(char):04X}"
        if category in INVISIBLE_CATEGORIES or char in INVISIBLE_LETTERS:
            return (
                "name_invisible_character",
                f"a name may not contain control, format or invisible characters ({code} at {index})",
            )
        if not (category[0] in "LM" or category == "Nd" or char in NAME_PUNCTUATION):
            return (
                "name_characters",
                f"a name has only letters, digits, spaces and . _ - ({code} at {index} is none of them)",
            )
    stacked = stacked_mark_at(name)
    if stacked is not None:
        return (
            "name_characters",
            f"a combining mark must follow a letter, at most {MAX_MARKS_ON_A_LETTER} on one letter"
            f" (at {stacked} of the name's decomposed form)",
        )
    if name != name.strip(" ") or "  " in name:
        return "name_spaces", "a name neither starts nor ends with a space nor has two spaces in a row"
    return None
