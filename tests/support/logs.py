"""Capturing a module's log lines in a test, even after its logger was cached."""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager
from types import ModuleType
from typing import Any

import structlog
from structlog.testing import capture_logs


@contextmanager
def logs_of(*modules: ModuleType) -> Iterator[list[MutableMapping[str, Any]]]:
    """structlog's capture_logs for the modules' ``log``: a module's logger is cached on first use
    (cache_logger_on_first_use) with the processor list of that moment, and every app a test starts calls
    configure_logging, which installs a new list, so the capture (which edits the current list) would miss a
    module that logged before; each module gets a fresh logger for the capture and its own back afterwards."""
    saved = {module: module.log for module in modules}
    with capture_logs() as logs:
        try:
            for module in modules:
                module.log = structlog.get_logger()
            yield logs
        finally:
            for module, log in saved.items():
                module.log = log
