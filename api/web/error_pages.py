"""HTML error pages for people: a browser that asks for a page that is missing (or that fails)
gets a page of the site saying so, with a way back; API clients keep getting problem+json.

Every exception handler the problem details plugin installs is wrapped: the problem is built as before,
and answered as HTML only when the request is for a page (not under ``/v1/``) and its ``Accept`` prefers
``text/html`` to JSON (a browser's navigation does; ``curl``'s ``*/*`` and API clients do not).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import structlog
from litestar import Request, Response
from litestar.config.app import AppConfig
from litestar.plugins import InitPlugin
from litestar.response import Template

from api.http.formats import JSON, acceptable
from api.http.problems import kind_of

HTML = "text/html"
PROBLEM_JSON = "application/problem+json"
API_PREFIX = "/v1/"

Handler = Callable[[Request[Any, Any, Any], Exception], Response[Any]]


def wants_html(request: Request[Any, Any, Any]) -> bool:
    """A person's browser asking for a page: not the API, and ``Accept`` prefers HTML to JSON."""
    if request.url.path.startswith(API_PREFIX):
        return False
    accept = request.headers.get("accept", "")
    return acceptable(accept, (PROBLEM_JSON, JSON, HTML)) == HTML


def error_page(request: Request[Any, Any, Any], problem: Response[Any]) -> Response[Any]:
    """The problem answer as the site's error page (same status and headers, the problem's words)."""
    body = problem.content if isinstance(problem.content, dict) else {}
    status = problem.status_code or 500
    kind = kind_of(status)
    headers = {k: v for k, v in problem.headers.items() if k.lower() != "content-type"}
    return Template(
        template_name="error.html.j2",
        context={
            "status": status,
            "title": body.get("title") or kind.title,
            "detail": body.get("detail") or "",
            "code": body.get("code") or kind.kind,
            "kind": kind.kind,
            "request_id": structlog.contextvars.get_contextvars().get("request_id"),
        },
        status_code=status,
        headers=headers,
        media_type=HTML,
    )


def html_for_browsers(handler: Handler) -> Handler:
    """``handler``, answering a browser's page request with the HTML error page instead of the problem."""

    def answer(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
        """The problem, as HTML when a person's browser asked for a page."""
        response = handler(request, exc)
        return error_page(request, response) if wants_html(request) else response

    return answer


class HtmlErrorPages(InitPlugin):
    """Wraps every exception handler installed so far (put it after the problem details plugin)."""

    def on_app_init(self, app_config: AppConfig) -> AppConfig:
        """Wrap each handler of the app's exception handler map."""
        app_config.exception_handlers = {
            key: html_for_browsers(handler) for key, handler in app_config.exception_handlers.items()
        }
        return app_config
