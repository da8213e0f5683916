"""The house component data (JSON), the rule pages (``rules/<game>.md``) and the short "how to play" pages
(``howto/<game>.md``), shipped with the package, and the one way each is read.

Each game declares the shape of its data file as msgspec structs with their constraints (``msgspec.Meta``
ranges and lengths, ``Literal`` fixed values, and a few cross-field checks in ``__post_init__`` where a type
cannot say it); ``convert_component_data`` checks a file against that declaration.
"""

from __future__ import annotations

import json
import re
from importlib.resources import files
from pathlib import Path
from typing import Any, TypeVar

import msgspec

__all__ = [
    "DATA_DIR",
    "ComponentDataError",
    "convert_component_data",
    "howto_page",
    "load_component_data",
    "rule_page",
]

DATA_DIR = Path(__file__).parent

T = TypeVar("T")
# A game's ``rules`` reference: the rule pages are package data (links to docs/rules/, whose text wheels copy)
RULE_PAGE = re.compile(r"rules/[a-z0-9_]+\.md")
# A game's "how to play" page: package data too (links to docs/howto/)
GAME_NAME = re.compile(r"[a-z0-9_]+")


class ComponentDataError(ValueError):
    """A component data file breaks its game's rulebook: the message names the game, the fault and where."""


def load_component_data(name: str) -> Any:
    """The parsed JSON of ``domain/data/<name>.json`` (unchecked: see ``convert_component_data``)."""
    return json.loads((DATA_DIR / f"{name}.json").read_text(encoding="utf-8"))


def convert_component_data(game: str, raw: Any, schema: type[T]) -> T:
    """``raw`` as the declared ``schema`` of ``game``'s data; ComponentDataError naming the fault otherwise."""
    try:
        return msgspec.convert(raw, schema)
    except msgspec.ValidationError as exc:
        raise ComponentDataError(f"{game} component data: {exc}") from exc


def rule_page(rules: str) -> str | None:
    """The Markdown of the rule page a game's ``rules`` reference names (``rules/<game>.md``), read as
    package data so an installed wheel serves it too; None if there is no such page."""
    return packaged_page(rules) if RULE_PAGE.fullmatch(rules) else None


def howto_page(game: str) -> str | None:
    """The Markdown of a game's short "how to play" (``howto/<game>.md``, package data); None if there is none."""
    return packaged_page(f"howto/{game}.md") if GAME_NAME.fullmatch(game) else None


def packaged_page(relative: str) -> str | None:
    """The text of a Markdown page shipped in this package (a checked relative path); None if it is missing."""
    page = files(__name__).joinpath(relative)
    return page.read_text(encoding="utf-8") if page.is_file() else None
