"""A JSON body is read as its schema says: a number is a JSON number, never a string that looks like one.

Litestar converts a handler's ``data`` with msgspec's lax rules (``strict=False``), which suit path and query
parameters (always text) but let ``{"decision_seconds": "10"}`` through as 10, something the OpenAPI document
(``type: integer``) and docs/api.md ("HTTP conventions") do not allow. The body is decoded once
(``api.http.middleware.GuardedRequest.json``), by msgspec's strict rules straight into the handler's ``data``
type, and the handler gets that value (Litestar's own lax conversion passes it through unchanged). A value
of the wrong JSON type is a 400 with the field's pointer, as any other malformed body.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar.exceptions import ValidationException
from litestar.handlers import HTTPRouteHandler

ANY_JSON: msgspec.json.Decoder[Any] = msgspec.json.Decoder()  # for a type msgspec cannot decode on its own
_DECODERS: dict[Any, msgspec.json.Decoder[Any]] = {}  # by body type: a few, built once each
_HANDLER_DECODERS: dict[HTTPRouteHandler, msgspec.json.Decoder[Any]] = {}  # by handler, looked up once each


def strict_decoder(handler: HTTPRouteHandler) -> msgspec.json.Decoder[Any]:
    """The decoder of the handler's ``data``: strict, into its type; any JSON without a body or for a type
    msgspec cannot decode on its own."""
    decoder = _HANDLER_DECODERS.get(handler)
    if decoder is None:
        decoder = _HANDLER_DECODERS[handler] = _decoder_of(handler)
    return decoder


def _decoder_of(handler: HTTPRouteHandler) -> msgspec.json.Decoder[Any]:
    """``strict_decoder``'s answer, built (or shared by body type)."""
    data = handler.parsed_fn_signature.parameters.get("data")
    if data is None or getattr(type(data.annotation), "__hash__", None) is None:
        return ANY_JSON
    if data.annotation not in _DECODERS:
        try:
            _DECODERS[data.annotation] = msgspec.json.Decoder(data.annotation, strict=True)
        except (TypeError, ValueError):
            _DECODERS[data.annotation] = ANY_JSON
    return _DECODERS[data.annotation]


def wrong_type(invalid: msgspec.ValidationError) -> ValidationException:
    """The 400 of a body holding a value of another JSON type than its schema's (``"10"`` for an integer)
    or breaking a constraint; msgspec's message names the field."""
    return ValidationException(
        detail="Validation failed", extra=[{"message": str(invalid), "key": "", "source": "body"}]
    )
