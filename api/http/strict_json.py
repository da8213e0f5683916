"""A JSON body is read as its schema says: a number is a JSON number, never a string that looks like one.

Litestar converts a handler's ``data`` with msgspec's lax rules (``strict=False``), which suit path and query
parameters (always text) but let ``{"decision_seconds": "10"}`` through as 10, something the OpenAPI document
(``type: integer``) and docs/api.md ("HTTP conventions") do not allow. Before the handler runs, the body is
decoded once more with msgspec's strict rules against the same type; a value of the wrong JSON type is a 400
with the field's pointer, as any other malformed body.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request
from litestar.exceptions import ValidationException
from litestar.handlers import HTTPRouteHandler

_DECODERS: dict[Any, msgspec.json.Decoder[Any] | None] = {}  # by body type: a few, built once each


def _decoder(handler: HTTPRouteHandler) -> msgspec.json.Decoder[Any] | None:
    """The strict decoder of the handler's ``data`` type; None without a body or for a type msgspec cannot
    decode on its own."""
    data = handler.parsed_fn_signature.parameters.get("data")
    if data is None or getattr(type(data.annotation), "__hash__", None) is None:
        return None
    if data.annotation not in _DECODERS:
        try:
            _DECODERS[data.annotation] = msgspec.json.Decoder(data.annotation, strict=True)
        except (TypeError, ValueError):
            _DECODERS[data.annotation] = None
    return _DECODERS[data.annotation]


async def refuse_lax_json(request: Request[Any, Any, Any]) -> None:
    """400 when the JSON body holds a value of another JSON type than its schema's (``"10"`` for an integer).
    A body that is not JSON at all, or none, is left to Litestar's own refusal."""
    decoder = _decoder(request.route_handler)
    if decoder is None:
        return
    body = await request.body()
    if not body.strip():
        return
    try:
        decoder.decode(body)
    except msgspec.ValidationError as invalid:
        raise ValidationException(
            detail="Validation failed", extra=[{"message": str(invalid), "key": "", "source": "body"}]
        ) from None
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):  # not JSON, not UTF-8, too deep
        return  # Litestar's own reading refuses it as before
