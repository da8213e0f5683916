"""What a process makes of the leaders' election and announcements (service/readmodels/repository/
leadership.py), without a database: who projects, and what a NOTIFY from another process does."""

from __future__ import annotations

import asyncio

from eventstore import FeedPosition
from service.readmodels.repository.leadership import MOVED, WANTED, Lead, Leadership


async def never_connects() -> None:
    """A connection opener for a leadership that is never started."""
    raise AssertionError("not started in these tests")


def test_a_process_alone_always_projects_and_runs_the_asked_pass_itself() -> None:
    lead = Lead("games")
    asked: list[str] = []
    lead.wanted = lambda: asked.append("pass")
    assert lead.projects and lead.projecting.is_set()
    lead.ask()
    assert asked == ["pass"]


def test_a_process_projects_while_it_leads_or_cannot_take_part() -> None:
    """Before its connection is up (and after it dropped) it cannot tell who leads: it projects, as before
    leaders; connected, it projects only while it holds the lock."""
    lead = Leadership(never_connects).lead("games")
    assert lead.projects, "not connected yet"
    lead._elected(held=False, connected=True)
    assert not lead.projects and not lead.projecting.is_set()
    lead._elected(held=True, connected=True)
    assert lead.projects and lead.projecting.is_set()
    lead._elected(held=False, connected=False)
    assert lead.projects, "its connection dropped"


def test_another_processes_announcements_and_requests() -> None:
    """A checkpoint's position is heard (never backwards, malformed payloads ignored); a request for a pass
    nudges this process's loop only while it leads; its own NOTIFYs are ignored."""
    leadership = Leadership(never_connects)
    lead = leadership.lead("games")
    nudged: list[str] = []
    lead.wanted = lambda: nudged.append("pass")
    leadership._pid = 7
    leadership._on_notify(None, 8, "", f"{MOVED}\ngames\n10\n5")
    assert lead.position == FeedPosition(tx=10, position=5)
    leadership._on_notify(None, 8, "", f"{MOVED}\ngames\n9\n99")  # an older one, arriving late
    leadership._on_notify(None, 8, "", f"{MOVED}\ngames\nnot-a-number\n1")
    leadership._on_notify(None, 8, "", f"{MOVED}\nunknown-checkpoint\n20\n1")
    assert lead.position == FeedPosition(tx=10, position=5)
    leadership._on_notify(None, 8, "", f"{WANTED}\ngames")
    assert nudged == [], "another process leads"
    lead._elected(held=True, connected=True)
    leadership._on_notify(None, 7, "", f"{WANTED}\ngames")
    assert nudged == [], "its own request"
    leadership._on_notify(None, 8, "", f"{WANTED}\ngames")
    assert nudged == ["pass"]


async def test_a_waiting_request_wakes_when_the_checkpoint_moves() -> None:
    lead = Lead("games")
    waiting = asyncio.create_task(lead.news(30))
    await asyncio.sleep(0)  # the waiter is waiting
    lead.heard(FeedPosition(tx=3, position=1))
    assert await waiting
    assert not await lead.news(0.01), "nothing moved since"
