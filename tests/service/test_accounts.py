"""The account rules on the in-memory repository, no database: names checked and registered in NFKC form,
clashes refused, tokens shown once and found by hash, rotation and revocation effective at once, and whom a
verified token stands for (service/accounts/accounts.py)."""

from __future__ import annotations

import pytest

from service.accounts.accounts import AccountService, VerifiedClients
from service.accounts.repository import InMemoryAccounts
from service.integrity.tokens import hash_token
from service.runtime import errors


@pytest.fixture
def repository() -> InMemoryAccounts:
    """A fresh twin: the server's bots and nothing else."""
    return InMemoryAccounts()


@pytest.fixture
def service(repository: InMemoryAccounts) -> AccountService:
    """The account service on the twin, with its own verified-token memory."""
    return AccountService(repository, clients=VerifiedClients())


async def test_a_new_account_gets_a_token_that_finds_it(service: AccountService) -> None:
    account, token = await service.create("Ana Lima")
    assert (account.name, account.kind) == ("Ana Lima", "human") and len(token) >= 40
    assert await service.require(token) == account
    assert await service.named("ANA LIMA") == account
    assert service.clients.identity(hash_token(token)) == f"account:{account.account_id}"


async def test_the_name_is_registered_in_its_nfkc_form(service: AccountService) -> None:
    account, _ = await service.create("\ufb01sh \uff11")  # a ligature and a fullwidth digit
    assert account.name == "fish 1"


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("", "name_length"),
        ("x" * 41, "name_length"),
        ("a\u200bb", "name_invisible_character"),
        ("a@b", "name_characters"),
        (" ab", "name_spaces"),
        ("\u3000ab", "name_spaces"),  # NFKC makes the ideographic space a leading space
    ],
)
async def test_a_name_breaking_a_rule_is_refused_naming_it_and_creates_nothing(
    service: AccountService, name: str, code: str
) -> None:
    with pytest.raises(errors.RuleViolation) as refused:
        await service.create(name)
    assert refused.value.code == code and refused.value.detail
    assert await service.by_name(name) is None


async def test_an_unknown_kind_is_refused(service: AccountService) -> None:
    bot, _ = await service.create("helper", kind="bot")
    assert bot.kind == "bot"
    with pytest.raises(errors.RuleViolation) as refused:
        await service.create("boss", kind="admin")
    assert refused.value.code == "unknown_account_kind"
    assert await service.by_name("boss") is None


@pytest.mark.parametrize("clash", ["STRASSE 7", "strasse 7", "\uff33\uff54\uff52\uff41\uff53\uff53\uff45 7"])
async def test_a_name_equal_after_nfkc_and_case_folding_is_taken(service: AccountService, clash: str) -> None:
    first, _ = await service.create("Straße 7")
    with pytest.raises(errors.Conflict) as refused:
        await service.create(clash)
    assert refused.value.code == "name_taken" and refused.value.status == 409
    assert await service.named(clash) == first


async def test_a_name_looking_like_a_server_bot_s_is_taken(service: AccountService) -> None:
    with pytest.raises(errors.Conflict) as refused:
        await service.create("str\u03bfng-johari")  # a Greek omicron
    assert refused.value.code == "name_taken"
    assert 'looks like the account "strong-johari"' in refused.value.detail


async def test_rotation_stops_the_old_token_at_once(service: AccountService) -> None:
    account, old = await service.create("rotor")
    await service.require(old)
    rotated, fresh = await service.rotate(old)
    assert rotated == account and fresh != old
    assert service.clients.identity(hash_token(old)) is None
    with pytest.raises(errors.Unauthorized) as stale:
        await service.require(old)
    assert stale.value.code == "unknown_token"
    with pytest.raises(errors.Unauthorized):
        await service.rotate(old)
    assert await service.require(fresh) == account


async def test_revocation_leaves_the_account_without_a_token(service: AccountService) -> None:
    account, token = await service.create("leaver")
    await service.require(token)
    await service.revoke(token)
    assert service.clients.identity(hash_token(token)) is None
    with pytest.raises(errors.Unauthorized) as revoked:
        await service.require(token)
    assert revoked.value.code == "unknown_token"
    with pytest.raises(errors.Unauthorized):
        await service.revoke(token)
    assert await service.named("leaver") == account  # the account stays, its name taken


async def test_no_token_or_a_made_up_one_is_401(service: AccountService) -> None:
    with pytest.raises(errors.Unauthorized) as missing:
        await service.require(None)
    assert missing.value.code == "token_required"
    with pytest.raises(errors.Unauthorized) as made_up:
        await service.require("made-up")
    assert made_up.value.code == "unknown_token"
    assert service.clients.identity(hash_token("made-up")) is None


async def test_an_unknown_name_is_404(service: AccountService) -> None:
    with pytest.raises(errors.NotFound) as missing:
        await service.named("nobody")
    assert missing.value.code == "account_not_found"


async def test_server_bots_by_game_and_level(service: AccountService) -> None:
    bot = await service.server_bot("johari", "strong")
    assert (bot.name, bot.kind, bot.bot_level) == ("strong-johari", "bot", "strong")
    assert await service.by_ids([bot.account_id, "nobody"]) == {bot.account_id: bot}
    with pytest.raises(errors.RuleViolation) as unknown:
        await service.server_bot("johari", "genius")
    assert unknown.value.code == "unknown_bot_level"


async def test_a_seat_is_found_by_its_holder_s_current_token(
    service: AccountService, repository: InMemoryAccounts
) -> None:
    account, token = await service.create("sitter")
    repository.hold_seat("g1", 0, None)
    repository.hold_seat("g1", 1, account.account_id)
    assert await service.seat_in_game("g1", token) == 1
    assert service.clients.identity(hash_token(token)) == f"account:{account.account_id}"
    assert await service.seat_in_game("g2", token) is None
    _, fresh = await service.rotate(token)
    assert await service.seat_in_game("g1", token) is None
    assert await service.seat_in_game("g1", fresh) == 1
    assert await service.seat_token_hash("g1", 1) == hash_token(fresh)
    assert await service.seats_of(account.account_id) == [("g1", 1)]
    assert await service.game_accounts("g1") == [None, account.account_id]
