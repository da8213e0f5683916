"""Process settings read from the environment once at start-up (documented in the README)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Settings:
    """Everything configurable, with the defaults `make run` uses."""

    database_url: str | None
    migration_database_url: str | None  # the tables' owner, for migrations (default: database_url)
    signing_key: (
        str | None
    )  # the Ed25519 private key (PEM, or a path to one); default: DATA_DIR/signing-key.pem
    host: str
    port: int
    workers: int
    http_implementation: str  # uvicorn's HTTP protocol and loop: "httptools" (+ uvloop) or "h11" (+ asyncio)
    log_format: str  # "json" or "console"; "auto" picks console on a terminal
    log_level: str
    data_dir: Path
    pool_min: int
    pool_max: int
    statement_timeout_ms: int
    idle_in_transaction_timeout_ms: int
    pool_acquire_timeout_ms: int  # also the connect timeout: past it a request answers 503
    max_body_bytes: int
    rate_limit_per_minute: int  # 0 turns the per-client rate limit off
    streams_per_client: int  # concurrent live streams per client and process; more get 429
    stream_keepalive_seconds: float  # a comment line on a quiet live stream this often
    stream_poll_seconds: float  # live streams re-read this often even without a change signal
    request_body_timeout_seconds: float = 10.0  # a request body not arrived by then gets 408
    account_signups_per_hour: int = 100  # per client address and process; 0 turns the limit off
    cors_origins: tuple[str, ...] = ()  # origins whose pages may call the API (CORS); empty: CORS off
    bot_think_seconds: float = 1.0  # a server bot's longest decision (greedy, strong); 0: no time cap
    bot_iterations: int = 60  # the strong bot's search iterations per decision
    streams_per_address: int = 32  # concurrent live streams per client address and process, whoever's
    bot_games_per_account: int = 3  # running games of server bots only per account; 0: any number
    invitations_per_inviter: int = 20  # open invitations one account may have sent; 0: any number
    invitations_per_invitee: int = 10  # open invitations one account may have received; 0: any number
    shutdown_grace_seconds: int = 10  # on SIGTERM/SIGINT, requests (live streams) still open then are cut
    forwarded_allow_ips: str = "127.0.0.1"  # proxies whose X-Forwarded-For/-Proto are believed (uvicorn's)
    read_database_url: str | None = None  # hot standbys for reads (docs/operations.md); unset: the primary
    read_replica_wait_ms: int = 200  # longest wait for a standby to replay a commit, then the primary

    @staticmethod
    def from_env() -> Settings:
        """Read the settings from environment variables."""
        env = os.environ
        return Settings(
            database_url=env.get("DATABASE_URL") or None,
            migration_database_url=env.get("MIGRATION_DATABASE_URL") or None,
            signing_key=env.get("SIGNING_KEY") or None,
            host=env.get("HOST", "127.0.0.1"),
            port=int(env.get("PORT", "8000")),
            workers=int(env.get("WORKERS", "1")),
            http_implementation=env.get("HTTP_IMPLEMENTATION", "httptools"),
            log_format=env.get("LOG_FORMAT", "auto"),
            log_level=env.get("LOG_LEVEL", "info"),
            data_dir=Path(env.get("DATA_DIR", str(PROJECT_ROOT / ".data"))),
            pool_min=int(env.get("DB_POOL_MIN", "2")),
            pool_max=int(env.get("DB_POOL_MAX", "20")),
            statement_timeout_ms=int(env.get("DB_STATEMENT_TIMEOUT_MS", "5000")),
            idle_in_transaction_timeout_ms=int(env.get("DB_IDLE_IN_TRANSACTION_TIMEOUT_MS", "10000")),
            pool_acquire_timeout_ms=int(env.get("DB_POOL_ACQUIRE_TIMEOUT_MS", "5000")),
            max_body_bytes=int(env.get("MAX_BODY_BYTES", "65536")),
            rate_limit_per_minute=int(env.get("RATE_LIMIT_PER_MINUTE", "0")),
            streams_per_client=int(env.get("STREAMS_PER_CLIENT", "8")),
            streams_per_address=int(env.get("STREAMS_PER_ADDRESS", "32")),
            stream_keepalive_seconds=float(env.get("STREAM_KEEPALIVE_SECONDS", "15")),
            stream_poll_seconds=float(env.get("STREAM_POLL_SECONDS", "5")),
            request_body_timeout_seconds=float(env.get("REQUEST_BODY_TIMEOUT_SECONDS", "10")),
            account_signups_per_hour=int(env.get("ACCOUNT_SIGNUPS_PER_HOUR", "100")),
            shutdown_grace_seconds=int(env.get("SHUTDOWN_GRACE_SECONDS", "10")),
            forwarded_allow_ips=env.get("FORWARDED_ALLOW_IPS", "127.0.0.1"),
            read_database_url=env.get("READ_DATABASE_URL") or None,
            read_replica_wait_ms=int(env.get("READ_REPLICA_WAIT_MS", "200")),
            bot_think_seconds=float(env.get("BOT_THINK_SECONDS", "1.0")),
            bot_iterations=int(env.get("BOT_ITERATIONS", "60")),
            bot_games_per_account=int(env.get("BOT_GAMES_PER_ACCOUNT", "3")),
            invitations_per_inviter=int(env.get("INVITATIONS_PER_INVITER", "20")),
            invitations_per_invitee=int(env.get("INVITATIONS_PER_INVITEE", "10")),
            cors_origins=tuple(
                origin.strip() for origin in env.get("CORS_ORIGINS", "").split(",") if origin.strip()
            ),
        )
