"""The verifier's distribution (verifier/, docs/audit.md "Installing the verifier") builds a wheel holding only
the verifier's import closure and its command, which installs with pip into a clean virtual environment that
then holds only it, msgspec and cryptography (with cryptography's own cffi and pycparser), and its
``bazaar-games-verify`` command there gives the repository's verdicts: finished games of all three games
verify, and a rigged draw in each is named."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import grimp
import msgspec
import pytest

from eventstore.protocol import GENESIS_HASH, event_hash
from service.integrity.audit import chain_key, verify_file
from tests.support.exports import exported_game

ROOT = Path(__file__).resolve().parents[2]
GAMES = {  # one of each game; Bazaar timed, so its stored commands are the service's stamped ones
    "basari": (3, None),
    "bazaar": (2, {"decision_seconds": 3600, "bank_seconds": 60}),
    "johari": (2, None),
}
# what the virtual environment may hold: the verifier, its two requirements and cryptography's own
ALLOWED = {"bazaar-games-verifier", "msgspec", "cryptography", "cffi", "pycparser"}

Document = dict[str, Any]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel pip builds from a copy of verifier/ (its links followed, as a clone's are)."""
    work = tmp_path_factory.mktemp("verifier")
    source = work / "source"
    shutil.copytree(
        ROOT / "verifier", source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info")
    )
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", source, "-w", work / "wheels"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    (path,) = (work / "wheels").glob("bazaar_games_verifier-*.whl")
    return path


@pytest.fixture(scope="module")
def verifier(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``bazaar-games-verify`` command of a new virtual environment (no pip, no site packages) into which
    pip installed the wheel, and nothing else."""
    environment = tmp_path_factory.mktemp("environment") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", environment], check=True)
    python = environment / "bin" / "python"
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", python, "install", "--quiet", wheel],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert installed.returncode == 0, installed.stderr
    names = "import importlib.metadata as m, json; print(json.dumps([d.metadata['Name'] for d in m.distributions()]))"
    # isolated (-I): the working directory is not on sys.path, so a checkout's egg-info is not listed
    listing = subprocess.run([python, "-I", "-c", names], check=True, capture_output=True, text=True)
    assert set(json.loads(listing.stdout)) == ALLOWED, listing.stdout
    return environment / "bin" / "bazaar-games-verify"


def verifier_closure() -> set[str]:
    """The modules the verifier runs: its command's and what ``service.integrity.audit`` imports in turn (the
    closure the import-linter contract holds to msgspec and cryptography), with every package above them."""
    graph = grimp.build_graph("service", "domain", "eventstore")
    modules = {"service.__main__", "service.integrity.audit"}
    modules |= graph.find_upstream_modules("service.integrity.audit")
    return {".".join(m.split(".")[:n]) for m in modules for n in range(1, m.count(".") + 2)}


def test_the_wheel_holds_the_verifier_and_nothing_of_the_server(wheel: Path) -> None:
    """Its modules are exactly the verifier's closure (no api, no games service, nothing importing the web
    framework or the database), its other files the rules' data and its metadata, and it has the command."""
    with zipfile.ZipFile(wheel) as archive:
        files = archive.namelist()
        entry_points = next(archive.read(f) for f in files if f.endswith(".dist-info/entry_points.txt"))
    modules = {
        f.removesuffix(".py").removesuffix("/__init__").replace("/", ".") for f in files if f.endswith(".py")
    }
    assert modules == verifier_closure()
    assert {"service.games.service", "service.runtime.database", "eventstore.postgres"}.isdisjoint(modules)
    others = {f for f in files if not f.endswith(".py") and ".dist-info/" not in f}
    assert others and all(f.startswith("domain/data/") for f in others), others
    assert "bazaar-games-verify = service.__main__:verify_main" in entry_points.decode()


def rig_a_draw(document: Document) -> None:
    """Add one to the first number in an event after the first quarter of the game and recompute the chain
    as an operator rewriting the history would (the revealed seed gives the chain key)."""
    events = document["events"]
    event = next(
        e
        for e in events[len(events) // 4 :]
        if any(type(v) is int and k != "seat" for k, v in e["data"].items())
    )
    name = next(k for k, v in event["data"].items() if type(v) is int and k != "seat")
    event["data"][name] += 1
    key = chain_key(document["seed"]) if document["chain_keyed"] else b""
    previous = GENESIS_HASH
    for each in events:
        data = msgspec.json.encode(each["data"])
        previous = event_hash(
            previous, document["game_id"], each["version"], each["type"], each["schema_version"], data, key
        )
        each["hash"] = previous.hex()
    document["head_hash"] = previous.hex()


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_installed_verifier_gives_the_repository_verdicts(
    verifier: Path, game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    players, clock = GAMES[game]
    document = json.loads(asyncio.run(exported_game(game, players, f"package-{game}", clock)))
    untouched, rigged = tmp_path / "untouched.json", tmp_path / "rigged.json"
    untouched.write_text(json.dumps(document))
    rig_a_draw(document)
    rigged.write_text(json.dumps(document))
    capsys.readouterr()  # the service's log lines while the game was played
    for path, expected in ((untouched, 0), (rigged, 1)):
        installed = subprocess.run([verifier, path], capture_output=True, text=True, timeout=120, check=False)
        assert verify_file(path) == expected
        here = capsys.readouterr()
        assert (installed.returncode, installed.stdout, installed.stderr) == (expected, here.out, here.err)
    assert " FAILED: events_differ: " in installed.stderr or " FAILED: replay_failed: " in installed.stderr


def test_the_verifier_requires_the_versions_the_server_runs() -> None:
    """Its two requirements are pinned as the server's own, so both verify with the same msgspec."""
    server = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    verifier = tomllib.loads((ROOT / "verifier" / "pyproject.toml").read_text())["project"]["dependencies"]
    assert sorted(verifier) == sorted(d for d in server if d.split("==")[0] in {"msgspec", "cryptography"})
