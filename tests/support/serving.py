"""``python -m service serve`` as a host runs it, in a process of its own, for the tests that need the real
command (its start-up: migrations, the signing key, the HTTP server's own timeouts)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from service.runtime.settings import PROJECT_ROOT


@contextmanager
def serving(env: dict[str, str], port: int, patience: float) -> Iterator[subprocess.Popen[str]]:
    """``python -m service serve`` with ``env``, once its ``/ready`` on ``port`` answers 200 (within
    ``patience`` seconds, or the test fails with what it printed); stopped on exit."""
    # its stderr to a file, not a pipe: a server that logs for a whole module would fill a pipe and stall
    with tempfile.TemporaryFile("w+") as errors:
        process = subprocess.Popen(
            [sys.executable, "-m", "service", "serve"],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            text=True,
        )
        try:
            deadline = time.monotonic() + patience
            while True:
                if process.poll() is not None:
                    errors.seek(0)
                    raise AssertionError(f"the server exited during start-up: {errors.read()}")
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/ready", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, "the server did not become ready"
                time.sleep(0.2)
            yield process
        finally:
            process.terminate()
            process.wait(timeout=30)


def service_command(env: dict[str, str], *arguments: str) -> subprocess.CompletedProcess[str]:
    """``python -m service ARGUMENTS`` with ``env`` as an operator runs it, to its end (output captured)."""
    return subprocess.run(
        [sys.executable, "-m", "service", *arguments],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
