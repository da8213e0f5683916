"""Error answers for people and programs: a fault is a problem+json 500 that says nothing of it,
logged by where it was raised; a browser asking for a page gets the site's HTML error page instead; the API
always answers problem+json."""

from __future__ import annotations

from litestar import Litestar, get
from litestar.testing import TestClient
from structlog.testing import capture_logs

from api.http.problems import problem_details_plugin
from api.web.error_pages import HtmlErrorPages
from api.web.pages import template_config

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


@get("/broken-page")
async def broken_page() -> str:
    """A page handler with a fault."""
    raise RuntimeError("secret-internal-detail")


@get("/v1/broken")
async def broken_api() -> str:
    """An API handler with a fault."""
    raise RuntimeError("secret-internal-detail")


def app() -> Litestar:
    """The service's error handling (the same plugins, in the same order) around the two handlers."""
    return Litestar(
        [broken_page, broken_api],
        plugins=[problem_details_plugin(), HtmlErrorPages()],
        template_config=template_config(),
        debug=False,
        logging_config=None,
    )


def test_a_fault_is_a_problem_that_says_nothing_of_it() -> None:
    with TestClient(app()) as client, capture_logs() as logged:
        for path in ("/broken-page", "/v1/broken"):
            answer = client.get(path)
            assert answer.status_code == 500
            assert answer.headers["content-type"] == "application/problem+json"
            body = answer.json()
            assert body["code"] == "internal_error" and body["type"] == "/problems/internal_error"
            assert "secret-internal-detail" not in answer.text
    faults = [entry for entry in logged if entry["event"] == "internal_error"]
    assert len(faults) == 2 and faults[0]["error"] == "RuntimeError", "logged, with where it was raised"
    assert any("broken_page" in frame for frame in faults[0]["where"])
    assert "secret-internal-detail" not in repr(logged), "never the exception's message"


def test_a_browser_gets_the_html_error_page_for_pages_only() -> None:
    with TestClient(app()) as client:
        page = client.get("/broken-page", headers={"Accept": BROWSER})
        assert page.status_code == 500 and page.headers["content-type"].startswith("text/html")
        assert "<h1>Internal error" in page.text and 'href="/"' in page.text
        assert "secret-internal-detail" not in page.text
        missing = client.get("/nowhere", headers={"Accept": BROWSER})
        assert missing.status_code == 404 and "<h1>Not found" in missing.text
        api = client.get("/v1/broken", headers={"Accept": BROWSER})
        assert api.status_code == 500 and api.headers["content-type"] == "application/problem+json"
        for accept in ("*/*", "application/json", "application/problem+json"):
            assert client.get("/nowhere", headers={"Accept": accept}).headers["content-type"] == (
                "application/problem+json"
            )
