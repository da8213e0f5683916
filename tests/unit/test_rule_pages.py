"""The published rule pages (docs/rules) define every ruling code the games cite in refusals and docstrings."""

from __future__ import annotations

import re
import tomllib
from fnmatch import fnmatch
from importlib.resources import files
from pathlib import Path

from domain.data import howto_page, rule_page
from domain.registry import all_games

ROOT = Path(__file__).resolve().parents[2]
CODE = re.compile(r"\b([BZJ])-(\d+)\b")
PAGES = {"B": "basari.md", "Z": "bazaar.md", "J": "johari.md"}


def defined() -> set[str]:
    """The codes each page defines: a ruling starts a list item (``- J-13 The actions``)."""
    codes: set[str] = set()
    for page in PAGES.values():
        text = (ROOT / "docs" / "rules" / page).read_text(encoding="utf-8")
        codes |= {f"{m[0]}-{m[1]}" for m in re.findall(r"^- ([BZJ])-(\d+) ", text, flags=re.MULTILINE)}
    return codes


def test_every_cited_ruling_is_on_a_published_page() -> None:
    """A code cited anywhere in domain/ or tests/ (refusals, docstrings) names a ruling of docs/rules."""
    known = defined()
    cited = {
        (f"{m[0]}-{m[1]}", str(path.relative_to(ROOT)))
        for folder in ("domain", "tests")
        for path in (ROOT / folder).rglob("*.py")
        for m in CODE.findall(path.read_text(encoding="utf-8"))
    }
    unknown = sorted((code, where) for code, where in cited if code not in known)
    assert not unknown, unknown


def test_every_game_s_rule_page_ships_as_package_data() -> None:
    """Each catalog game's ``rules`` page is read through importlib.resources (as an installed wheel serves
    it), is the published docs/rules page word for word, and is covered by the package-data globs."""
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for name, game in all_games().items():
        text = rule_page(game.rules)
        assert text is not None, name
        assert text == (ROOT / "docs" / game.rules).read_text(encoding="utf-8"), name
        shipped = files("domain.data").joinpath(game.rules)
        assert shipped.is_file(), name
        assert any(fnmatch(f"data/{game.rules}", pattern) for pattern in package_data["domain"]), name
    assert rule_page("rules/../../pyproject.toml") is None
    assert rule_page("rules/chess.md") is None


def test_every_game_s_how_to_play_ships_with_its_picture() -> None:
    """Each catalog game has a short "how to play" (docs/howto, package data, 8-15 lines of text) whose
    picture of the table is a packaged static PNG, and which cites only its own game's rulings."""
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for name, game in all_games().items():
        text = howto_page(name)
        assert text is not None, name
        assert text == (ROOT / "docs" / "howto" / f"{name}.md").read_text(encoding="utf-8"), name
        assert text.startswith("# How to play"), name
        assert "[The full rules](#the-full-rules)" in text, name
        assert 8 <= len([line for line in text.splitlines() if line.strip()]) <= 15, name
        assert any(fnmatch(f"data/howto/{name}.md", pattern) for pattern in package_data["domain"]), name
        picture = f"/static/howto/{name}.png"
        assert f"]({picture})" in text, name
        shipped = files("api.web").joinpath("static", "howto", f"{name}.png")
        assert shipped.read_bytes().startswith(b"\x89PNG\r\n\x1a\n"), name
        assert any(fnmatch(f"web{picture}", pattern) for pattern in package_data["api"]), name
        cited = {f"{m[0]}-{m[1]}" for m in CODE.findall(text)}
        assert cited and cited <= defined(), name
        letter = next(letter for letter, page in PAGES.items() if game.rules == f"rules/{page}")
        assert {code[0] for code in cited} == {letter}, name
    assert howto_page("../rules/basari") is None
    assert howto_page("chess") is None
