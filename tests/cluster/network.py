"""Hosts on one machine: Linux network namespaces joined by veth pairs to two bridges.

Every host of the cluster is a namespace ``bzc-<name>`` with its own loopback and an ``eth0`` on the front
network (10.77.0.0/24: clients, etcd, Patroni's REST API, PostgreSQL's clients, the app hosts). The
PostgreSQL nodes have a second interface, ``eth1``, on the replication network (10.78.0.0/24), the way a
production cluster keeps WAL traffic on a network of its own; taking it down makes a standby lag without
touching anything else (docs/operations.md). Both bridges live in the hub namespace, which the test process
itself enters (``enter``): the addresses exist only inside these namespaces, never on the machine's own
network. Needs root (CI runs as root).
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

PREFIX = "bzc-"
HUB = f"{PREFIX}hub"
FRONT_BRIDGE = "br-front"
REPLICATION_BRIDGE = "br-repl"
HUB_ADDRESS = "10.77.0.1"
CLONE_NEWNET = 0x40000000  # <sched.h>


@dataclass(frozen=True)
class Host:
    """One namespace: its name, its front address and, for a database node, its replication address."""

    name: str
    front: str
    replication: str | None = None

    @property
    def namespace(self) -> str:
        """The namespace's name (``ip netns``)."""
        return PREFIX + self.name


def ip(*arguments: str, namespace: str | None = None) -> None:
    """Run one ``ip`` command (in ``namespace`` when given), failing loudly."""
    command = ["ip", *arguments] if namespace is None else ["ip", "-n", namespace, *arguments]
    subprocess.run(command, check=True, capture_output=True)


def namespaces() -> list[str]:
    """The namespaces of this test that exist now (a run that was killed may have left some behind)."""
    listed = subprocess.run(["ip", "netns", "list"], check=True, capture_output=True, text=True).stdout
    return [line.split()[0] for line in listed.splitlines() if line.startswith(PREFIX)]


def pids_in(namespace: str) -> list[int]:
    """Every process running in ``namespace``."""
    listed = subprocess.run(["ip", "netns", "pids", namespace], capture_output=True, text=True).stdout
    return [int(pid) for pid in listed.split()]


def kill_everything_in(namespace: str) -> int:
    """SIGKILL every process of the namespace (a host that crashes); how many there were."""
    killed = 0
    for pid in pids_in(namespace):
        try:
            os.kill(pid, signal.SIGKILL)
            killed += 1
        except ProcessLookupError:
            pass
    return killed


def remove_all() -> None:
    """Kill the processes of every namespace of this test and delete the namespaces (with their veths)."""
    for namespace in namespaces():
        kill_everything_in(namespace)
    for namespace in namespaces():
        subprocess.run(["ip", "netns", "delete", namespace], check=False, capture_output=True)


def build(hosts: list[Host]) -> None:
    """The hub with both bridges, and each host joined to them by veth pairs, every link up."""
    remove_all()
    ip("netns", "add", HUB)
    ip("link", "set", "lo", "up", namespace=HUB)
    for bridge, address in ((FRONT_BRIDGE, f"{HUB_ADDRESS}/24"), (REPLICATION_BRIDGE, "10.78.0.1/24")):
        ip("link", "add", bridge, "type", "bridge", namespace=HUB)
        ip("address", "add", address, "dev", bridge, namespace=HUB)
        ip("link", "set", bridge, "up", namespace=HUB)
    for host in hosts:
        ip("netns", "add", host.namespace)
        ip("link", "set", "lo", "up", namespace=host.namespace)
        links = [("eth0", host.front, FRONT_BRIDGE, "f")]
        if host.replication is not None:
            links.append(("eth1", host.replication, REPLICATION_BRIDGE, "r"))
        for inside, address, bridge, suffix in links:
            outside = hub_side(host, suffix)
            ip(
                "link",
                "add",
                outside,
                "netns",
                HUB,
                "type",
                "veth",
                "peer",
                "name",
                inside,
                "netns",
                host.namespace,
            )
            ip("link", "set", outside, "master", bridge, "up", namespace=HUB)
            ip("address", "add", f"{address}/24", "dev", inside, namespace=host.namespace)
            ip("link", "set", inside, "up", namespace=host.namespace)


def hub_side(host: Host, suffix: str) -> str:
    """The name of the hub's end of a host's veth pair (``f``: front, ``r``: replication)."""
    return f"{host.name}-{suffix}"


def set_link(host: Host, suffix: str, up: bool) -> None:
    """Plug or unplug a host's cable to one network (its hub side)."""
    ip("link", "set", hub_side(host, suffix), "up" if up else "down", namespace=HUB)


@contextmanager
def entered(namespace: str) -> Iterator[None]:
    """Run this process (its current thread and the threads it starts from now on) in ``namespace``.

    Python 3.11 has no ``os.setns`` (3.12 does), so libc's setns(2) is called through ctypes."""
    libc = ctypes.CDLL(None, use_errno=True)
    own = os.open("/proc/self/ns/net", os.O_RDONLY)
    target = os.open(f"/var/run/netns/{namespace}", os.O_RDONLY)
    try:
        if libc.setns(target, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns into {namespace}")
        yield
    finally:
        libc.setns(own, CLONE_NEWNET)
        os.close(own)
        os.close(target)
