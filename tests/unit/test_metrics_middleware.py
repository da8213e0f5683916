"""The Prometheus middleware the app uses (api/http/metrics.py) records what Litestar's own records: the same
metrics, label names and label values, and the same counts."""

from __future__ import annotations

import re

from litestar import Litestar, get
from litestar.exceptions import InternalServerException
from litestar.params import FromPath
from litestar.plugins.prometheus import PrometheusConfig, PrometheusMiddleware
from litestar.testing import TestClient
from prometheus_client import REGISTRY, generate_latest

from api.http.metrics import LabelledOncePrometheusMiddleware


@get("/items/{number:int}")
async def item(number: FromPath[int]) -> dict[str, int]:
    return {"number": number}


@get("/broken")
async def broken() -> None:
    raise InternalServerException()


def counted(prefix: str, middleware_class: type[PrometheusMiddleware]) -> list[str]:
    """The series (without timings) recorded for the same requests by ``middleware_class``, named as
    Litestar names them under ``prefix`` (then renamed ``litestar``)."""
    config = PrometheusConfig(app_name="t", prefix=prefix, group_path=True, middleware_class=middleware_class)
    app = Litestar([item, broken], middleware=[config.middleware])
    with TestClient(app) as client:
        for path in ("/items/1", "/items/2", "/broken", "/items/x"):
            client.get(path)
        client.head("/items/3")
    series = re.compile(rf"^{prefix}_\w+(_total|_count|_in_progress)\{{")
    return sorted(
        line.replace(prefix, "renamed", 1)
        for line in generate_latest(REGISTRY).decode().splitlines()
        if series.match(line)
    )


def test_the_app_middleware_records_the_series_litestar_records() -> None:
    ours = counted("ours", LabelledOncePrometheusMiddleware)
    assert ours == counted("litestars", PrometheusMiddleware)
    labels = 'app_name="t",method="GET",path="/items/{number}",status_code="200"'
    assert f"renamed_requests_total{{{labels}}} 2.0" in ours
    assert f"renamed_request_duration_seconds_count{{{labels}}} 2.0" in ours
    assert f"renamed_requests_in_progress{{{labels}}} 0.0" in ours
    assert (
        'renamed_requests_error_total{app_name="t",method="GET",path="/broken",status_code="500"} 1.0' in ours
    )
