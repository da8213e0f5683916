"""While the app serves, what it built to start is out of the garbage collector's full passes (api/app.py,
``frozen_at_startup``), and given back to the collector when it stops."""

from __future__ import annotations

import gc

import pytest

from tests.support.accounts import unlimited_client

pytestmark = pytest.mark.db


async def test_the_objects_built_at_startup_are_frozen_while_serving_and_released_after(
    database_url: str,
) -> None:
    gc.unfreeze()
    async with unlimited_client(database_url) as client:
        assert (await client.get("/health")).status_code == 200
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0
