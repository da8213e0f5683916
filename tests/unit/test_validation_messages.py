"""msgspec's validation messages as the service shows them: a JSON pointer and plain words
(service/runtime/errors.py)."""

from __future__ import annotations

import pytest

from service.runtime.errors import Malformed, located


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Invalid value 'time_out' - at `$.type`", ("/type", 'Invalid value "time_out"')),
        (
            "Expected `int`, got `str` - at `$.players[0].seat`",
            ("/players/0/seat", "Expected `int`, got `str`"),
        ),
        ('Invalid enum value "it\'s"', ("", 'Invalid enum value "it\'s"')),
        ("Invalid value 'caf\\xe9 \"x\"'", ("", 'Invalid value "café \\"x\\""')),
        # a client's own field name can look like a Python literal without being one: kept as it was
        (
            "Object contains unknown field `a'\\N'` - at `$.q`",
            ("/q", "Object contains unknown field `a'\\N'`"),
        ),
        ("", ("", "invalid value")),
    ],
)
def test_a_message_becomes_a_pointer_and_json_quoted_words(message: str, expected: tuple[str, str]) -> None:
    assert located(message) == expected


def test_an_invalid_request_part_names_itself_and_points_at_the_field() -> None:
    error = Malformed.invalid(
        "malformed_command", "not a johari command", ValueError("Invalid value 'x' - at `$.type`")
    )
    assert isinstance(error, Malformed) and error.status == 400
    assert error.detail == 'not a johari command: /type: Invalid value "x"'
    assert error.fields == (("/type", 'Invalid value "x"'),)
