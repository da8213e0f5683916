"""The account's notification stream (``GET /v1/me/stream``): Server-Sent Events of what concerns the
account across games (service/readmodels/notifications.py), so a bot learns of its games without polling."""

from __future__ import annotations

import weakref
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, get
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.params import HeaderParameter
from litestar.response import ServerSentEvent, ServerSentEventMessage

from api.http.auth import bearer_token
from api.http.formats import EVENT_STREAM, OFFERS
from api.http.middleware import client_address, client_identity
from api.routes.streams import StreamLimiter, released_after, sse_stream, while_current
from service.accounts.accounts import AccountService
from service.readmodels.notifications import Message, Notifications, resume_position


def notice_message(message: Message) -> ServerSentEventMessage:
    """A stream message as SSE: ``snapshot`` and each notice a named event (the notice's ``type``), with
    ``id:`` the point to resume after; a keep-alive a comment line carrying the position reached when it is
    past the last id given."""
    if message.kind == "keepalive":
        return ServerSentEventMessage(data=None, comment="keep-alive", id=message.id)
    data = msgspec.json.encode(message.body).decode()
    event = "snapshot" if message.kind == "snapshot" else message.body.type
    return ServerSentEventMessage(data=data, event=event, id=message.id)


class MeStreamController(Controller):
    """The caller's account's notifications."""

    path = "/v1/me"
    tags = ["accounts"]

    @get(
        "/stream",
        operation_id="streamMe",
        summary="Follow what concerns your account across games (Server-Sent Events)",
        media_type=EVENT_STREAM,
        opt={OFFERS: (EVENT_STREAM,)},
    )
    async def stream(
        self,
        request: Request[Any, Any, Any],
        state: State,
        account_service: NamedDependency[AccountService],
        notifications: NamedDependency[Notifications],
        last_event_id: Annotated[str | None, HeaderParameter(name="Last-Event-ID", max_length=60)] = None,
    ) -> ServerSentEvent:
        """Needs ``Authorization: Bearer <account token>`` (401 otherwise). First a ``snapshot`` event
        ``{account, games: [{game_id, game, seat, version, your_turn, tournament}], invitations}``: the
        account's active games and open invitations. Then one event per notice ``{type, game_id, game,
        seat, version, tournament?, result?, invited_by?, rated?}``, named by its ``type``: ``seated`` (a
        game of one of your seats started), ``round_seated`` (a tournament game of yours was seated),
        ``your_turn`` (a decision of your seat is due at the game's ``version``; told again when the game
        moves while it still is), ``game_finished`` (with ``result``), ``invited`` (a seat reserved for
        you in a game waiting for players), ``tournament_invited`` (a tournament registering players
        invited you; no ``game_id``, ``seat`` or ``version``). Each ``id:`` is greater than every one
        before it (``<tx>-<position>``: a position in the global feed, ``.<rank>`` added for a game
        notice): reconnect with ``Last-Event-ID`` to be told each notice after it exactly once (keep-alive
        comments carry the position reached when it is past the last id). Invitations carry no
        ``id:`` (the snapshot lists the open ones). Counts against the per-client stream cap (429). The stream
        closes within ``STREAM_POLL_SECONDS`` once the token is replaced or revoked
        (``POST``/``DELETE /v1/me/token``)."""
        token = bearer_token(request)
        account = await account_service.require(token)
        assert token is not None
        after = resume_position(last_event_id)
        await notifications.refuse_unreached(after)
        limiter: StreamLimiter = state.streams
        slot = limiter.acquire(client_identity(request), client_address(request))
        messages = notifications.follow(account, after, limiter.keepalive_seconds, limiter.poll_seconds)
        messages = while_current(messages, account_service, token, limiter.poll_seconds)
        content = sse_stream(messages, slot, notice_message)
        weakref.finalize(content, slot.release)  # as for the game stream: a response that never starts
        return ServerSentEvent(content, background=released_after(slot))
