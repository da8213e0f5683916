"""A request id the server makes is what ``uuid.uuid4().hex`` would make (api/http/middleware.py)."""

from __future__ import annotations

import uuid

from api.http.middleware import new_request_id


def test_a_new_request_id_is_a_random_version_4_uuid_in_hex() -> None:
    ids = [new_request_id() for _ in range(200)]
    for request_id in ids:
        parsed = uuid.UUID(hex=request_id)
        assert parsed.hex == request_id
        assert parsed.version == 4
        assert parsed.variant == uuid.RFC_4122
    assert len(set(ids)) == len(ids)
