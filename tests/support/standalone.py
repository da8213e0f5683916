"""Running code the way an auditor without this project's dependencies runs it: a Python whose imports of
msgspec and of the server's packages fail, on the standard library, ``cryptography`` and this checkout.

``run_blocked(args)`` runs ``python -c PRELUDE args...`` from the repository root: the prelude makes the
blocked packages unimportable, runs ``python -m service`` (or, with ``module``, another module as
``__main__``), then prints on stderr, after ``IMPORTED:``, the top-level modules it imported beyond the
interpreter's start-up ones, and which module answered to ``msgspec``.

``encodings(game, players, seed)`` (also this module's ``__main__``, printing JSON) plays a random game and
lists, for every event, every legal command (plain and stamped as in a timed game) and every state on the
way, its JSON encoding after checking that decoding it gives the value back.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
BLOCKED = ("msgspec", "asyncpg", "litestar", "structlog", "alembic", "sqlalchemy", "uvicorn")
MARK = "IMPORTED:"

PRELUDE = f"""
import json, runpy, sys
started = set(sys.modules)
class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {BLOCKED!r}:
            raise ImportError(f"{{name}} is not installed here")
        return None
sys.meta_path.insert(0, Blocked())
module = sys.argv[1] if sys.argv[1:2] != ["verify"] else "service"
if module != "service":
    from service.integrity.msgspec_standin import install
    install()
    del sys.argv[1]
try:
    runpy.run_module(module, run_name="__main__", alter_sys=True)
finally:
    roots = sorted({{name.split(".")[0] for name in set(sys.modules) - started}} - set(sys.stdlib_module_names))
    msgspec = sys.modules.get("msgspec")
    print({MARK!r}, json.dumps({{"roots": roots, "msgspec": getattr(msgspec, "__name__", None)}}), file=sys.stderr)
"""


def run_blocked(
    *args: str, stdin: bytes | None = None
) -> tuple[subprocess.CompletedProcess[bytes], dict[str, Any]]:
    """Run the prelude with ``args`` from the repository root; the finished process (its stderr without the
    ``IMPORTED:`` line) and what that line said."""
    return _split(_run([sys.executable, "-c", PRELUDE, *args], stdin))


def run_normally(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """``python -m service args...`` from the repository root, with every dependency installed."""
    return _run([sys.executable, "-m", "service", *args], stdin)


def _run(command: list[str], stdin: bytes | None) -> subprocess.CompletedProcess[bytes]:
    """Run ``command`` on this checkout's code."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        command, cwd=ROOT, env=env, input=stdin, capture_output=True, timeout=300, check=False
    )


def _split(
    done: subprocess.CompletedProcess[bytes],
) -> tuple[subprocess.CompletedProcess[bytes], dict[str, Any]]:
    """The process with the ``IMPORTED:`` line taken out of its stderr, and that line's content."""
    kept, report = [], None
    for line in done.stderr.decode().splitlines(keepends=True):
        if line.startswith(MARK):
            report = json.loads(line[len(MARK) :])
        else:
            kept.append(line)
    assert report is not None, done.stderr.decode()
    done.stderr = "".join(kept).encode()
    return done, report


def encodings(game_name: str, players: int, seed: str) -> list[str]:
    """Every event, legal command (plain and stamped) and state of a random game, as JSON, each checked to
    decode to an equal value."""
    import msgspec

    from domain.clock import stamp, stored_command_type
    from domain.core import GameConfig, Rng
    from domain.registry import all_games
    from domain.resign import decisions

    game = all_games()[game_name]
    events_decoder = msgspec.json.Decoder(game.event_type)
    commands_decoder = msgspec.json.Decoder(stored_command_type(game.command_type))
    out: list[str] = []

    def record(value: Any, decoder: Any) -> None:
        encoded = msgspec.json.encode(value)
        assert decoder.decode(encoded) == value, value
        out.append(encoded.decode())

    config = GameConfig(players=tuple(f"p{i}" for i in range(players)), options=game.options_type())
    chooser = random.Random(seed)
    events = game.setup(config, Rng(seed, "setup"))
    state = game.initial()
    while True:
        for event in events:
            record(event, events_decoder)
            state = game.evolve(state, event)
        record(state, msgspec.json.Decoder(type(state)))
        if game.is_over(state):
            return out
        seat = chooser.choice(game.pending(state)).seat
        legal = decisions(game.legal(state, seat))
        for command in legal:
            record(command, commands_decoder)
            record(stamp(command, 1_700_000_000_000 + len(out)), commands_decoder)
        command = chooser.choice([c for c in legal if type(c).__name__ != "Resign"])
        events = game.decide(state, seat, command, Rng(seed, f"v{len(out)}"))


if __name__ == "__main__":
    print(json.dumps(encodings(sys.argv[1], int(sys.argv[2]), sys.argv[3])))
