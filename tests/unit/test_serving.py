"""The server's HTTP implementation is chosen by name (service/serving.py); the head deadline of each is
tested end to end in tests/e2e/test_request_timeouts.py."""

from __future__ import annotations

import pytest

from service.serving import run_uvicorn


def test_an_unknown_http_implementation_refuses_to_start() -> None:
    with pytest.raises(SystemExit, match="HTTP_IMPLEMENTATION='h2': choose one of httptools, h11"):
        run_uvicorn("api.app:create_app", "127.0.0.1", 0, 1, "h2")
