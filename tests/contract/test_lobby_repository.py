"""The lobby repository's contract (service/lobby/repository.py), run against PostgreSQL and the in-memory twin:
listing a game, the locked seat changes and their transaction, the start's lock, and the reads."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from typing import Any

import msgspec
import pytest

from domain import lobby as rules
from domain.lobby import ACCOUNT, CANCELLED, HOTSEAT, INVITE, OPEN, STARTED, STARTING, WAITING, Seat
from eventstore.keys import InMemoryKeyStore, KeyStore, PostgresKeyStore
from service.accounts.accounts import Account, AccountService
from service.accounts.repository import InMemoryAccounts, PostgresAccounts
from service.games.schemas import ClockIn
from service.lobby.repository import (
    InMemoryLobby,
    InvitationCheck,
    InvitationCounts,
    Listing,
    LobbyRepository,
    NewLobbyGame,
    NewSeat,
    PostgresLobby,
)


@dataclass
class Lobby:
    """One implementation with what its tests need: accounts to seat and the keys holding commitments."""

    repository: LobbyRepository
    keys: KeyStore
    accounts: AccountService  # reads the seats the lobby writes
    new_account: Any  # async (name) -> Account
    server_bot: Any  # async () -> Account (johari's strong bot)


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.db)])
def lobby(request: pytest.FixtureRequest) -> Lobby:
    """The repository of one implementation (PostgreSQL: the session's database, shared by every test)."""
    if request.param == "memory":
        twin, keys = InMemoryAccounts(), InMemoryKeyStore()
        accounts = AccountService(twin)
        return Lobby(InMemoryLobby(accounts, keys, seats=twin), keys, accounts, *account_makers(accounts))
    pool = request.getfixturevalue("pool")
    accounts = AccountService(PostgresAccounts(pool))
    return Lobby(PostgresLobby(pool), PostgresKeyStore(pool), accounts, *account_makers(accounts))


def account_makers(accounts: AccountService) -> tuple[Any, Any]:
    """New accounts, and johari's strong server bot, of ``accounts``."""

    async def new_account(name: str) -> Account:
        return (await accounts.create(name))[0]

    async def server_bot() -> Account:
        return await accounts.server_bot("johari", "strong")

    return new_account, server_bot


def unique(prefix: str) -> str:
    """A name no other test uses (the database lives for the whole session)."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


async def listed(
    lobby: Lobby,
    creator: Account,
    seats: list[NewSeat],
    status: str = WAITING,
    options: dict[str, Any] | None = None,
    rated: bool = False,
    seed: str | None = None,
    clock: ClockIn | None = None,
    check: InvitationCheck | None = None,
    game_id: str | None = None,
) -> str:
    """A new game of ``creator`` in the lobby (``check`` run on its invitations), its seed committed; its
    id."""
    game_id = game_id or str(uuid.uuid4())
    await lobby.keys.commit(game_id, "secret-" + game_id)
    await lobby.repository.create(
        NewLobbyGame(
            game_id=game_id,
            game="johari",
            options=options or {},
            rated=rated,
            seed=seed,
            creator_id=creator.account_id,
            status=status,
            seats=len(seats),
            clock=clock,
        ),
        seats,
        check,
    )
    return game_id


def creator_and_open(creator: Account, *more: NewSeat) -> list[NewSeat]:
    """The creator's seat 0 and an open seat 1, then ``more``."""
    return [
        NewSeat(seat=0, kind=ACCOUNT, account_id=creator.account_id, entropy="e0", joined=True),
        NewSeat(seat=1, kind=OPEN),
        *more,
    ]


async def test_a_listed_game_reads_back_with_its_seats_creator_commitment_and_clock(lobby: Lobby) -> None:
    creator, guest = await lobby.new_account(unique("ada")), await lobby.new_account(unique("grace"))
    seats = creator_and_open(
        creator,
        NewSeat(seat=2, kind=INVITE, invited_id=guest.account_id),
        NewSeat(seat=3, kind=HOTSEAT, name="Bo", token_hash="h3", joined=True),
    )
    clock = ClockIn(decision_seconds=60, bank_seconds=600)
    game_id = await listed(
        lobby, creator, seats, options={"double_purchase": True}, seed="chosen", clock=clock
    )
    [game] = await lobby.repository.games(Listing(game_id=game_id), 1)
    committed = await lobby.keys.committed(game_id)
    assert committed is not None
    assert (game.game_id, game.game, game.options, game.rated, game.status, game.creator) == (
        game_id,
        "johari",
        {"double_purchase": True},
        False,
        WAITING,
        creator.name,
    )
    assert [(s.seat, s.status, s.name, s.invited) for s in game.seats] == [
        (0, "taken", creator.name, None),
        (1, "open", None, None),
        (2, "invited", None, guest.name),
        (3, "taken", "Bo", None),
    ]
    assert game.seed_commitment == committed.commitment
    assert game.seed_chosen
    assert game.clock == msgspec.to_builtins(clock)
    assert await lobby.repository.games(Listing(game_id=str(uuid.uuid4())), 1) == []


async def test_the_waiting_list_filters_by_options_rated_and_position_newest_first(lobby: Lobby) -> None:
    creator = await lobby.new_account(unique("ada"))
    tag = unique("tag")
    first = await listed(lobby, creator, creator_and_open(creator), options={"tag": tag, "n": 1})
    second = await listed(
        lobby, creator, creator_and_open(creator), options={"tag": tag, "n": True}, rated=True
    )
    third = await listed(lobby, creator, creator_and_open(creator), options={"tag": tag, "n": 1})
    await listed(lobby, creator, creator_and_open(creator), options={"tag": tag}, status=STARTING)

    async def ids(**filters: Any) -> list[str]:
        games = await lobby.repository.games(Listing(waiting=True, **filters), 10)
        return [game.game_id for game in games]

    assert await ids(options={"tag": tag}) == [third, second, first]
    assert await ids(options={"tag": tag, "n": 1}) == [third, first]  # true is no number
    assert await ids(options={"tag": tag, "n": True}) == [second]
    assert await ids(options={"tag": tag}, rated=False) == [third, first]
    assert await ids(options={"tag": tag}, game="basari") == []
    [newest] = await lobby.repository.games(Listing(game_id=third), 1)
    assert await ids(options={"tag": tag}, after=(newest.created_at, newest.game_id)) == [second, first]
    assert len(await lobby.repository.games(Listing(waiting=True, options={"tag": tag}), 2)) == 2


async def test_open_invitations_count_reserved_seats_of_waiting_games(lobby: Lobby) -> None:
    creator, guest = await lobby.new_account(unique("ada")), await lobby.new_account(unique("grace"))
    invite = NewSeat(seat=2, kind=INVITE, invited_id=guest.account_id)
    await listed(lobby, creator, creator_and_open(creator, invite))
    await listed(lobby, creator, creator_and_open(creator, invite))
    await listed(lobby, creator, creator_and_open(creator, invite), status=STARTING)
    assert await lobby.repository.invitations_sent(creator.account_id) == 2
    assert await lobby.repository.invitations_received(guest.account_id) == 2
    assert await lobby.repository.invitations_sent(guest.account_id) == 0
    assert await lobby.repository.invitations_received(creator.account_id) == 0


async def test_creations_with_invitations_check_their_counts_one_at_a_time(lobby: Lobby) -> None:
    """The check of a creation with invited seats reads the counts with every creation before it listed:
    of creations racing under a check that allows one open invitation, one is listed; a check's error
    lists nothing."""
    creator = await lobby.new_account(unique("ada"))
    guests = [await lobby.new_account(unique("grace")) for _ in range(4)]

    async def one_invitation(counts: InvitationCounts) -> None:
        if await counts.invitations_sent(creator.account_id) >= 1:
            raise LookupError("one invitation open already")

    async def invite(guest: Account) -> tuple[str, bool]:
        game_id, seats = (
            str(uuid.uuid4()),
            creator_and_open(creator, NewSeat(seat=2, kind=INVITE, invited_id=guest.account_id)),
        )
        try:
            await listed(lobby, creator, seats, check=one_invitation, game_id=game_id)
        except LookupError:
            return game_id, False
        return game_id, True

    made = await asyncio.gather(*(invite(guest) for guest in guests))
    assert sorted(created for _, created in made) == [False, False, False, True]
    assert await lobby.repository.invitations_sent(creator.account_id) == 1
    for game_id, created in made:
        assert len(await lobby.repository.games(Listing(game_id=game_id), 1)) == int(created)


async def test_a_locked_game_reads_and_changes_its_seats(lobby: Lobby) -> None:
    creator, guest, other = [await lobby.new_account(unique(n)) for n in ("ada", "grace", "bo")]
    invite = NewSeat(seat=2, kind=INVITE, invited_id=guest.account_id)
    game_id = await listed(lobby, creator, creator_and_open(creator, invite))
    async with lobby.repository.locked(str(uuid.uuid4())) as missing:
        assert missing is None
    async with lobby.repository.locked(game_id) as locked:
        assert locked is not None
        assert (locked.lobby.status, locked.lobby.creator_id, locked.lobby.game) == (
            WAITING,
            creator.account_id,
            "johari",
        )
        assert await locked.seats() == [
            Seat(seat=0, kind=ACCOUNT, account_id=creator.account_id),
            Seat(seat=1, kind=OPEN),
            Seat(seat=2, kind=INVITE, invited_id=guest.account_id),
        ]
        assert await locked.invitation(guest.account_id) == 2
        assert await locked.invitation(other.account_id) is None
        await locked.take(2, guest.account_id, "e2")
        await locked.take(1, other.account_id, None)
        assert await locked.give_back(other.account_id) == 1
        assert await locked.give_back(other.account_id) is None
        assert await locked.invitation(guest.account_id) is None  # spent by the join
    async with lobby.repository.locked(game_id) as locked:
        assert locked is not None
        assert (await locked.seats())[1:] == [
            Seat(seat=1, kind=OPEN),
            Seat(seat=2, kind=ACCOUNT, account_id=guest.account_id),
        ]
        await locked.cancel()
    [game] = await lobby.repository.games(Listing(game_id=game_id), 1)
    assert game.status == CANCELLED


async def test_a_failed_block_keeps_none_of_its_changes(lobby: Lobby) -> None:
    creator, guest = await lobby.new_account(unique("ada")), await lobby.new_account(unique("grace"))
    game_id = await listed(lobby, creator, creator_and_open(creator))
    with pytest.raises(RuntimeError):
        async with lobby.repository.locked(game_id) as locked:
            assert locked is not None
            await locked.take(1, guest.account_id, None)
            await locked.mark_starting()
            raise RuntimeError("refused after the writes")
    [game] = await lobby.repository.games(Listing(game_id=game_id), 1)
    assert (game.status, game.seats[1].status) == (WAITING, "open")


async def test_joins_racing_for_the_last_seat_take_turns(lobby: Lobby) -> None:
    creator = await lobby.new_account(unique("ada"))
    racers = [await lobby.new_account(unique(f"racer{n}")) for n in range(2)]
    game_id = await listed(lobby, creator, creator_and_open(creator))

    async def join(account: Account) -> bool:
        async with lobby.repository.locked(game_id) as locked:
            assert locked is not None
            seats = await locked.seats()
            for _ in range(3):  # let the other racer run between the read and the write
                await asyncio.sleep(0)
            try:
                taken = rules.seat_to_take(seats, account.account_id, account.name, None)
            except rules.Refused:
                return False
            await locked.take(taken.seat, account.account_id, None)
            if taken.fills:
                await locked.mark_starting()
            return True

    assert sorted(await asyncio.gather(*(join(racer) for racer in racers))) == [False, True]
    [game] = await lobby.repository.games(Listing(game_id=game_id), 1)
    assert game.status == STARTING


async def test_a_starting_game_is_started_once(lobby: Lobby) -> None:
    creator = await lobby.new_account(unique("ada"))
    bot = await lobby.server_bot()
    seats = [
        NewSeat(seat=0, kind=ACCOUNT, account_id=creator.account_id, entropy="e0", joined=True),
        NewSeat(seat=1, kind=ACCOUNT, account_id=bot.account_id, joined=True),
        NewSeat(seat=2, kind=HOTSEAT, name="Bo", token_hash="h2", joined=True),
    ]
    clock = ClockIn(days_per_decision=2)
    waiting = await listed(lobby, creator, creator_and_open(creator))
    async with lobby.repository.starting(waiting) as starting:
        assert starting is None
    game_id = await listed(lobby, creator, seats, status=STARTING, options={"x": 1}, seed="s", clock=clock)
    with pytest.raises(RuntimeError):
        async with lobby.repository.starting(game_id) as starting:
            assert starting is not None
            await starting.started()
            raise RuntimeError("the opening events failed")
    async with lobby.repository.starting(game_id) as starting:
        assert starting is not None
        lobby_row = starting.lobby
        assert (lobby_row.game, lobby_row.options, lobby_row.rated, lobby_row.seed, lobby_row.status) == (
            "johari",
            {"x": 1},
            False,
            "s",
            STARTING,
        )
        assert (lobby_row.clock, lobby_row.creator_id) == (msgspec.to_builtins(clock), creator.account_id)
        assert [(s.seat, s.kind, s.account_id, s.name, s.token_hash, s.entropy) for s in starting.seats] == [
            (0, ACCOUNT, creator.account_id, None, None, "e0"),
            (1, ACCOUNT, bot.account_id, None, None, None),
            (2, HOTSEAT, None, "Bo", "h2", None),
        ]
        assert [(s.account_name, s.bot_level) for s in starting.seats] == [
            (creator.name, None),
            (bot.name, "strong"),
            (None, None),
        ]
        await starting.started()
    async with lobby.repository.starting(game_id) as starting:
        assert starting is None
    [game] = await lobby.repository.games(Listing(game_id=game_id), 1)
    assert game.status == STARTED


async def test_starts_racing_take_turns_and_only_the_first_finds_the_game_starting(lobby: Lobby) -> None:
    creator = await lobby.new_account(unique("ada"))
    seats = [NewSeat(seat=0, kind=ACCOUNT, account_id=creator.account_id, joined=True)]
    game_id = await listed(lobby, creator, seats, status=STARTING)

    async def start() -> bool:
        async with lobby.repository.starting(game_id) as starting:
            if starting is None:
                return False
            for _ in range(3):  # let the other start run while this one holds the lock
                await asyncio.sleep(0)
            await starting.started()
            return True

    assert sorted(await asyncio.gather(start(), start())) == [False, True]


async def test_an_accounts_bot_game_creations_take_turns_and_other_accounts_do_not_wait(lobby: Lobby) -> None:
    racer, other = unique("bot-racer"), unique("bot-other")
    inside: list[str] = []  # the accounts whose blocks are running, as each block starts
    most = {racer: 0, other: 0}

    async def create(account_id: str) -> None:
        async with lobby.repository.bot_games_locked(account_id):
            inside.append(account_id)
            most[account_id] = max(most[account_id], inside.count(account_id))
            for _ in range(3):  # let the others run while this one holds the lock
                await asyncio.sleep(0)
            inside.remove(account_id)

    async def both_at_once() -> None:  # the other account's block runs while the racer's is held
        async with lobby.repository.bot_games_locked(racer), lobby.repository.bot_games_locked(other):
            pass

    await asyncio.gather(*(create(racer) for _ in range(4)), create(other), both_at_once())
    assert most == {racer: 1, other: 1}


async def test_an_accounts_games_are_its_seats_and_invitations_newest_first(lobby: Lobby) -> None:
    creator, guest = await lobby.new_account(unique("ada")), await lobby.new_account(unique("grace"))
    invite = NewSeat(seat=2, kind=INVITE, invited_id=guest.account_id)
    first = await listed(lobby, creator, creator_and_open(creator, invite), rated=True)
    second = await listed(lobby, creator, creator_and_open(creator), status=STARTING)
    third = await listed(
        lobby, creator, creator_and_open(creator, invite), clock=ClockIn(days_per_decision=1)
    )
    async with lobby.repository.locked(third) as locked:
        assert locked is not None
        await locked.cancel()
    mine = await lobby.repository.games_of(creator.account_id, None, 10)
    assert [(g.game_id, g.seat, g.invited, g.status, g.rated) for g in mine] == [
        (third, 0, False, "cancelled", False),
        (second, 0, False, "waiting", False),
        (first, 0, False, "waiting", True),
    ]
    assert mine[0].clock == {
        "decision_seconds": None,
        "bank_seconds": None,
        "days_per_decision": 1,
        "max_timeouts": 3,
    }
    committed = await lobby.keys.committed(first)
    assert committed is not None and mine[2].seed_commitment == committed.commitment
    invited = await lobby.repository.games_of(guest.account_id, None, 10)
    assert [(g.game_id, g.seat, g.invited, g.game) for g in invited] == [
        (third, 2, True, "johari"),
        (first, 2, True, "johari"),
    ]
    after = await lobby.repository.games_of(creator.account_id, (mine[0].created_at, mine[0].game_id), 1)
    assert [g.game_id for g in after] == [second]


async def test_the_accounts_read_the_seats_and_status_the_lobby_keeps(lobby: Lobby) -> None:
    creator, guest = await lobby.new_account(unique("ada")), await lobby.new_account(unique("grace"))
    invite = NewSeat(seat=2, kind=INVITE, invited_id=guest.account_id)
    game_id = await listed(lobby, creator, creator_and_open(creator, invite))
    assert await lobby.accounts.game_accounts(game_id) == [creator.account_id, None, None]
    assert await lobby.accounts.lobby_status(game_id) == WAITING
    async with lobby.repository.locked(game_id) as locked:
        assert locked is not None
        await locked.take(2, guest.account_id, None)
        await locked.mark_starting()
    assert await lobby.accounts.seat_holders(game_id) == {0: creator.account_id, 2: guest.account_id}
    assert await lobby.accounts.lobby_status(game_id) == STARTING
    async with lobby.repository.starting(game_id) as starting:
        assert starting is not None
        await starting.started()
    assert await lobby.accounts.lobby_status(game_id) == STARTED
