"""The cluster's processes, each in its host's namespace: etcd, two Patroni-managed PostgreSQL nodes, HAProxy
(deploy/haproxy.cfg) and three app hosts (``python -m service serve``, WORKERS=1).

PostgreSQL and etcd run as the ``postgres`` user (PostgreSQL refuses root) with their files in the run's
own temporary directory; nothing here touches the machine's own PostgreSQL. Every wait polls for the event
it waits for (a leader, a streaming standby, a ready host) with a generous deadline: other work shares the
machine's two cores.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import secrets
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service.runtime.settings import PROJECT_ROOT
from tests.cluster.network import Host, kill_everything_in

DEPLOY = PROJECT_ROOT / "deploy"
ETCD = Host("etcd", "10.77.0.2")
BALANCER = Host("lb", "10.77.0.10")
DATABASES = [Host("pg1", "10.77.0.11", "10.78.0.11"), Host("pg2", "10.77.0.12", "10.78.0.12")]  # may lead
REPLICA = Host(
    "pg3", "10.77.0.13", "10.78.0.13"
)  # a read replica: never leads, never the synchronous standby
NODES = [*DATABASES, REPLICA]
APPS = [Host(f"app{n}", f"10.77.0.2{n}") for n in (1, 2, 3)]
HOSTS = [ETCD, BALANCER, *NODES, *APPS]
POSTGRES_PORT = 5000  # HAProxy's PostgreSQL frontend: the primary, whichever node it is
READS_PORT = 5001  # HAProxy's frontend for reads: any standby
HTTP_PORT = 8080  # HAProxy's frontend for the app hosts
PATRONI_PORT = 8008
APP_PORT = 8000
ROLES = ("postgres", "replicator", "bazaar_owner", "bazaar_service")  # each gets a random password a run

T = TypeVar("T")


def wait_for(what: str, probe: Callable[[], T | None], seconds: float = 120.0, every: float = 0.2) -> T:
    """Poll ``probe`` until it returns something other than None (or False); fail naming ``what``."""
    deadline = time.monotonic() + seconds
    last: object = None
    while time.monotonic() < deadline:
        try:
            value = probe()
        except Exception as failure:  # a probe of a service that is still starting fails: keep polling
            last = failure
            value = None
        if value is not None and value is not False:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out after {seconds:.0f} s waiting for {what} (last: {last!r})")


def get_json(url: str, timeout: float = 2.0) -> Any:
    """GET ``url`` and decode its JSON body (any status: Patroni answers 503 with a body too)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return json.load(response)
    except urllib.error.HTTPError as error:
        return json.load(error)


def status_of(url: str, timeout: float = 2.0) -> int:
    """The HTTP status of GET ``url``."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


@dataclass
class Cluster:
    """The running cluster: its processes, log files, passwords and URLs."""

    root: Path
    passwords: dict[str, str] = field(default_factory=lambda: {n: secrets.token_hex(12) for n in ROLES})
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    hosts: dict[str, Host] = field(default_factory=dict)  # where each process runs, by name

    @property
    def logs(self) -> Path:
        """Where every process's output goes (kept after the run for a failure's diagnosis)."""
        return self.root / "logs"

    def url(
        self,
        role: str,
        database: str = "games",
        host: str = BALANCER.front,
        port: int = POSTGRES_PORT,
        attributes: str = "read-write",
    ) -> str:
        """A PostgreSQL URL as ``role`` through HAProxy's primary frontend (or ``host``:``port``); by default it
        accepts only a server that takes writes (HAProxy counts a server up until its first check fails)."""
        return (
            f"postgresql://{role}:{self.passwords[role]}@{host}:{port}/{database}"
            f"?target_session_attrs={attributes}"
        )

    @property
    def http(self) -> str:
        """The app hosts behind HAProxy."""
        return f"http://{BALANCER.front}:{HTTP_PORT}"

    # processes ---------------------------------------------------------------------------------------------

    def spawn(
        self,
        name: str,
        host: Host,
        command: list[str],
        env: dict[str, str] | None = None,
        user: str | None = None,
        cwd: Path | None = None,
    ) -> subprocess.Popen[bytes]:
        """Start ``command`` in ``host``'s namespace (as ``user``), its output to logs/<name>.log."""
        self.logs.mkdir(parents=True, exist_ok=True)
        log = open(self.logs / f"{name}.log", "ab")  # noqa: SIM115 - lives as long as the process
        prefix = ["ip", "netns", "exec", host.namespace]
        if user is not None:
            prefix += ["setpriv", f"--reuid={user}", f"--regid={user}", "--init-groups", "--reset-env"]
        full_env = {"PATH": os.environ["PATH"], "LANG": "C.UTF-8", **(env or {})}
        if user is not None:
            full_env["HOME"] = pwd.getpwnam(user).pw_dir
        process = subprocess.Popen(
            [*prefix, "env", *(f"{k}={v}" for k, v in full_env.items()), *command],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=cwd or self.root,
            env=full_env,
            start_new_session=True,
        )
        self.processes[name] = process
        self.hosts[name] = host
        return process

    def crash(self, host: Host) -> int:
        """Kill -9 every process of a host, as a power cut would (the processes in it)."""
        killed = kill_everything_in(host.namespace)
        for name, process in self.processes.items():
            if self.hosts[name] == host:  # reap the host's processes (killed: no waiting)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=5)
        return killed

    def owned_dir(self, *parts: str) -> Path:
        """A directory under the run's root owned by the postgres user."""
        path = self.root.joinpath(*parts)
        path.mkdir(parents=True, exist_ok=True)
        shutil.chown(path, "postgres", "postgres")
        path.chmod(0o700)
        return path

    # etcd, Patroni, HAProxy ---------------------------------------------------------------------------------

    def start_etcd(self) -> None:
        """One etcd member (production runs three) and wait until it answers."""
        data = self.owned_dir("etcd")
        address = ETCD.front
        self.spawn(
            "etcd",
            ETCD,
            [
                "etcd",
                "--name",
                "etcd1",
                "--data-dir",
                str(data),
                "--listen-client-urls",
                f"http://{address}:2379",
                "--advertise-client-urls",
                f"http://{address}:2379",
                "--listen-peer-urls",
                f"http://{address}:2380",
                "--initial-advertise-peer-urls",
                f"http://{address}:2380",
                "--initial-cluster",
                f"etcd1=http://{address}:2380",
            ],
            user="postgres",
        )
        wait_for("etcd", lambda: get_json(f"http://{address}:2379/health").get("health") == "true")

    def patroni_config(self, node: Host) -> Path:
        """deploy/patroni.yml with this node's own values (name, addresses, directories) replaced."""
        config = yaml.safe_load((DEPLOY / "patroni.yml").read_text())
        config["name"] = node.name
        config["restapi"]["connect_address"] = f"{node.front}:{PATRONI_PORT}"
        config["etcd3"]["hosts"] = f"{ETCD.front}:2379"
        home = self.owned_dir(node.name)
        postgres = config["postgresql"]
        postgres["connect_address"] = f"{node.replication}:5432"
        postgres["data_dir"] = str(home / "data")
        postgres["pgpass"] = str(home / "pgpass")
        postgres["parameters"]["unix_socket_directories"] = str(self.owned_dir(node.name, "socket"))
        if node == REPLICA:
            config["tags"].update(nofailover=True, nosync=True)
        path = home / "patroni.yml"
        path.write_text(yaml.safe_dump(config))
        shutil.chown(path, "postgres", "postgres")
        return path

    def start_patroni(self, node: Host) -> None:
        """Patroni on ``node`` (it initialises, or clones from the leader, or rejoins and rewinds)."""
        env = {
            "PATRONI_SUPERUSER_PASSWORD": self.passwords["postgres"],
            "PATRONI_REPLICATION_PASSWORD": self.passwords["replicator"],
            "PATRONI_REWIND_PASSWORD": self.passwords["postgres"],
        }
        self.spawn(
            f"patroni-{node.name}", node, ["patroni", str(self.patroni_config(node))], env, user="postgres"
        )

    def members(self) -> list[dict[str, Any]]:
        """Patroni's view of the cluster (GET /cluster on any node that answers)."""
        for node in NODES:
            try:
                listed: list[dict[str, Any]] = get_json(f"http://{node.front}:{PATRONI_PORT}/cluster")[
                    "members"
                ]
                return listed
            except (OSError, ValueError, KeyError):
                continue
        return []

    def leader(self) -> Host | None:
        """The node holding the leader key, if any."""
        for member in self.members():
            if member["role"] == "leader" and member["state"] == "running":
                return next(node for node in NODES if node.name == member["name"])
        return None

    def wait_synchronous(self, seconds: float = 180.0) -> tuple[Host, Host]:
        """Wait until there is a leader and a streaming synchronous standby; (leader, standby)."""

        def pair() -> tuple[Host, Host] | None:
            members = self.members()
            leader = next((m for m in members if m["role"] == "leader" and m["state"] == "running"), None)
            standby = next((m for m in members if m["role"] == "sync_standby"), None)
            if leader is None or standby is None or standby["state"] not in ("streaming", "running"):
                return None
            by_name = {node.name: node for node in DATABASES}
            return by_name[leader["name"]], by_name[standby["name"]]

        return wait_for("a leader with a streaming synchronous standby", pair, seconds)

    def wait_replica(self, seconds: float = 180.0) -> None:
        """Wait until the read replica runs as a standby of the leader."""

        def streaming() -> bool:
            return any(
                m["name"] == REPLICA.name
                and m["role"] == "replica"
                and m["state"] in ("running", "streaming")
                for m in self.members()
            )

        wait_for("the read replica to stream", streaming, seconds)

    def patch_dcs(self, settings: dict[str, Any]) -> None:
        """Change the cluster's dynamic settings (what ``patronictl edit-config`` does: PATCH /config)."""
        node = self.leader() or DATABASES[0]
        request = urllib.request.Request(
            f"http://{node.front}:{PATRONI_PORT}/config",
            data=json.dumps(settings).encode(),
            method="PATCH",
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            assert response.status == 200, response.read()

    def start_haproxy(self) -> None:
        """HAProxy on deploy/haproxy.cfg as committed, the addresses from the environment."""
        env = {
            "PG1": DATABASES[0].front,
            "PG2": DATABASES[1].front,
            "PG3": REPLICA.front,
            **{f"APP{n}": app.front for n, app in enumerate(APPS, start=1)},
            "ERRORS": str(DEPLOY),
        }
        self.spawn("haproxy", BALANCER, ["haproxy", "-db", "-f", str(DEPLOY / "haproxy.cfg")], env)

    # the database and the app hosts ---------------------------------------------------------------------------

    def create_roles(self) -> None:
        """The README's one-off set-up as the superuser: the owner and service roles and the database."""
        statements = [
            f"CREATE ROLE bazaar_owner LOGIN PASSWORD '{self.passwords['bazaar_owner']}'",
            f"CREATE ROLE bazaar_service LOGIN PASSWORD '{self.passwords['bazaar_service']}'",
            "CREATE DATABASE games OWNER bazaar_owner",
        ]
        for statement in statements:
            self.psql(statement, database="postgres")
        self.psql("ALTER SCHEMA public OWNER TO bazaar_owner; REVOKE CREATE ON SCHEMA public FROM PUBLIC")

    def psql(self, sql: str, database: str = "games") -> str:
        """Run SQL as the superuser through HAProxy (the primary); its output."""
        done = subprocess.run(
            [
                "psql",
                "-X",
                "-q",
                "-t",
                "-A",
                "-v",
                "ON_ERROR_STOP=1",
                "-c",
                sql,
                self.url("postgres", database),
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, f"psql failed: {sql}: {done.stderr}"
        return done.stdout.strip()

    def write_signing_key(self) -> Path:
        """One Ed25519 key every host signs with (docs/operations.md)."""
        path = self.root / "signing-key.pem"
        key = Ed25519PrivateKey.generate()
        path.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
        path.chmod(0o600)
        return path

    def start_app(self, app: Host) -> None:
        """``python -m service serve`` on ``app`` with one worker, its DATABASE_URL HAProxy's primary."""
        data = self.root / app.name
        data.mkdir(exist_ok=True)
        env = {
            "DATABASE_URL": self.url("bazaar_service"),
            "MIGRATION_DATABASE_URL": self.url("bazaar_owner"),
            "READ_DATABASE_URL": self.url("bazaar_service", port=READS_PORT, attributes="standby"),
            "SIGNING_KEY": str(self.root / "signing-key.pem"),
            "HOST": "0.0.0.0",
            "PORT": str(APP_PORT),
            "WORKERS": "1",
            "DATA_DIR": str(data),
            "LOG_FORMAT": "json",
            "LOG_LEVEL": "info",
            "FORWARDED_ALLOW_IPS": BALANCER.front,
            "STREAMS_PER_CLIENT": "64",
            "STREAMS_PER_ADDRESS": "256",
            "BOT_THINK_SECONDS": "0.2",
            "PYTHONPATH": str(PROJECT_ROOT),
        }
        self.spawn(app.name, app, [sys.executable, "-m", "service", "serve"], env, cwd=PROJECT_ROOT)

    def wait_ready(self, app: Host, seconds: float = 180.0) -> None:
        """Wait until the app host answers /ready with 200 (it migrated and reaches the database)."""
        process = self.processes[app.name]

        def ready() -> bool:
            assert process.poll() is None, f"{app.name} exited during start-up (logs/{app.name}.log)"
            return status_of(f"http://{app.front}:{APP_PORT}/ready") == 200

        wait_for(f"{app.name} to be ready", ready, seconds)

    def wait_balanced(self, seconds: float = 60.0) -> None:
        """Wait until HAProxy routes requests to a ready app host."""
        wait_for(
            "HAProxy to route to a ready app host", lambda: status_of(f"{self.http}/ready") == 200, seconds
        )

    def log_lines(self, name: str) -> list[dict[str, Any]]:
        """The JSON log lines of a process (other lines, e.g. uvicorn's plain ones, are skipped)."""
        lines: list[dict[str, Any]] = []
        path = self.logs / f"{name}.log"
        if not path.exists():
            return lines
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("{"):
                try:
                    lines.append(json.loads(line))
                except ValueError:
                    continue
        return lines

    def stop_all(self) -> None:
        """Stop every process this run started (the namespaces' removal kills anything left)."""
        for process in self.processes.values():
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, 9)
        for process in self.processes.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)
