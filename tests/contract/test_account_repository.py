"""The account repository's contract, run on PostgreSQL and on the in-memory twin alike
(service/accounts/repository.py; docs/decisions/0008-sql-in-repositories.md): names unique by key and by
look, tokens found by hash, rotation and revocation at once, look-ups by id, the server's bots, and the seats
accounts hold."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest

from domain.names import skeleton
from service.accounts.accounts import name_key
from service.accounts.repository import (
    AccountRepository,
    InMemoryAccounts,
    NewAccount,
    PostgresAccounts,
    SeatHeld,
)
from service.runtime import errors


@dataclass(frozen=True)
class Accounts:
    """A repository under test and how its seats and lobby statuses are written (by the lobby, in the
    service)."""

    repository: AccountRepository
    hold_seat: Callable[[str, int, str | None], Awaitable[None]]
    set_lobby_status: Callable[[str, str], Awaitable[None]]


def postgres(request: pytest.FixtureRequest) -> Accounts:
    """PostgresAccounts on the test database; seats and lobby rows inserted as the lobby inserts them."""
    pool = request.getfixturevalue("pool")

    async def hold_seat(game_id: str, seat: int, account_id: str | None) -> None:
        await pool.execute(
            "INSERT INTO game_seats (game_id, seat, kind, account_id, joined_at) VALUES ($1, $2, $3, $4, now())",
            game_id,
            seat,
            "open" if account_id is None else "account",
            account_id,
        )

    async def set_lobby_status(game_id: str, status: str) -> None:
        await pool.execute(
            "INSERT INTO lobby_games (game_id, game, options, rated, status, seats)"
            " VALUES ($1, 'johari', $2, false, $3, 2)",
            game_id,
            {},
            status,
        )

    return Accounts(PostgresAccounts(pool), hold_seat, set_lobby_status)


def in_memory() -> Accounts:
    """InMemoryAccounts; seats and lobby statuses written as the lobby's twin writes them."""
    twin = InMemoryAccounts()

    async def hold_seat(game_id: str, seat: int, account_id: str | None) -> None:
        twin.hold_seat(game_id, seat, account_id)

    async def set_lobby_status(game_id: str, status: str) -> None:
        twin.set_lobby_status(game_id, status)

    return Accounts(twin, hold_seat, set_lobby_status)


@pytest.fixture(params=[pytest.param("postgres", marks=pytest.mark.db), "memory"])
def accounts(request: pytest.FixtureRequest) -> Accounts:
    """Each implementation in turn."""
    return postgres(request) if request.param == "postgres" else in_memory()


def unique(prefix: str = "p") -> str:
    """A name no other test uses (the PostgreSQL database is shared by the session)."""
    return f"{prefix} {uuid.uuid4().hex[:10]}"


def new(name: str, token_hash: str | None = None, kind: str = "human") -> NewAccount:
    """An account to store under this name, keyed and skeletoned as the service does."""
    return NewAccount(
        name=name,
        name_key=name_key(name),
        name_skeleton=skeleton(name),
        kind=kind,
        token_hash=token_hash or uuid.uuid4().hex,
    )


async def create(repository: AccountRepository, name: str, token_hash: str | None = None) -> str:
    """A new account's id."""
    account_id = str(uuid.uuid4())
    await repository.create(account_id, new(name, token_hash))
    return account_id


async def test_a_created_account_is_found_by_token_hash_and_name_key(accounts: Accounts) -> None:
    name, token_hash, account_id = unique("Ana"), uuid.uuid4().hex, str(uuid.uuid4())
    created = await accounts.repository.create(account_id, new(name, token_hash, kind="bot"))
    assert (created.account_id, created.name, created.kind) == (account_id, name, "bot")
    assert created.bot_game is None and created.bot_level is None
    assert await accounts.repository.by_token_hash(token_hash) == created
    assert await accounts.repository.by_name_key(name_key(name.upper())) == created
    assert await accounts.repository.by_token_hash(uuid.uuid4().hex) is None
    assert await accounts.repository.by_name_key(name_key(unique())) is None


async def test_names_of_one_key_clash_after_nfkc_and_case_folding(accounts: Accounts) -> None:
    base = uuid.uuid4().hex[:8]
    first = await create(accounts.repository, f"Straße {base}")
    fullwidth = "\uff33\uff54\uff52\uff41\uff53\uff53\uff45 " + base  # NFKC makes it "Strasse"
    for twin in (f"STRASSE {base}", f"strasse {base}", fullwidth):
        with pytest.raises(errors.Conflict) as refused:
            await create(accounts.repository, twin)
        assert refused.value.code == "name_taken" and "is taken" in refused.value.detail, twin
    await create(accounts.repository, "\ufb01sh " + base)  # the ligature is "fi"
    with pytest.raises(errors.Conflict):
        await create(accounts.repository, f"FISH {base}")
    found = await accounts.repository.by_name_key(name_key(f"strasse {base}"))
    assert found is not None and found.account_id == first and found.name == f"Straße {base}"


async def test_a_name_that_looks_like_another_is_taken_and_creates_nothing(accounts: Accounts) -> None:
    base = uuid.uuid4().hex[:8]
    await create(accounts.repository, f"alice {base}")
    cyrillic = f"\u0430lice {base}"
    with pytest.raises(errors.Conflict) as refused:
        await create(accounts.repository, cyrillic)
    assert refused.value.code == "name_taken"
    assert f'looks like the account "alice {base}"' in refused.value.detail
    assert await accounts.repository.by_name_key(name_key(cyrillic)) is None
    with pytest.raises(errors.Conflict) as bot_alike:  # a Greek omicron beside the built-in bot
        await create(accounts.repository, "str\u03bfng-johari")
    assert 'looks like the account "strong-johari"' in bot_alike.value.detail


async def test_rotation_replaces_the_token_hash_at_once(accounts: Accounts) -> None:
    old, fresh = uuid.uuid4().hex, uuid.uuid4().hex
    account_id = await create(accounts.repository, unique(), old)
    rotated = await accounts.repository.rotate(old, fresh)
    assert rotated is not None and rotated.account_id == account_id
    assert await accounts.repository.by_token_hash(old) is None
    found = await accounts.repository.by_token_hash(fresh)
    assert found is not None and found.account_id == account_id
    assert await accounts.repository.rotate(old, uuid.uuid4().hex) is None  # a stale token rotates nothing


async def test_revocation_leaves_the_account_without_a_token(accounts: Accounts) -> None:
    token_hash, name = uuid.uuid4().hex, unique()
    account_id = await create(accounts.repository, name, token_hash)
    assert await accounts.repository.revoke(token_hash) == account_id
    assert await accounts.repository.by_token_hash(token_hash) is None
    assert await accounts.repository.revoke(token_hash) is None
    assert await accounts.repository.rotate(token_hash, uuid.uuid4().hex) is None
    still = await accounts.repository.by_name_key(name_key(name))
    assert still is not None and still.account_id == account_id


async def test_by_ids_finds_the_known_ids_once(accounts: Accounts) -> None:
    first = await create(accounts.repository, unique())
    second = await create(accounts.repository, unique())
    await create(accounts.repository, unique())
    found = await accounts.repository.by_ids([first, str(uuid.uuid4()), second, first])
    assert sorted(account.account_id for account in found) == sorted([first, second])
    assert await accounts.repository.by_ids([]) == []


@pytest.mark.parametrize("game", ["basari", "bazaar", "johari"])
@pytest.mark.parametrize("level", ["random", "greedy", "strong"])
async def test_each_game_and_level_has_a_server_bot_without_a_token(
    accounts: Accounts, game: str, level: str
) -> None:
    bot = await accounts.repository.server_bot(game, level)
    assert bot is not None
    assert (bot.name, bot.kind, bot.bot_game, bot.bot_level) == (f"{level}-{game}", "bot", game, level)
    assert await accounts.repository.by_ids([bot.account_id]) == [bot]
    assert await accounts.repository.by_name_key(name_key(bot.name)) == bot


async def test_no_server_bot_of_an_unknown_level_or_game(accounts: Accounts) -> None:
    assert await accounts.repository.server_bot("johari", "genius") is None
    assert await accounts.repository.server_bot("chess", "strong") is None


async def test_seats_are_found_by_token_hash_game_and_account(accounts: Accounts) -> None:
    a_hash, b_hash = uuid.uuid4().hex, uuid.uuid4().hex
    a = await create(accounts.repository, unique("a"), a_hash)
    b = await create(accounts.repository, unique("b"), b_hash)
    game, other = str(uuid.uuid4()), str(uuid.uuid4())
    await accounts.hold_seat(game, 0, a)
    await accounts.hold_seat(game, 1, None)  # an open seat
    await accounts.hold_seat(game, 2, b)
    await accounts.hold_seat(other, 1, a)

    repository = accounts.repository
    assert await repository.seat_in_game(game, a_hash) == SeatHeld(seat=0, account_id=a)
    assert await repository.seat_in_game(game, b_hash) == SeatHeld(seat=2, account_id=b)
    assert await repository.seat_in_game(other, b_hash) is None
    assert await repository.seat_in_game(game, uuid.uuid4().hex) is None
    assert await repository.seat_token_hash(game, 0) == a_hash
    assert await repository.seat_token_hash(game, 1) is None
    assert await repository.seats_of(a) == sorted([(game, 0), (other, 1)])
    assert await repository.seats_of(b) == [(game, 2)]
    assert await repository.game_accounts(game) == [a, None, b]
    assert await repository.game_accounts(str(uuid.uuid4())) == []
    assert await repository.seat_holders(game) == {0: a, 2: b}

    await repository.revoke(b_hash)  # a revoked token holds its seat no more
    assert await repository.seat_in_game(game, b_hash) is None
    assert await repository.seat_token_hash(game, 2) is None
    assert await repository.seat_holders(game) == {0: a, 2: b}


async def test_rotation_moves_the_seat_to_the_new_token_at_once(accounts: Accounts) -> None:
    old, fresh = uuid.uuid4().hex, uuid.uuid4().hex
    holder = await create(accounts.repository, unique(), old)
    game = str(uuid.uuid4())
    await accounts.hold_seat(game, 0, holder)
    await accounts.repository.rotate(old, fresh)
    assert await accounts.repository.seat_in_game(game, old) is None
    assert await accounts.repository.seat_in_game(game, fresh) == SeatHeld(seat=0, account_id=holder)
    assert await accounts.repository.seat_token_hash(game, 0) == fresh


async def test_lobby_status_of_a_game(accounts: Accounts) -> None:
    game = str(uuid.uuid4())
    await accounts.set_lobby_status(game, "waiting")
    assert await accounts.repository.lobby_status(game) == "waiting"
    assert await accounts.repository.lobby_status(str(uuid.uuid4())) is None


async def test_a_game_outside_the_lobby_is_seated_by_accounts_in_order(accounts: Accounts) -> None:
    hashes = [uuid.uuid4().hex for _ in range(3)]
    holders = [await create(accounts.repository, unique(f"t{n}"), h) for n, h in enumerate(hashes)]
    game = str(uuid.uuid4())
    await accounts.repository.seat_game(game, holders)
    assert await accounts.repository.game_accounts(game) == holders
    assert await accounts.repository.seat_in_game(game, hashes[2]) == SeatHeld(seat=2, account_id=holders[2])
    assert await accounts.repository.lobby_status(game) is None  # never in the lobby
