"""A JSON body is read as its schema says: a number is a JSON number, never a string that looks like one.

Litestar converts a handler's ``data`` with msgspec's lax rules (``strict=False``), which suit path and query
parameters (always text) but let ``{"decision_seconds": "10"}`` through as 10, something the OpenAPI document
(``type: integer``) and docs/api.md ("HTTP conventions") do not allow. The body is decoded once
(``api.http.middleware.GuardedRequest.json``) and the decoded value converted here with msgspec's strict
rules into the handler's ``data`` type; the handler gets that converted value (Litestar's own lax conversion
passes it through unchanged). A value of the wrong JSON type is a 400 with the field's pointer, as any
other malformed body.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar.exceptions import ValidationException
from litestar.handlers import HTTPRouteHandler

_NOT_STRICT = object()  # a handler without a body, or whose body type msgspec cannot convert on its own
_DATA_TYPES: dict[HTTPRouteHandler, Any] = {}  # by handler: its ``data`` type, looked up once each


def strict_data_type(handler: HTTPRouteHandler) -> Any:
    """The type the handler's ``data`` is converted to strictly; ``_NOT_STRICT`` without a body or for a
    type msgspec cannot convert on its own."""
    known = _DATA_TYPES.get(handler)
    if known is not None:
        return known
    data = handler.parsed_fn_signature.parameters.get("data")
    annotation: Any = _NOT_STRICT
    if data is not None and getattr(type(data.annotation), "__hash__", None) is not None:
        try:
            msgspec.json.Decoder(data.annotation, strict=True)  # raises for a type msgspec cannot handle
            annotation = data.annotation
        except (TypeError, ValueError):
            pass
    _DATA_TYPES[handler] = annotation
    return annotation


def as_declared(value: Any, handler: HTTPRouteHandler) -> Any:
    """The decoded JSON ``value`` as the handler's ``data`` type, by msgspec's strict rules: 400 when it
    holds a value of another JSON type than its schema's (``"10"`` for an integer) or breaks a constraint;
    ``value`` itself when the handler's type is not one msgspec converts."""
    annotation = strict_data_type(handler)
    if annotation is _NOT_STRICT:
        return value
    try:
        return msgspec.convert(value, annotation, strict=True, str_keys=True)
    except msgspec.ValidationError as invalid:
        raise ValidationException(
            detail="Validation failed", extra=[{"message": str(invalid), "key": "", "source": "body"}]
        ) from None
