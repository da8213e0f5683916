"""A server's CPU time and memory from Linux /proc: the uvicorn process and every process under it (with
WORKERS=n the supervisor's worker children do the work)."""

from __future__ import annotations

import os
from pathlib import Path


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants, as /proc lists them now (a child of any of its threads)."""
    found = [pid]
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            found += process_tree(int(child))
    return found


def _stat(pid: int) -> list[str]:
    """The fields of /proc/<pid>/stat after the command name (proc(5)'s field 3 onwards)."""
    return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()


def parent(pid: int) -> int:
    """The process's parent (OSError when there is no such process on this machine)."""
    return int(_stat(pid)[1])  # ppid, field 4 of proc(5)


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) the process tree under ``pid`` has used so far, its children that exited and
    were reaped included (PostgreSQL's backends end with their connections)."""
    ticks = 0
    for each in process_tree(pid):
        fields = _stat(each)
        # utime, stime, cutime, cstime (fields 14 to 17 of proc(5)): its own time and its reaped children's
        ticks += int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
    return ticks / os.sysconf("SC_CLK_TCK")


def rss_kb(pid: int) -> int:
    """Resident memory (KB) of the process tree under ``pid``."""
    total = 0
    for each in process_tree(pid):
        for line in Path(f"/proc/{each}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total
