"""The server's HTTP implementation is chosen by name (service/runtime/serving.py); the head deadline of each is
tested end to end in tests/e2e/test_request_timeouts.py."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from service.runtime.serving import run_uvicorn
from service.runtime.settings import PROJECT_ROOT, Settings


def test_an_unknown_http_implementation_refuses_to_start() -> None:
    with pytest.raises(SystemExit, match="HTTP_IMPLEMENTATION='h2': choose one of httptools, h11"):
        run_uvicorn("api.app:create_app", dataclasses.replace(Settings.from_env(), http_implementation="h2"))


def test_starting_the_embedded_database_warns_nothing_on_a_headless_machine(tmp_path: Path) -> None:
    """Without XDG_RUNTIME_DIR, importing the embedded database's package made platformdirs warn on every
    ``make run``; it is imported where that warning is ignored. (The data directory lies under a file here,
    so the function stops right after the import, before any database starts.)"""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code = (
        "import sys, warnings\n"
        "from pathlib import Path\n"
        "warnings.simplefilter('error')\n"
        "from service.runtime.database import embedded_database_urls\n"
        "try:\n"
        "    embedded_database_urls(Path(sys.argv[1]))\n"
        "except (FileExistsError, NotADirectoryError):\n"
        "    print('stopped at the data directory')\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    ran = subprocess.run(
        [sys.executable, "-c", code, str(blocker / "data")],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0 and ran.stdout.strip() == "stopped at the data directory", ran.stderr
    assert not ran.stderr, ran.stderr
