"""Tournament registration's rules on the in-memory repositories, no database: who may join, what a
withdrawal needs, and what a registration shows (service/tournaments/registrations.py)."""

from __future__ import annotations

import pytest

from eventstore import InMemoryKeyStore
from service.accounts.accounts import Account, AccountService
from service.accounts.repository import InMemoryAccounts
from service.games.schemas import PlayerIn
from service.runtime import errors
from service.tournaments.registrations import INVITED, JOINED, Registrations
from service.tournaments.repository import InMemoryRegistrations
from service.tournaments.schemas import CreateTournamentIn


@pytest.fixture
def accounts() -> AccountService:
    """Accounts on the twin."""
    return AccountService(InMemoryAccounts())


@pytest.fixture
def registrations(accounts: AccountService) -> Registrations:
    """Registration on the twins."""
    assert isinstance(accounts.repository, InMemoryAccounts)
    return Registrations(accounts, InMemoryRegistrations(accounts.repository, InMemoryKeyStore()))


async def signed_up(accounts: AccountService, *names: str) -> list[tuple[Account, str]]:
    """New accounts and their tokens."""
    return [await accounts.create(name) for name in names]


async def opened(
    registrations: Registrations, organizer: Account, invited: list[Account], open_: bool = False
) -> str:
    """A tournament of ``johari`` registering, the organizer playing, ``invited`` invited."""
    request = CreateTournamentIn(
        name="Cup", game="johari", players=[PlayerIn(account="me")], rounds=1, open=open_, untimed=True
    )
    await registrations.open("t1", request, "organizer-hash", organizer, True, invited, [])
    return "t1"


async def test_an_invited_account_joins_and_an_uninvited_one_is_403(
    accounts: AccountService, registrations: Registrations
) -> None:
    (org, _), (bob, bob_token), (_, cat_token) = await signed_up(accounts, "org", "bob", "cat")
    tournament = await opened(registrations, org, [bob])
    with pytest.raises(errors.Forbidden) as uninvited:
        await registrations.join(tournament, cat_token)
    assert uninvited.value.code == "not_invited"
    joined = await registrations.join(tournament, bob_token)
    assert [(e.name, e.status) for e in joined.entries] == [("org", JOINED), ("bob", JOINED)]
    with pytest.raises(errors.Conflict) as again:
        await registrations.join(tournament, bob_token)
    assert again.value.code == "already_registered"


async def test_any_account_joins_an_open_tournament(
    accounts: AccountService, registrations: Registrations
) -> None:
    (org, _), (_, cat_token) = await signed_up(accounts, "org", "cat")
    tournament = await opened(registrations, org, [], open_=True)
    joined = await registrations.join(tournament, cat_token)
    assert joined.open and [e.name for e in joined.entries] == ["org", "cat"]


async def test_joining_needs_an_account_token(accounts: AccountService, registrations: Registrations) -> None:
    ((org, _),) = await signed_up(accounts, "org")
    tournament = await opened(registrations, org, [], open_=True)
    with pytest.raises(errors.Unauthorized):
        await registrations.join(tournament, None)


async def test_withdrawals_need_an_entry_of_that_status(
    accounts: AccountService, registrations: Registrations
) -> None:
    (org, org_token), (bob, bob_token), (_, cat_token) = await signed_up(accounts, "org", "bob", "cat")
    tournament = await opened(registrations, org, [bob])
    with pytest.raises(errors.Conflict) as not_invited:
        await registrations.withdraw(tournament, cat_token, INVITED)
    assert not_invited.value.code == "not_invited"
    with pytest.raises(errors.Conflict) as not_registered:
        await registrations.withdraw(tournament, bob_token, JOINED)
    assert not_registered.value.code == "not_registered"
    declined = await registrations.withdraw(tournament, bob_token, INVITED)
    left = await registrations.withdraw(tournament, org_token, JOINED)
    assert [(e.name, e.status) for e in declined.entries] == [("org", JOINED), ("bob", "declined")]
    assert [(e.name, e.status) for e in left.entries] == [("bob", "declined"), ("org", "declined")]


async def test_a_registration_shows_its_request_organizer_and_clock(
    accounts: AccountService, registrations: Registrations
) -> None:
    ((org, _),) = await signed_up(accounts, "org")
    tournament = await opened(registrations, org, [])
    shown = await registrations.registration(tournament)
    assert (shown.name, shown.game, shown.status, shown.organizer, shown.clock) == (
        "Cup",
        "johari",
        "registering",
        "org",
        None,
    )
    assert await registrations.organizer(tournament) == ("organizer-hash", org.account_id)
    assert [r.tournament_id for r in await registrations.registering(10)] == [tournament]
    with pytest.raises(errors.NotFound) as missing:
        await registrations.registration("t2")
    assert missing.value.code == "tournament_not_found"
