"""The lobby's limits on the in-memory repositories, no database (docs/api.md, "Lobby"; service/lobby/lobby.py).

Games of server bots only cost the server's cores for as long as they last, with no person to pace them:
creating one needs an account, and each account may have at most ``bot_games_per_account`` of them running;
games with a person's seat beside the bots are not counted. Open invitations are bounded
(``invitations_per_inviter``, ``invitations_per_invitee``): one account cannot reserve seats for another in
hundreds of games, nor can many accounts flood one account's invitations. A refused creation is 429 with
Retry-After and creates nothing; answered invitations (joined, declined) no longer count."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from service.games.schemas import CreateGame
from service.lobby.lobby import LobbyService
from service.lobby.schemas import JoinIn
from service.runtime import errors
from tests.support.twins import twins

BOTS_ONLY = {"game": "basari", "players": [{"bot": "strong"}, {"bot": "strong"}, {"bot": "greedy"}]}


async def create(service: LobbyService, body: dict[str, Any], token: str | None) -> str:
    """Create a game from ``body`` with ``token``; its id."""
    return (await service.create(msgspec.convert(body, CreateGame), token)).game_id


async def test_a_bot_only_game_needs_an_account() -> None:
    """Without a token, or with a seat token of a hot-seat game, creation is refused (401
    account_required); a game with a person's seat beside the bots still needs none."""
    service = twins(bot_games_per_account=2).lobby
    with pytest.raises(errors.Unauthorized) as anonymous:
        await create(service, BOTS_ONLY, None)
    assert anonymous.value.code == "account_required"
    hotseat = await service.create(
        msgspec.convert({"game": "bazaar", "players": [{"name": "Ada"}, {"bot": "strong"}]}, CreateGame), None
    )
    with pytest.raises(errors.Unauthorized) as seat_token:
        await create(service, BOTS_ONLY, hotseat.seats[0].token)
    assert seat_token.value.code == "account_required"


async def test_an_account_runs_at_most_the_limit_of_bot_only_games() -> None:
    """The third running bot-only game of an account is refused (429 too_many_bot_games, Retry-After) and
    creates nothing, whether its seats are ``{bot}`` seats or invited bot accounts; another account is not
    affected; once one of the account's games has ended it may create one again."""
    service = twins(bot_games_per_account=2).lobby
    _, token = await service.accounts.create("bot-fan")
    _, other = await service.accounts.create("bot-fan-2")
    first = await create(service, BOTS_ONLY, token)
    invited = {"game": "johari", "players": [{"invite": "strong-johari"}, {"invite": "greedy-johari"}]}
    await create(service, invited, token)
    before = await service.games.store.list_streams(status="active", limit=100)
    assert len(before) == 2
    for body in (BOTS_ONLY, invited):
        with pytest.raises(errors.TooMany) as refused:
            await create(service, body, token)
        assert refused.value.code == "too_many_bot_games" and refused.value.headers["Retry-After"]
    assert await service.games.store.list_streams(status="active", limit=100) == before
    await create(service, BOTS_ONLY, other)
    await service.games.commands.execute(first, 0, {"type": "resign"})
    for seat in (1, 2):  # the last two: the game ends once fewer than two seats still play
        loaded = await service.games.loader.load(first)
        if not loaded.finished:
            await service.games.commands.execute(first, seat, {"type": "resign"})
    assert (await service.games.loader.load(first)).finished
    await create(service, BOTS_ONLY, token)


async def invite(service: LobbyService, token: str, *guests: str) -> str:
    """A Johari game of the inviter and the invited accounts; its id."""
    players = [{"account": "me"}, *({"invite": guest} for guest in guests)]
    body = msgspec.convert({"game": "johari", "players": players}, CreateGame)
    return (await service.create(body, token)).game_id


async def waiting_games(service: LobbyService) -> list[str]:
    """The games waiting in the lobby."""
    return [game.game_id for game in (await service.waiting(None, None, None, None, 200)).games]


async def test_an_inviter_has_a_bounded_number_of_open_invitations() -> None:
    """The fourth open invitation of one account is refused; once one is answered, it may invite again."""
    service = twins(invitations_per_inviter=3, invitations_per_invitee=2).lobby
    _, host = await service.accounts.create("host-a")
    guests = [await service.accounts.create(f"guest-a{n}") for n in range(4)]
    first = await invite(service, host, "guest-a0")
    await invite(service, host, "guest-a1", "guest-a2")  # two invitations in one game: 3 open now
    before = await waiting_games(service)
    assert len(before) == 2
    with pytest.raises(errors.TooMany) as refused:
        await invite(service, host, "guest-a3")
    assert refused.value.code == "too_many_invitations" and refused.value.headers["Retry-After"]
    assert await waiting_games(service) == before  # nothing created
    await service.join(first, guests[0][1], JoinIn())  # answered: the game starts, the invitation is used
    await invite(service, host, "guest-a3")


async def test_an_invitee_receives_a_bounded_number_of_open_invitations() -> None:
    """Two open invitations of one account, from anyone: a third inviter is refused; once the invitee
    declines one, it may be invited again."""
    service = twins(invitations_per_inviter=3, invitations_per_invitee=2).lobby
    _, target = await service.accounts.create("popular")
    hosts = [(await service.accounts.create(f"host-b{n}"))[1] for n in range(3)]
    first = await invite(service, hosts[0], "popular")
    await invite(service, hosts[1], "popular")
    with pytest.raises(errors.TooMany) as refused:
        await invite(service, hosts[2], "popular")
    assert refused.value.code == "invitee_has_too_many_invitations"
    await service.decline(first, target)
    await invite(service, hosts[2], "popular")
