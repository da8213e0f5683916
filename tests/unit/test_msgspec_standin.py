"""The verifier's msgspec stand-in (service/integrity/msgspec_standin.py) reads and writes what msgspec does: every
event, command (plain and as a timed game stores it) and state of random games of each game encodes to the
same bytes and decodes back to an equal value, and JSON values, numbers and malformed input are treated
alike."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

import msgspec
import pytest

from service.integrity import msgspec_standin as standin
from tests.support.standalone import encodings, run_blocked


@pytest.mark.parametrize(("game", "players"), [("basari", 3), ("bazaar", 2), ("johari", 2), ("johari", 4)])
def test_every_event_command_and_state_of_a_random_game_reads_and_writes_as_with_msgspec(
    game: str, players: int
) -> None:
    seed = f"stand-in {game} {players}"
    done, report = run_blocked("tests.support.standalone", game, str(players), seed)
    assert done.returncode == 0, done.stderr.decode()
    assert report["msgspec"] == "service.integrity.msgspec_standin"
    assert "msgspec" not in set(report["roots"]) - {"msgspec"} and report["roots"]  # the stand-in answered
    with_msgspec = encodings(game, players, seed)
    assert len(with_msgspec) > 100
    assert json.loads(done.stdout) == with_msgspec


VALUES: list[Any] = [
    ['é, \u2028, \x7f, \x01, \x1f, "quoted" \\ back\n\t\r\b\f', "", "😀"],
    [0, -1, 2**63, -(2**64), 10**30, True, False, None],
    [1e15, 1e16, 1e17, 1e-4, 1e-5, 2.5e-5, 1e-6, 1.5e-7, 0.1, -0.0, 3.0, 1.7976931348623157e308, 5e-324],
    {"b": 1, "a": [1, {"c": None}], "": {}, "1": []},
    {1: "int keys", 2: [()]},
]


@pytest.mark.parametrize("value", VALUES)
def test_values_encode_to_the_same_bytes(value: Any) -> None:
    assert standin.json.encode(value) == msgspec.json.encode(value)


@pytest.mark.parametrize(
    "document",
    [b'{"a": [1, 2.5, "x", null, true], "a": 3, "b": {"c": -0}}', b"1E2", b'"\\ud83d\\ude00"', b" [ ] "],
)
def test_json_decodes_to_the_same_values(document: bytes) -> None:
    assert standin.json.decode(document) == msgspec.json.decode(document)


@pytest.mark.parametrize(
    "document", [b"", b"nul", b"[1,", b"NaN", b"[Infinity]", b'"\\ud800"', b"\xff", b"[1] x", b"{'a': 1}"]
)
def test_malformed_json_is_a_decode_error(document: bytes) -> None:
    with pytest.raises(msgspec.DecodeError):
        msgspec.json.decode(document)
    with pytest.raises(standin.DecodeError):
        standin.json.decode(document)


@pytest.mark.parametrize(
    ("document", "shape"),
    [
        (b"-1", Annotated[int, "ge0"]),
        (b"[1]", Annotated[tuple[int, ...], "min2"]),
        (b'""', Annotated[str, "min1"]),
        (b'[1, "a"]', list[int]),
        (b"1.0", int),
        (b"true", int),
        (b"3", Literal["a", "b"]),
        (b'"c"', Literal["a", "b"]),
        (b"[1, 2, 3]", tuple[int, int]),
        (b'{"a": 1}', dict[int, int]),
        (b"1", str | None),
    ],
)
def test_values_of_the_wrong_shape_fail_with_msgspecs_message(document: bytes, shape: Any) -> None:
    constraints = {"ge0": {"ge": 0}, "min2": {"min_length": 2}, "min1": {"min_length": 1}}
    if hasattr(shape, "__metadata__"):
        inner, name = shape.__origin__, shape.__metadata__[0]
        real, stand_in = (
            Annotated[inner, msgspec.Meta(**constraints[name])],
            Annotated[inner, standin.Meta(**constraints[name])],
        )
    else:
        real = stand_in = shape
    with pytest.raises(msgspec.ValidationError) as expected:
        msgspec.json.decode(document, type=real)
    with pytest.raises(standin.ValidationError) as found:
        standin.json.decode(document, type=stand_in)
    assert str(found.value) == str(expected.value)


class Shape(standin.Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=True):
    """A tagged base, as the rules' commands are."""


class Square(Shape, frozen=True, kw_only=True, tag="square"):
    """A struct with a constrained field, a default and a renamed field."""

    side: Annotated[int, standin.Meta(ge=1)]
    colour: str = "red"
    label: str = standin.field(default="", name="0")


class Circle(Shape, frozen=True, kw_only=True):
    """A struct tagged by its class name."""

    radius: int
    marks: list[int] = []


def test_structs_are_tagged_checked_and_renamed_as_msgspec_does() -> None:
    decoder = standin.json.Decoder(Square | Circle)
    square = Square(side=2, label="x")
    assert standin.json.encode(square) == b'{"type":"square","side":2,"colour":"red","0":"x"}'
    assert decoder.decode(b'{"side": 2, "0": "x", "type": "square"}') == square
    assert decoder.decode(b'{"type": "Circle", "radius": 1}') == Circle(radius=1)
    assert Circle(radius=1).marks is not Circle(radius=1).marks
    assert standin.structs.replace(square, side=3) == Square(side=3, label="x")
    assert standin.structs.asdict(square) == {"side": 2, "colour": "red", "label": "x"}
    assert standin.to_builtins(Circle(radius=1)) == {"type": "Circle", "radius": 1, "marks": []}
    for document, message in [
        (b'{"type": "triangle"}', "Invalid value 'triangle' - at `$.type`"),
        (b'{"side": 2}', "Object missing required field `type`"),
        (b'{"type": "square"}', "Object missing required field `side`"),
        (b'{"type": "square", "side": 0}', "Expected `int` >= 1 - at `$.side`"),
        (b'{"type": "square", "side": 1, "sides": 4}', "Object contains unknown field `sides`"),
        (b"[]", "Expected `object`, got `array`"),
    ]:
        with pytest.raises(standin.ValidationError, match=message.replace("[", r"\[").replace("$", r"\$")):
            decoder.decode(document)
    with pytest.raises(AttributeError):
        square.side = 4  # type: ignore[misc]


def test_install_leaves_an_installed_msgspec_alone() -> None:
    import sys

    assert standin.install() is False
    assert sys.modules["msgspec"] is msgspec
