"""The registration repository's contract, run on PostgreSQL and on the in-memory twin alike
(service/tournaments/repository.py; docs/decisions/0008-sql-in-repositories.md): registration opened with
its entries, joins admitted by the caller's rule, withdrawals, the listing of registering tournaments, and
the close, which takes turns with every other change of the tournament."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass

import pytest

from domain.names import skeleton
from eventstore import InMemoryKeyStore, KeyStore, PostgresKeyStore
from service.accounts.accounts import name_key
from service.accounts.repository import AccountRepository, InMemoryAccounts, NewAccount, PostgresAccounts
from service.games.schemas import PlayerIn
from service.runtime import errors
from service.tournaments.repository import (
    DECLINED,
    INVITED,
    JOINED,
    REGISTERING,
    STARTED,
    Closing,
    Entry,
    InMemoryRegistrations,
    Organizer,
    PostgresRegistrations,
    RegistrationRepository,
)
from service.tournaments.schemas import CreateTournamentIn


@dataclass(frozen=True)
class Subject:
    """A registration repository with the accounts and keys it reads names and commitments from."""

    registrations: RegistrationRepository
    accounts: AccountRepository
    keys: KeyStore


@pytest.fixture(params=[pytest.param("postgres", marks=pytest.mark.db), "memory"])
def subject(request: pytest.FixtureRequest) -> Subject:
    """Each implementation in turn."""
    if request.param == "postgres":
        pool = request.getfixturevalue("pool")
        return Subject(PostgresRegistrations(pool), PostgresAccounts(pool), PostgresKeyStore(pool))
    accounts, keys = InMemoryAccounts(), InMemoryKeyStore()
    return Subject(InMemoryRegistrations(accounts, keys), accounts, keys)


async def account(subject: Subject, prefix: str) -> tuple[str, str]:
    """A new account: (id, name); names of one test share a random tail, so they sort by prefix."""
    name = f"{prefix} {uuid.uuid4().hex[:10]}"
    account_id = str(uuid.uuid4())
    await subject.accounts.create(
        account_id,
        NewAccount(
            name=name,
            name_key=name_key(name),
            name_skeleton=skeleton(name),
            kind="human",
            token_hash=uuid.uuid4().hex,
        ),
    )
    return account_id, name


def request(open_: bool = False) -> CreateTournamentIn:
    """A tournament for accounts."""
    return CreateTournamentIn(
        name="Spring cup", game="johari", players=[PlayerIn(account="me")], rounds=2, open=open_, untimed=True
    )


def admit_all(open_: bool, entry: str | None) -> None:
    """Admits every account."""


async def opened(subject: Subject, open_: bool = False) -> tuple[str, dict[str, tuple[str, str]]]:
    """A registering tournament organized by ``org`` (who plays), ``bob`` invited, ``amy`` joined: its id
    and the accounts (id, name) by role."""
    people = {role: await account(subject, role) for role in ("org", "bob", "amy", "cat")}
    tournament_id = str(uuid.uuid4())
    await subject.registrations.open(
        tournament_id,
        request(open_),
        Organizer(organizer_hash="organizer-hash", organizer_id=people["org"][0]),
        [(people["bob"][0], INVITED), (people["amy"][0], JOINED), (people["org"][0], JOINED)],
    )
    return tournament_id, people


async def entries(subject: Subject, tournament_id: str) -> list[Entry]:
    """The registration's entries."""
    found = await subject.registrations.registration(tournament_id)
    assert found is not None
    return found[1]


async def test_an_opened_registration_and_its_entries(subject: Subject) -> None:
    tournament_id, people = await opened(subject)
    assert await subject.registrations.status(tournament_id) == REGISTERING
    assert await subject.registrations.organizer(tournament_id) == Organizer(
        organizer_hash="organizer-hash", organizer_id=people["org"][0]
    )
    found = await subject.registrations.registration(tournament_id)
    assert found is not None
    stored, listed = found
    assert (stored.status, stored.open, stored.organizer, stored.commitment) == (
        REGISTERING,
        False,
        people["org"][1],
        None,
    )
    assert stored.request["name"] == "Spring cup" and stored.request["untimed"] is True
    assert stored.request == {**stored.request, "game": "johari", "rounds": 2}
    # opened at one moment: by name
    assert listed == [
        Entry(name=people["amy"][1], status=JOINED),
        Entry(name=people["bob"][1], status=INVITED),
        Entry(name=people["org"][1], status=JOINED),
    ]


async def test_the_seed_commitment_is_the_key_store_s(subject: Subject) -> None:
    tournament_id, _ = await opened(subject)
    commitment = await subject.keys.commit(tournament_id, "a secret seed")
    found = await subject.registrations.registration(tournament_id)
    assert found is not None and found[0].commitment == commitment


async def test_a_tournament_that_never_registered(subject: Subject) -> None:
    unknown = str(uuid.uuid4())
    assert await subject.registrations.status(unknown) is None
    assert await subject.registrations.organizer(unknown) is None
    assert await subject.registrations.registration(unknown) is None
    for change in (
        subject.registrations.join(unknown, str(uuid.uuid4()), admit_all),
        subject.registrations.withdraw(unknown, str(uuid.uuid4()), INVITED),
    ):
        with pytest.raises(errors.NotFound) as missing:
            await change
        assert missing.value.code == "tournament_not_found"
    assert await subject.registrations.close(unknown, pytest.fail) is None


async def test_join_hands_admit_the_entry_and_registers_it_last(subject: Subject) -> None:
    tournament_id, people = await opened(subject, open_=True)
    seen: list[tuple[bool, str | None]] = []

    def admit(open_: bool, entry: str | None) -> None:
        seen.append((open_, entry))

    await subject.registrations.join(tournament_id, people["bob"][0], admit)
    await subject.registrations.join(tournament_id, people["cat"][0], admit)
    assert seen == [(True, INVITED), (True, None)]
    assert await entries(subject, tournament_id) == [
        Entry(name=people["amy"][1], status=JOINED),
        Entry(name=people["org"][1], status=JOINED),
        Entry(name=people["bob"][1], status=JOINED),
        Entry(name=people["cat"][1], status=JOINED),
    ]


async def test_a_refusal_of_admit_changes_nothing(subject: Subject) -> None:
    tournament_id, people = await opened(subject)
    before = await entries(subject, tournament_id)

    def refuse(open_: bool, entry: str | None) -> None:
        raise errors.Forbidden("not_invited", "no")

    for role in ("bob", "cat"):
        with pytest.raises(errors.Forbidden):
            await subject.registrations.join(tournament_id, people[role][0], refuse)
    assert await entries(subject, tournament_id) == before


async def test_withdraw_declines_only_an_entry_that_was_so(subject: Subject) -> None:
    tournament_id, people = await opened(subject)
    assert not await subject.registrations.withdraw(tournament_id, people["bob"][0], JOINED)
    assert not await subject.registrations.withdraw(tournament_id, people["cat"][0], INVITED)
    assert await subject.registrations.withdraw(tournament_id, people["bob"][0], INVITED)
    assert await subject.registrations.withdraw(tournament_id, people["amy"][0], JOINED)
    assert not await subject.registrations.withdraw(tournament_id, people["amy"][0], JOINED)
    assert await entries(subject, tournament_id) == [
        Entry(name=people["org"][1], status=JOINED),
        Entry(name=people["bob"][1], status=DECLINED),
        Entry(name=people["amy"][1], status=DECLINED),
    ]


async def test_registering_lists_the_newest_first(subject: Subject) -> None:
    older, _ = await opened(subject)
    newer, _ = await opened(subject)
    assert await subject.registrations.registering(2) == [newer, older]
    assert await subject.registrations.registering(1) == [newer]

    async def start(closing: Closing) -> None:
        pass

    await subject.registrations.close(newer, start)
    assert await subject.registrations.registering(1) == [older]


async def test_close_starts_with_the_joined_accounts_then_is_started(subject: Subject) -> None:
    tournament_id, people = await opened(subject)
    await subject.registrations.join(tournament_id, people["bob"][0], admit_all)
    started: list[Closing] = []

    async def start(closing: Closing) -> None:
        started.append(closing)

    closing = await subject.registrations.close(tournament_id, start)
    assert started == [closing]
    assert closing is not None
    assert closing.request == request() and closing.organizer_hash == "organizer-hash"
    order = ("amy", "org", "bob")
    assert closing.names == [people[role][1] for role in order]
    assert closing.account_ids == [people[role][0] for role in order]
    assert await subject.registrations.status(tournament_id) == STARTED
    assert await subject.registrations.close(tournament_id, pytest.fail) is None
    for change in (
        subject.registrations.join(tournament_id, people["cat"][0], admit_all),
        subject.registrations.withdraw(tournament_id, people["bob"][0], JOINED),
    ):
        with pytest.raises(errors.Conflict) as closed:
            await change
        assert closed.value.code == "registration_closed"


async def test_a_refused_start_leaves_registration_open(subject: Subject) -> None:
    tournament_id, people = await opened(subject)

    async def refuse(closing: Closing) -> None:
        raise errors.RuleViolation("too_few_players", "no")

    with pytest.raises(errors.RuleViolation):
        await subject.registrations.close(tournament_id, refuse)
    assert await subject.registrations.status(tournament_id) == REGISTERING
    await subject.registrations.join(tournament_id, people["bob"][0], admit_all)


async def test_a_join_waits_for_a_close_in_progress(subject: Subject) -> None:
    tournament_id, people = await opened(subject)
    outcome: list[BaseException | None] = []

    async def join() -> None:
        try:
            await subject.registrations.join(tournament_id, people["bob"][0], admit_all)
            outcome.append(None)
        except errors.ServiceError as refused:
            outcome.append(refused)

    async def start(closing: Closing) -> None:
        joining = asyncio.create_task(join())
        done, _ = await asyncio.wait(
            [joining], timeout=0.5
        )  # it may not finish while the close holds the lock
        assert not done and not outcome
        closing_done.append(joining)

    closing_done: list[asyncio.Task[None]] = []
    await subject.registrations.close(tournament_id, start)
    await asyncio.wait_for(closing_done[0], timeout=10)
    assert len(outcome) == 1 and isinstance(outcome[0], errors.Conflict)
    assert outcome[0].code == "registration_closed"
