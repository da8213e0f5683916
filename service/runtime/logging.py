"""Structured logs with structlog: JSON lines (console format on a terminal), with request and game context.

No secret is ever logged: callers log ids, seats, versions and codes, never bodies, tokens or seeds;
``drop_secrets`` also strips any key named like a secret as a last line of defence.
"""

from __future__ import annotations

import json
import logging
import sys
import time
import traceback
from collections.abc import MutableMapping
from typing import Any

import msgspec
import structlog

SECRET_KEYS = frozenset({"token", "tokens", "authorization", "seed", "password", "body", "pick", "order"})


_SAFE_KEYS: set[str] = set()  # field names already found not to name a secret (the code logs a few dozen)
_MAX_SAFE_KEYS = 4096  # a bound, should a caller ever log fields named from data


def drop_secrets(
    _logger: Any, _method: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """Remove any field whose name says it could hold a secret."""
    if _SAFE_KEYS.issuperset(event_dict):  # the usual line: every name seen before, no loop in Python
        return event_dict
    for key in list(event_dict):
        if key.lower() in SECRET_KEYS:
            event_dict[key] = "[redacted]"
        elif len(_SAFE_KEYS) < _MAX_SAFE_KEYS:
            _SAFE_KEYS.add(key)
    return event_dict


def failure_fields(exc: BaseException) -> dict[str, Any]:
    """A fault as log fields: its type and where it was raised (file, line, function of its last frames),
    never its message or traceback text, which could quote a secret."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = [f"{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}:{frame.name}" for frame in frames[-8:]]
    return {"error": type(exc).__name__, "where": where}


_second: tuple[int, str] = (-1, "")  # the last second stamped, and its "YYYY-MM-DDTHH:MM:SS" in UTC


def utc_stamp() -> str:
    """Now in ISO 8601, UTC, to the microsecond, as structlog's TimeStamper(fmt="iso", utc=True) writes it
    ("2026-11-23T03:40:00.123456Z"; no fraction on a whole second); the date and time of day are formatted
    once a second, not once a line."""
    global _second
    now = time.time_ns() // 1000
    seconds, micros = divmod(now, 1_000_000)
    if seconds != _second[0]:
        _second = (seconds, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)))
    return f"{_second[1]}.{micros:06d}Z" if micros else f"{_second[1]}Z"


_LEVELS = {"warn": "warning", "exception": "error"}  # structlog's add_log_level: aliases by their level


def json_fields(logger: Any, method: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """What a JSON line carries besides the call's fields, in one processor (a log line per command is on the
    hot path): the level, the time, secret-named fields redacted, and an exception as its traceback."""
    event_dict["level"] = _LEVELS.get(method, method)
    event_dict["timestamp"] = utc_stamp()
    drop_secrets(logger, method, event_dict)
    if "exc_info" in event_dict:
        structlog.processors.format_exc_info(logger, method, event_dict)
    return event_dict


_ENCODER = msgspec.json.Encoder(enc_hook=repr)


def json_line(event_dict: MutableMapping[str, Any], **_options: Any) -> bytes:
    """A log line as UTF-8 JSON: by msgspec (half the cost of the standard library's json, measured), which
    stays the fallback for what msgspec cannot encode (e.g. a dict keyed by tuples)."""
    try:
        return _ENCODER.encode(event_dict)
    except (TypeError, msgspec.EncodeError):
        return json.dumps(event_dict, default=repr).encode()


def json_text(event_dict: MutableMapping[str, Any], **options: Any) -> str:
    """``json_line`` as text."""
    return json_line(event_dict, **options).decode()


class StreamBytesLogger(structlog.BytesLogger):
    """structlog's BytesLogger writing to the bytes beneath a text stream, which it keeps (a text stream
    closes its bytes when it is collected)."""

    __slots__ = ("_stream",)

    def __init__(self, stream: Any) -> None:
        """Write to ``stream.buffer``."""
        super().__init__(stream.buffer)
        self._stream = stream


def configure_logging(log_format: str = "auto", level: str = "info") -> None:
    """Configure structlog (and the standard library's root logger) once per process."""
    console = log_format == "console" or (log_format == "auto" and sys.stderr.isatty())
    # JSON lines go to stderr's bytes (structlog's BytesLogger: no text layer to encode them once more);
    # the console's lines, or JSON where stderr has no bytes beneath it, to the text stream (WriteLogger:
    # print() without its overhead)
    stderr = sys.stderr
    binary = not console and hasattr(stderr, "buffer")
    processors: list[Any] = (
        [
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            drop_secrets,
            structlog.processors.format_exc_info,
            structlog.dev.ConsoleRenderer(),
        ]
        if console
        else [json_fields, structlog.processors.JSONRenderer(serializer=json_line if binary else json_text)]
    )
    logger_factory: Any = (
        (lambda *_: StreamBytesLogger(stderr)) if binary else structlog.WriteLoggerFactory(file=stderr)
    )
    # alembic says "setup plugin ..." at INFO whenever the service reads its revisions (the /ready check's
    # head): notes for alembic's developers, not for whoever runs the service
    logging.getLogger("alembic").setLevel(logging.WARNING)
    structlog.configure(
        processors=[structlog.contextvars.merge_contextvars, *processors],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=logger_factory,
        cache_logger_on_first_use=True,
    )
