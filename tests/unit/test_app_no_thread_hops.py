"""No request waits on a thread: every handler and hook of the app is a coroutine, or a plain function the
app calls on the event loop (``sync_to_thread=False``). Litestar runs any other plain function in its thread
pool, a hand-off to another thread and back on every request (it cost the command endpoint two)."""

from __future__ import annotations

import inspect

from litestar.handlers import HTTPRouteHandler

from api.app import create_app
from service.runtime.settings import Settings


def route_handlers() -> list[HTTPRouteHandler]:
    """Every HTTP route handler of the app as served."""
    app = create_app(Settings.from_env())
    return [
        handler
        for route in app.routes
        for handler in getattr(route, "route_handlers", ())
        if isinstance(handler, HTTPRouteHandler)
    ]


def test_no_route_handler_runs_in_the_thread_pool() -> None:
    handlers = route_handlers()
    assert len(handlers) > 50  # the whole API, pages and system routes
    threaded = [h.handler_name for h in handlers if h.has_sync_callable and h.sync_to_thread is not False]
    assert threaded == []


def test_every_before_and_after_request_hook_is_a_coroutine() -> None:
    # Litestar keeps a plain function hook wrapped in an AsyncCallable, which is no coroutine function
    hooks = {
        getattr(layer, name)
        for handler in route_handlers()
        for layer in handler.ownership_layers
        for name in ("before_request", "after_request", "after_response")
        if getattr(layer, name, None) is not None
    }
    assert len(hooks) >= 2  # content negotiation: refuse_unacceptable before, vary_on_accept after
    assert [hook for hook in hooks if not inspect.iscoroutinefunction(hook)] == []
