"""Browser sessions: signing in sets an HttpOnly session cookie that carries the account token,
so the pages' scripts never hold it; CSRF protection for every state-changing request a cookie could
authenticate; signing out clears the cookie.

- ``POST /session`` (a form: ``token``) checks the account token and sets ``session``: HttpOnly,
  SameSite=Lax, Secure when the request came over HTTPS, for 30 days; ``POST /session/end`` clears it.
  Both answer 303 to the home page.
- The API takes the session cookie as the account's token when a request has no ``Authorization``
  header (``api.http.auth.bearer_token``): the pages call the API as the signed-in account without ever reading
  the token. ``Authorization`` always wins, so a seat token sent by a page acts as that seat.
- CSRF: Litestar's signed double-submit cookie (``csrftoken``, readable by the pages' scripts and set by the
  pages only, HMAC-signed with a secret derived from the service's signing key, so every process checks every
  other's). A form post sends it as ``_csrf_token``, a script as the ``X-CSRFToken`` header. It is required on
  every unsafe request to the pages (``/session`` too, so no other site can sign a browser in to its own
  account) and on every unsafe API request that carries the session cookie and no ``Authorization`` header; an
  API request without the cookie carries no ambient authority and is not asked for one (403 ``csrf_failed``
  otherwise).
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, post
from litestar.config.csrf import CSRFConfig
from litestar.datastructures import Cookie
from litestar.di import NamedDependency
from litestar.enums import RequestEncodingType, ScopeType
from litestar.exceptions import PermissionDeniedException
from litestar.middleware import DefineMiddleware
from litestar.middleware.csrf import CSRFMiddleware
from litestar.params import Body
from litestar.response import Redirect
from litestar.types import Receive, Scope, Send

from api.http.auth import SESSION_COOKIE, session_token
from api.http.middleware import answer_problem
from api.http.problems import problem
from service.accounts.accounts import AccountService

SESSION_SECONDS = 30 * 24 * 3600
CSRF_COOKIE = "csrftoken"
API_PREFIX = "/v1/"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# A handler opt: its page's scripts read the csrftoken cookie, so a safe request to it sets one.
SETS_CSRF_COOKIE = "sets_csrf_cookie"


class SignIn(msgspec.Struct, frozen=True, kw_only=True):
    """The sign-in form: the account token (its ``_csrf_token`` field is the middleware's, ignored here)."""

    token: str


def session_cookie(request: Request[Any, Any, Any], token: str | None) -> Cookie:
    """The session cookie carrying ``token`` (None: one that clears it), Secure when over HTTPS."""
    return Cookie(
        key=SESSION_COOKIE,
        value=token or "",
        path="/",
        max_age=SESSION_SECONDS if token else 0,
        httponly=True,
        secure=request.url.scheme == "https",
        samesite="lax",
    )


class SessionController(Controller):
    """Sign a browser in (set the session cookie) and out (clear it); form posts, CSRF-checked."""

    path = "/session"
    include_in_schema = False  # page plumbing, like the pages; the API itself takes Authorization

    @post("/", status_code=303)
    async def sign_in(
        self,
        request: Request[Any, Any, Any],
        account_service: NamedDependency[AccountService],
        data: Annotated[SignIn, Body(media_type=RequestEncodingType.URL_ENCODED)],
    ) -> Redirect:
        """Check the account token (401 if it opens no account) and keep it in the session cookie."""
        token = data.token.strip()
        await account_service.require(token or None)
        return Redirect("/", status_code=303, cookies=[session_cookie(request, token)])

    @post("/end", status_code=303)
    async def sign_out(self, request: Request[Any, Any, Any]) -> Redirect:
        """Clear the session cookie (the account token itself stays valid)."""
        return Redirect("/", status_code=303, cookies=[session_cookie(request, None)])


class SessionCSRFMiddleware(CSRFMiddleware):
    """Litestar's CSRF check where a cookie could act for the browser: every unsafe request outside the API
    (the session form), and unsafe API requests that carry the session cookie without an ``Authorization``
    header; a refusal is a 403 problem with code ``csrf_failed``. Of the safe requests only the pages
    (handlers with ``opt={SETS_CSRF_COOKIE: True}``) get the csrftoken cookie their scripts send back:
    probes, metrics, the API documentation, static files and the API set no cookie."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check (or skip) as above."""
        if scope["type"] == ScopeType.HTTP and not self._applies(scope):
            await self.app(scope, receive, send)
            return
        try:
            await super().__call__(scope, receive, send)
        except PermissionDeniedException:
            refused = problem(
                403,
                "csrf_failed",
                "this request needs the page's CSRF token (the X-CSRFToken header or the _csrf_token "
                "form field, matching the csrftoken cookie); reload the page and try again",
            )
            await answer_problem(scope, receive, send, refused)

    @classmethod
    def _applies(cls, scope: Scope) -> bool:
        """Whether Litestar's middleware handles this request: a page (safe: it sets the cookie), an unsafe
        request outside the API, or an unsafe API request the session cookie would authenticate."""
        if scope.get("method") in SAFE_METHODS:
            return bool(scope["route_handler"].opt.get(SETS_CSRF_COOKIE))
        return not scope["path"].startswith(API_PREFIX) or cls._cookie_acts(scope)

    @staticmethod
    def _cookie_acts(scope: Scope) -> bool:
        """Whether an unsafe API request would be authenticated by the session cookie."""
        headers = dict(scope.get("headers", []))
        if b"authorization" in headers:
            return False
        return session_token(scope) is not None


def csrf_middleware(secret: str) -> DefineMiddleware:
    """The CSRF middleware with the service's derived secret."""
    config = CSRFConfig(secret=secret, cookie_name=CSRF_COOKIE, cookie_samesite="lax")
    return DefineMiddleware(SessionCSRFMiddleware, config=config)
