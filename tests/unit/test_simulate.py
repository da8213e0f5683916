"""``python -m service simulate`` plays bot games in process and writes the JSON and CSV report."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from service.__main__ import main
from service.workers.simulate import seating, simulate


def test_seats_rotate_so_every_bot_plays_every_seat() -> None:
    """Game i seats the bots rotated by i places; fixed seats keep the given order."""
    bots = ["strong", "random", "random"]
    assert [seating(bots, i, True)[0] for i in range(3)] == ["strong", "random", "random"]  # type: ignore[arg-type]
    assert seating(bots, 1, True) == ["random", "random", "strong"]  # type: ignore[arg-type]
    assert seating(bots, 1, False) == bots  # type: ignore[arg-type]


def test_the_report_adds_up() -> None:
    """Wins (ties shared) add up to the games, by seat and by bot; lengths and margins cover every game."""
    report, rows = simulate("bazaar", ["greedy", "random"], 6, seed="t", progress=False)
    assert len(rows) == 6
    assert sum(line.wins for line in report.by_seat) == pytest.approx(6)
    assert sum(line.wins for line in report.by_bot) == pytest.approx(6)
    assert {line.name: line.games for line in report.by_bot} == {"greedy": 6, "random": 6}
    assert sum(report.margins.values()) == 6
    assert report.length["min_commands"] <= report.length["mean_commands"] <= report.length["max_commands"]
    again, _ = simulate("bazaar", ["greedy", "random"], 6, seed="t", progress=False)
    assert again == report  # seeded: the same run gives the same report


def test_the_command_line_writes_json_and_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The documented command line, with a tiny run."""
    out = tmp_path / "johari"
    main(
        [
            "simulate",
            "--game",
            "johari",
            "--players",
            "2",
            "--bots",
            "strong,random",
            "--games",
            "2",
            "--iterations",
            "4",
            "--horizon",
            "3",
            "--out",
            str(out),
        ]
    )
    report = json.loads(out.with_suffix(".json").read_text())
    assert report["games"] == 2 and report["bots"] == ["strong", "random"]
    with out.with_suffix(".csv").open() as handle:
        assert len(list(csv.DictReader(handle))) == 2
    assert "wrote" in capsys.readouterr().out


def test_the_command_line_refuses_a_wrong_table() -> None:
    """Levels must be known and match the player count the game allows."""
    with pytest.raises(SystemExit):
        main(["simulate", "--game", "johari", "--players", "2", "--bots", "strong,clever", "--games", "1"])
    with pytest.raises(SystemExit):
        main(["simulate", "--game", "johari", "--players", "5", "--bots", "random", "--games", "1"])


def test_a_game_that_does_not_end_is_abandoned_not_counted() -> None:
    """Past the command limit a bot game ends unfinished, without a winner (Bazaar sets no limit, Z-10)."""
    from domain.bots.play import play

    played = play("bazaar", ["random", "random"], "stall", max_commands=5, abandon=True)
    assert not played.finished and played.result.winners == () and played.commands == 5
    with pytest.raises(RuntimeError):
        play("bazaar", ["random", "random"], "stall", max_commands=5)
