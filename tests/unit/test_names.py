"""Names that look alike and names that stack marks (domain/names.py): two names with one skeleton (after
UTS #39: Latin, Greek and Cyrillic look-alikes folded, case aside) may not sit beside each other, and no name
carries more than two combining marks on one letter."""

from __future__ import annotations

import pytest

from domain.names import account_name_problem, looks_repeated, name_problem, skeleton


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("strong-johari", "str\u03bfng-johari"),  # a Greek small omicron
        ("alice", "\u0430lice"),  # a Cyrillic small a
        ("Hans", "\u0397ans"),  # a Greek capital eta
        ("PAPA", "\u0420\u0410\u0420\u0410"),  # Cyrillic capitals Er and A
        ("Bill", "BiII"),  # capital i for small L
        ("Otto", "0tto"),  # zero for O
        ("Straße", "STRASSE"),  # case-folding
        ("ﬁsh", "fish"),  # NFKC
    ],
)
def test_names_that_look_alike_share_a_skeleton(one: str, other: str) -> None:
    assert skeleton(one) == skeleton(other)
    assert looks_repeated([one, other])


@pytest.mark.parametrize(("one", "other"), [("alice", "alicia"), ("café", "cafe"), ("Hans", "nans")])
def test_names_that_look_different_keep_different_skeletons(one: str, other: str) -> None:
    assert skeleton(one) != skeleton(other)
    assert not looks_repeated([one, other])


def test_more_than_two_combining_marks_on_one_letter_are_refused() -> None:
    two, three = "a\u0301\u0302b", "a\u0301\u0302\u0303b"
    assert name_problem(two) is None and account_name_problem(two) is None
    assert name_problem("\u1ec7") is None  # Vietnamese e with two marks, precomposed
    assert name_problem(three) is not None and "at most 2 on one letter" in name_problem(three)
    assert account_name_problem(three) == (
        "name_characters",
        "a combining mark must follow a letter, at most 2 on one letter (at 3 of the name's decomposed form)",
    )
    assert name_problem("\u00e1\u0302\u0303b") is not None  # a precomposed letter counts its own mark
    assert name_problem("\u0301ab") is not None  # a mark on no letter
