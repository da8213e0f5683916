"""The server's HTTP implementation is chosen by name (service/serving.py); the head deadline of each is
tested end to end in tests/e2e/test_request_timeouts.py."""

from __future__ import annotations

import dataclasses

import pytest

from service.serving import run_uvicorn
from service.settings import Settings


def test_an_unknown_http_implementation_refuses_to_start() -> None:
    with pytest.raises(SystemExit, match="HTTP_IMPLEMENTATION='h2': choose one of httptools, h11"):
        run_uvicorn("api.app:create_app", dataclasses.replace(Settings.from_env(), http_implementation="h2"))
