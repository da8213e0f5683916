"""Shared fixtures of the service tests: the services on the in-memory twins (tests/support/twins.py)."""

from __future__ import annotations

import pytest

from tests.support.twins import World, twins


@pytest.fixture
def world() -> World:
    """The lobby (2 open invitations sent, 1 received per account), the games and the accounts, on twins."""
    return twins()
