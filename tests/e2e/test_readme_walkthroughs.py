"""The README's curl walk-throughs, pasted as a newcomer pastes them: every ``sh`` block from "Playing a game
with curl" on that calls curl runs through bash, in the README's order, against a server on a database of its
own (only ``localhost:8000`` is replaced by the server's address). Each ``NAME=…`` placeholder line is
filled from an earlier answer by the table ``FILLS``; every answer must be a success unless ``OUTCOMES``
quotes the README's words for another, and each ``# -> {...}`` comment's fields and values must be in the
answer it follows."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from service.runtime.settings import PROJECT_ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.db]

README = PROJECT_ROOT / "README.md"
FIRST_WALKTHROUGH = "Playing a game with curl"
DISAPPEARS = "When a player disappears: running the tournament to its end"
# blocks that cannot run literally, by section, with the reason
LEFT_OUT = {
    "Watching a game live": "`curl -N` follows a running game's stream, which stays open until the game ends",
    "A bot following its notifications": "`curl -N` follows an account's stream, which never ends by itself",
}
# the sections whose blocks must be run, so that a renamed or dropped section fails here instead of passing
EXPECTED_SECTIONS = {
    FIRST_WALKTHROUGH,
    "Accounts and the lobby with curl",
    "Time controls",
    "Playing against the server's bots",
    "Auditing a game",
    "Exporting a game and verifying it offline",
    "Running a tournament with curl",
    DISAPPEARS,
}

# every curl tells its status on the side, leaving its output as the README shows it
CURL_STATUS = 'curl() { command curl --write-out \'%{stderr}%{http_code}\\n\' "$@" 2>>"$CURL_STATUSES"; }\n'
PLACEHOLDER = re.compile(r"^\s*[A-Z_]+=…(\s*;\s*[A-Z_]+=…)*\s*(#.*)?$")
ASSIGNMENT = re.compile(r"^([A-Z_]+)=\$\(")
# a stated field of a "# ->" comment, with its value when that is a literal (not "…" nor "<what it is>")
STATED_FIELD = re.compile(r'"(\w+)":\s*("(?:[^"\\]|\\.)*"|-?\d+|true|false|null)?')


class Answers:
    """Every command run so far with its standard output, in order."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    def json(self, *fragments: str, nth: int = -1) -> Any:
        """The JSON answer of the ``nth`` (default: the latest) command so far containing one of ``fragments``."""
        matching = [output for command, output in self.seen if any(f in command for f in fragments)]
        assert matching, f"no command containing {fragments} has answered yet"
        return json.loads(matching[nth])


def seat_token(answer: Any, name: str) -> str:
    """The token of the seat or player called ``name`` in a creation answer."""
    people = answer.get("seats") or answer["players"]
    token: str = next(person["token"] for person in people if person["name"] == name)
    return token


BASARI = '"game": "basari", "players": [{"name": "Max"}'
RATED_JOHARI = '{"open": true}], "rated": true}'
TOURNAMENT_CREATION = "localhost:8000/v1/tournaments -H"
# (section, variable) -> its value, from the answers so far, as a reader takes it
FILLS: dict[tuple[str, str], Callable[[Answers], str]] = {
    (FIRST_WALKTHROUGH, "GAME"): lambda a: a.json(BASARI)["game_id"],
    (FIRST_WALKTHROUGH, "MAX"): lambda a: seat_token(a.json(BASARI), "Max"),
    (FIRST_WALKTHROUGH, "HANNA"): lambda a: seat_token(a.json(BASARI), "Hanna"),
    # Ana's token: from her sign-up, later from its replacement
    ("Accounts and the lobby with curl", "ANA"): lambda a: a.json('{"name": "Ana"}', "/v1/me/token")["token"],
    ("Accounts and the lobby with curl", "BEN"): lambda a: a.json('{"name": "Ben"}')["token"],
    ("Accounts and the lobby with curl", "CY"): lambda a: a.json('{"name": "Cy"}')["token"],
    ("Accounts and the lobby with curl", "GAME"): lambda a: a.json(RATED_JOHARI)["game_id"],
    ("Accounts and the lobby with curl", "OLD"): lambda a: a.json('{"name": "Old"}')["token"],
    ("Time controls", "GAME"): lambda a: a.json('"max_timeouts": 2')["game_id"],
    ("Playing against the server's bots", "LOBBY_GAME"): lambda a: a.json('{"open": true}]}')["game_id"],
    ("Auditing a game", "GAME"): lambda a: a.json(BASARI)["game_id"],
    ("Auditing a game", "MAX"): lambda a: seat_token(a.json(BASARI), "Max"),
    # T and ORG: the Autumn cup first, the Club cup later (the latest tournament created)
    ("Running a tournament with curl", "T"): lambda a: a.json(TOURNAMENT_CREATION)["tournament_id"],
    ("Running a tournament with curl", "ORG"): lambda a: a.json(TOURNAMENT_CREATION)["organizer_token"],
    ("Running a tournament with curl", "GAME"): lambda a: next(
        table["game_id"]
        for table in a.json("/rounds")["tables"]
        if any(seat["name"] == "Ada" for seat in table["seats"])
    ),
    ("Running a tournament with curl", "ADA_TOKEN"): lambda a: seat_token(a.json("Autumn cup"), "Ada"),
    # "when not null": on the last page the reader asks with an empty cursor (the first page again)
    ("Running a tournament with curl", "NEXT"): lambda a: a.json("ratings/johari")["next_cursor"] or "",
    (DISAPPEARS, "T"): lambda a: a.json("Autumn cup")["tournament_id"],
    (DISAPPEARS, "ORG"): lambda a: a.json("Autumn cup")["organizer_token"],
    # a game of its current round: the second table of the first round seated (the Autumn cup's), as the
    # adjudication's "# ->" shows
    (DISAPPEARS, "GAME"): lambda a: a.json("/rounds", nth=0)["tables"][1]["game_id"],
}


@dataclass(frozen=True)
class Outcome:
    """What the README's prose says a command answers: its HTTP status, and maybe a code, a version, some
    output and the exit status of the whole line."""

    status: int
    code: str | None = None
    version: int | None = None
    output: str | None = None
    exit: int = 0


STARTED = "game_started"
NOT_AN_EXPORT = "-: FAILED: not a game export: the server answered 409 game_not_finished"
# the commands the README's prose gives an outcome other than success (or a version), by a fragment of the command
OUTCOMES: list[tuple[str, str, Outcome]] = [
    ("Idempotency-Key: max-1", "at version 4 (Max's choice made it 4)", Outcome(200, version=4)),
    ('If-Match: "4"', "applied only while the game is at version 4", Outcome(200, version=5)),
    ("min_version=5", "never older than version 5 (Hanna's choice)", Outcome(200, version=5)),
    ("games/$GAME/leave", "this game has started, so both answer 409 game_started", Outcome(409, STARTED)),
    ("games/$GAME/decline", "this game has started, so both answer 409 game_started", Outcome(409, STARTED)),
    ("-X DELETE localhost:8000/v1/me/token", "revoke a token: 204", Outcome(204)),
    ("export -o game.json", "(409 game_not_finished while it runs)", Outcome(409)),
    (
        "export | ",
        "-> while the game runs: -: FAILED: not a game export: the server answered 409 game_not_finished: …",
        Outcome(409, output=NOT_AN_EXPORT, exit=1),
    ),
]


@dataclass
class Step:
    """One command line of a block (continuations joined) and the "# ->" comments that follow it."""

    command: str
    stated: list[str] = field(default_factory=list)


def sh_blocks() -> list[tuple[str, str]]:
    """Every ```sh block of the README with the title of the section it is in."""
    blocks: list[tuple[str, str]] = []
    section, block = "", None
    for line in README.read_text(encoding="utf-8").splitlines():
        if block is not None:
            if line.startswith("```"):
                blocks.append((section, "\n".join(block)))
                block = None
            else:
                block.append(line)
        elif line.startswith("#"):
            section = line.lstrip("#").strip()
        elif line.strip() == "```sh":
            block = []
    return blocks


def steps(block: str) -> list[Step]:
    """A block's commands in order (a line ending in a backslash or inside quotes goes on); a "# ->"
    comment (and its indented continuation lines) goes with the command before it, as does a trailing
    "# -> ..." on the command's own line."""
    found: list[Step] = []
    pending = ""
    stating = False
    for line in block.splitlines():
        if not pending and line.lstrip().startswith("#"):
            stating = line.startswith("# ->") or (stating and line.startswith("#  "))
            if stating and found:
                found[-1].stated.append(line)
            continue
        stating = False
        if not pending and not line.strip():
            continue
        pending += line
        if line.endswith("\\") or not complete(pending):
            pending += "\n"
            continue
        trailing = re.search(r"\s#\s->(.*)$", pending)
        found.append(Step(pending, [trailing.group(1)] if trailing else []))
        pending = ""
    return found


def complete(command: str) -> bool:
    """Whether a command's quotes are all closed (a quoted body may span lines)."""
    try:
        shlex.split(command, comments=True)
    except ValueError:
        return False
    return True


def walkthroughs() -> list[tuple[str, str]]:
    """The blocks to run: from the first walk-through on, those calling curl, except the ones left out."""
    blocks = sh_blocks()
    first = next(i for i, (section, _) in enumerate(blocks) if section == FIRST_WALKTHROUGH)
    return [(s, b) for s, b in blocks[first:] if "curl" in b and s not in LEFT_OUT]


def documents(output: str) -> list[Any]:
    """The JSON documents of an output, one after the other (jq prints several)."""
    decoder, found, at = json.JSONDecoder(), [], 0
    while at < len(output.rstrip()):
        while output[at].isspace():
            at += 1
        value, at = decoder.raw_decode(output, at)
        found.append(value)
    return found


def pairs(value: Any) -> Iterator[tuple[str, Any]]:
    """Every (field, value) anywhere in a JSON value."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield key, inner
            yield from pairs(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from pairs(inner)


def check_stated(step: Step, output: str) -> None:
    """Each field a "# ->" comment shows is in the answer, with the literal value it shows."""
    stated = [match.groups() for line in step.stated for match in STATED_FIELD.finditer(line)]
    if not stated:
        return
    found = [pair for document in documents(output) for pair in pairs(document)]
    for key, literal in stated:
        expected = json.loads(literal) if literal else None
        if literal is None or (isinstance(expected, str) and ("…" in expected or expected.startswith("<"))):
            assert any(k == key for k, _ in found), f"no field {key!r} in the answer to\n{step.command}"
        else:
            assert (key, expected) in found, f"no {key}: {literal} in the answer to\n{step.command}\n{output}"


def run(command: str, variables: dict[str, str], base: str, cwd: Path) -> tuple[int, str, str, list[int]]:
    """Run one README command line through bash in ``cwd`` with the variables filled so far: its exit
    status, output, error output and the HTTP status of each of its requests."""
    statuses = cwd / "curl-statuses"
    statuses.write_text("")
    # the README's interpreter is the checkout's virtualenv; the test runs the one it runs in
    script = command.replace("localhost:8000", base.removeprefix("http://")).replace(
        ".venv/bin/python", sys.executable
    )
    assigned = ASSIGNMENT.match(command)
    if assigned:
        script += f'\nprintf %s "${assigned.group(1)}"'
    env = {**os.environ, **variables, "CURL_STATUSES": str(statuses), "PYTHONPATH": str(PROJECT_ROOT)}
    done = subprocess.run(
        ["bash", "-c", CURL_STATUS + script], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    return done.returncode, done.stdout, done.stderr, [int(s) for s in statuses.read_text().split()]


def check(step: Step, returncode: int, output: str, errors: str, statuses: list[int]) -> None:
    """A command answered as the README says: every request got an answer and none a 5xx; a success, or the
    outcome ``OUTCOMES`` quotes; and what its "# ->" comment shows."""
    said = f"{step.command}\n-> exit {returncode}, HTTP {statuses}: {output}{errors}"
    assert statuses and all(100 < s < 500 for s in statuses), said
    outcome = next((o for fragment, _, o in OUTCOMES if fragment in step.command), None)
    if outcome is None:
        assert returncode == 0 and all(s < 400 for s in statuses), said
        check_stated(step, output)
        return
    assert returncode == outcome.exit and statuses == [outcome.status], said
    if outcome.code is not None:
        assert json.loads(output)["code"] == outcome.code, said
    if outcome.version is not None:
        assert json.loads(output)["version"] == outcome.version, said
    if outcome.output is not None:
        assert outcome.output in output + errors, said


@pytest.mark.skipif(
    not (shutil.which("curl") and shutil.which("jq")), reason="the README's commands need curl and jq"
)
def test_the_readme_walkthroughs_answer_as_the_readme_says(module_server: str, tmp_path: Path) -> None:
    """Each block's curl lines in the README's order, its placeholders filled as a reader fills them."""
    blocks = walkthroughs()
    assert {section for section, _ in blocks} == EXPECTED_SECTIONS
    answers, variables = Answers(), dict[str, str]()
    for section, block in blocks:
        for step in steps(block):
            if PLACEHOLDER.match(step.command):
                for name in re.findall(r"([A-Z_]+)=…", step.command):
                    assert (section, name) in FILLS, f"no fill for {name} in [{section}] {step.command}"
                    variables[name] = FILLS[section, name](answers)
                continue
            if "curl" not in step.command:
                continue  # `verify game.json ...`: it reads the export of a finished game; these games still run
            returncode, output, errors, statuses = run(step.command, variables, module_server, tmp_path)
            assigned = ASSIGNMENT.match(step.command)
            if assigned:
                variables[assigned.group(1)] = output
            else:
                answers.seen.append((step.command, output))
            check(step, returncode, output, errors, statuses)
