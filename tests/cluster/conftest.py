"""The cluster every check of tests/cluster runs on, built once for the session and torn down at its end
(also when a check or the start-up fails); the figures the checks measured are printed in the summary."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cluster import network
from tests.cluster.nodes import APPS, HOSTS, NODES, Cluster, wait_for

FIGURES: list[str] = []  # "name: value" lines the checks measured, printed after the run


def figure(line: str) -> None:
    """Keep a measured figure for the summary (and print it as it comes, for -s runs)."""
    FIGURES.append(line)
    print(line)


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    """etcd, two Patroni nodes with a synchronous standby, a read replica, HAProxy and three app hosts, each
    in its own network namespace; this process joins the hub namespace (the clients' network) for the session."""
    if os.geteuid() != 0:
        pytest.fail("the cluster test builds network namespaces: run it as root (make cluster-test)")
    root = Path(tempfile.mkdtemp(prefix="bazaar-cluster-"))
    root.chmod(0o755)  # the postgres user reaches its directories inside
    running = Cluster(root)
    started = time.monotonic()
    try:
        network.build(HOSTS)
        with network.entered(network.HUB):
            running.start_etcd()
            for node in NODES:
                running.start_patroni(node)
            running.wait_synchronous()
            running.wait_replica()
            running.start_haproxy()
            # HAProxy counts a server up until its first check fails: wait until it routes to the primary only
            wait_for(
                "the primary through HAProxy",
                lambda: running.psql("SELECT pg_is_in_recovery()", "postgres") == "f",
            )
            running.create_roles()
            running.write_signing_key()
            for app in APPS:  # started together: their migrations take turns (an advisory lock)
                running.start_app(app)
            for app in APPS:
                running.wait_ready(app)
            running.wait_balanced()
            figure(f"cluster up in {time.monotonic() - started:.1f} s (logs: {running.logs})")
            yield running
    finally:
        running.stop_all()
        network.remove_all()
        for child in root.iterdir():  # the data directories go; the logs stay for a failure's diagnosis
            if child.name != "logs":
                shutil.rmtree(child) if child.is_dir() else child.unlink()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The measured figures, after the checks' verdicts."""
    if FIGURES:
        terminalreporter.section("cluster figures")
        for line in FIGURES:
            terminalreporter.write_line(line)
