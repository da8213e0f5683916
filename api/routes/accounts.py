"""Accounts endpoints: sign up (rate-limited per client address), the caller's account, token rotation and
revocation."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, Router, delete, get, post
from litestar.di import NamedDependency
from litestar.middleware.rate_limit import RateLimitConfig
from litestar.params import JSONBody

from api.http.auth import bearer_token
from api.http.middleware import (
    CHECKS_OWN_TEXT,
    RATE_LIMIT_EXEMPT,
    AnsweringRateLimitMiddleware,
    client_address,
)
from service.accounts.accounts import AccountCreated, AccountIn, AccountService, AccountToken, Me
from service.runtime import errors


class SignupRateLimitMiddleware(AnsweringRateLimitMiddleware):
    """Litestar's rate limiter on sign-up alone, counted by client address (its own keys in the store)."""


def signup_router(per_hour: int) -> Router:
    """``POST /v1/accounts``, at most ``per_hour`` sign-ups per client address per hour and process."""
    middleware: list[Any] = []
    if per_hour > 0:
        middleware.append(
            RateLimitConfig(
                rate_limit=("hour", per_hour),
                exclude=RATE_LIMIT_EXEMPT,
                identifier_for_request=client_address,
                middleware_class=SignupRateLimitMiddleware,
            ).middleware
        )
    return Router(path="/v1", route_handlers=[SignupController], middleware=middleware)


class SignupController(Controller):
    """Sign up."""

    path = "/accounts"
    tags = ["accounts"]

    # the account name rules name each refused character themselves (422 name_invisible_character)
    @post(
        "/",
        operation_id="createAccount",
        summary="Create an account",
        status_code=201,
        opt={CHECKS_OWN_TEXT: True},
    )
    async def create(
        self, account_service: NamedDependency[AccountService], data: JSONBody[AccountIn]
    ) -> Response[AccountCreated]:
        """Names are unique after Unicode NFKC and case-folding: 1-40 characters, letters, digits, spaces
        and ``._-`` (no control, format or invisible characters, no leading, trailing or double spaces);
        a broken rule is a 422 whose ``code`` names it (``name_length``, ``name_characters``,
        ``name_invisible_character``, ``name_spaces``), a taken name 409 ``name_taken``. The token is shown
        only here; only its SHA-256 is stored. Rate-limited per client address (429)."""
        account, token = await account_service.create(data.name, data.kind)
        return Response(
            AccountCreated(name=account.name, kind=account.kind, token=token),
            status_code=201,
            headers={"Location": "/v1/me"},
        )


class AccountsController(Controller):
    """The caller's account and its token."""

    path = "/v1/me"
    tags = ["accounts"]

    @get("/", operation_id="getMe", summary="The caller's account")
    async def me(
        self, request: Request[Any, Any, Any], account_service: NamedDependency[AccountService]
    ) -> Me:
        """Needs ``Authorization: Bearer <account token>`` (401 otherwise)."""
        account = await account_service.require(bearer_token(request))
        return Me(name=account.name, kind=account.kind, created_at=account.created_at)

    @post("/token", operation_id="rotateToken", summary="Replace the account's token", status_code=200)
    async def rotate(
        self, request: Request[Any, Any, Any], account_service: NamedDependency[AccountService]
    ) -> AccountToken:
        """A new token, shown only here; the one used for this request stops working at once."""
        token = bearer_token(request)
        if token is None:
            raise errors.Unauthorized(
                "token_required", 'this needs an "Authorization: Bearer <account token>" header'
            )
        account, fresh = await account_service.rotate(token)
        return AccountToken(name=account.name, token=fresh)

    @delete("/token", operation_id="revokeToken", summary="Revoke the account's token", status_code=204)
    async def revoke(
        self, request: Request[Any, Any, Any], account_service: NamedDependency[AccountService]
    ) -> None:
        """The token stops working at once and the account has none (a new sign-up is a new account)."""
        token = bearer_token(request)
        if token is None:
            raise errors.Unauthorized(
                "token_required", 'this needs an "Authorization: Bearer <account token>" header'
            )
        await account_service.revoke(token)
