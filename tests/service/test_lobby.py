"""The lobby on the in-memory repositories, no database: creation, joining, leaving, declining and the start,
each refusal answered as the service error of its kind (service/lobby/lobby.py over domain/lobby.py)."""

from __future__ import annotations

import asyncio

import pytest

from service.accounts.accounts import Account
from service.games.schemas import CreateGame, PlayerIn
from service.lobby.schemas import JoinIn
from service.runtime import errors
from tests.support.twins import World


async def signed_up(world: World, name: str) -> tuple[Account, str]:
    return await world.accounts.create(name)


def johari(*players: PlayerIn, rated: bool = False, seed: str | None = None) -> CreateGame:
    return CreateGame(game="johari", players=list(players), rated=rated, seed=seed)


async def test_a_game_waits_for_its_open_seat_and_starts_when_it_is_taken(world: World) -> None:
    (ada, ada_token), (bo, bo_token) = await signed_up(world, "Ada"), await signed_up(world, "Bo")
    created = await world.lobby.create(
        johari(PlayerIn(account="me"), PlayerIn(open=True), rated=True), ada_token
    )
    assert (created.status, created.version) == ("waiting", 0)
    assert [(s.seat, s.name, s.account, s.open) for s in created.seats] == [
        (0, "Ada", "Ada", False),
        (1, None, None, True),
    ]
    page = await world.lobby.waiting("johari", None, True, None, 10)
    assert [game.game_id for game in page.games] == [created.game_id]
    assert page.games[0].seed_commitment == created.seed_commitment
    assert page.games[0].clock is not None  # a rated game is always timed
    joined = await world.lobby.join(created.game_id, bo_token, JoinIn(entropy="bo's"))
    assert joined.status == "started"
    assert [(s.seat, s.status, s.name) for s in joined.seats] == [(0, "taken", "Ada"), (1, "taken", "Bo")]
    assert await world.games.loader.seat_of(created.game_id, bo_token) == 1  # the account's token acts for it
    mine = await world.lobby.my_games(ada_token, None, 10)
    assert [(g.game_id, g.seat, g.status, g.rated) for g in mine.games] == [
        (created.game_id, 0, "active", True)
    ]
    assert (await world.lobby.waiting("johari", None, None, None, 10)).games == []
    assert bo.account_id in (await world.accounts.game_accounts(created.game_id))
    assert ada.account_id == (await world.accounts.game_accounts(created.game_id))[0]


async def test_joins_racing_for_the_last_seat_seat_one_account(world: World) -> None:
    _, ada_token = await signed_up(world, "Ada")
    racers = [await signed_up(world, f"Racer {n}") for n in range(3)]
    created = await world.lobby.create(johari(PlayerIn(account="me"), PlayerIn(open=True)), ada_token)

    async def join(token: str) -> str:
        try:
            await world.lobby.join(created.game_id, token, JoinIn())
        except errors.Conflict as conflict:
            return conflict.code
        return "seated"

    outcomes = await asyncio.gather(*(join(token) for _, token in racers))
    assert sorted(outcomes) == ["game_started", "game_started", "seated"]
    game = await world.lobby.lobby_game(created.game_id)
    assert game.status == "started"


async def test_the_seat_rules_refusals_answer_as_errors_of_their_kind(world: World) -> None:
    _, ada_token = await signed_up(world, "Ada")
    _, bo_token = await signed_up(world, "Bo")
    await signed_up(world, "Cy")
    with pytest.raises(errors.RuleViolation) as rule:
        await world.lobby.create(johari(PlayerIn(account="me"), PlayerIn(name="Hot"), rated=True), ada_token)
    assert rule.value.code == "rated_needs_accounts"
    with pytest.raises(errors.Malformed) as malformed:
        await world.lobby.create(johari(PlayerIn(account="me"), PlayerIn(open=True), seed=""), ada_token)
    assert malformed.value.code == "bad_seed"
    with pytest.raises(errors.RuleViolation) as rule:
        await world.lobby.create(johari(PlayerIn(account="me"), PlayerIn(invite="Nobody")), ada_token)
    assert (rule.value.code, rule.value.detail) == ("unknown_account", 'no account called "Nobody"')
    created = await world.lobby.create(johari(PlayerIn(account="me"), PlayerIn(invite="Cy")), ada_token)
    with pytest.raises(errors.Conflict) as conflict:
        await world.lobby.join(created.game_id, ada_token, JoinIn())
    assert conflict.value.code == "already_seated"
    with pytest.raises(errors.Forbidden) as forbidden:
        await world.lobby.join(created.game_id, bo_token, JoinIn(seat=1))
    assert forbidden.value.code == "seat_reserved"
    with pytest.raises(errors.Malformed) as malformed:
        await world.lobby.join(created.game_id, bo_token, JoinIn(entropy="x" * 129))
    assert malformed.value.code == "bad_entropy"
    with pytest.raises(errors.NotFound):
        await world.lobby.join("no-such-game", bo_token, JoinIn())
    with pytest.raises(errors.Unauthorized):
        await world.lobby.join(created.game_id, None, JoinIn())


async def test_leaving_gives_the_seat_back_and_the_creator_leaving_cancels(world: World) -> None:
    _, ada_token = await signed_up(world, "Ada")
    _, bo_token = await signed_up(world, "Bo")
    created = await world.lobby.create(
        johari(PlayerIn(account="me"), PlayerIn(open=True), PlayerIn(open=True)), ada_token
    )
    await world.lobby.join(created.game_id, bo_token, JoinIn(seat=2))
    left = await world.lobby.leave(created.game_id, bo_token)
    assert [s.status for s in left.seats] == ["taken", "open", "open"]
    with pytest.raises(errors.Conflict) as conflict:
        await world.lobby.leave(created.game_id, bo_token)
    assert conflict.value.code == "not_seated"
    cancelled = await world.lobby.leave(created.game_id, ada_token)
    assert cancelled.status == "cancelled"
    with pytest.raises(errors.Conflict) as conflict:
        await world.lobby.join(created.game_id, bo_token, JoinIn())
    assert conflict.value.code == "game_cancelled"


async def test_declining_an_invitation_cancels_the_game(world: World) -> None:
    _, ada_token = await signed_up(world, "Ada")
    _, bo_token = await signed_up(world, "Bo")
    _, cy_token = await signed_up(world, "Cy")
    created = await world.lobby.create(johari(PlayerIn(account="me"), PlayerIn(invite="Bo")), ada_token)
    with pytest.raises(errors.Conflict) as conflict:
        await world.lobby.decline(created.game_id, cy_token)
    assert conflict.value.code == "not_invited"
    declined = await world.lobby.decline(created.game_id, bo_token)
    assert declined.status == "cancelled"
    mine = await world.lobby.my_games(bo_token, None, 10)
    assert [(g.seat, g.invited, g.status) for g in mine.games] == [(1, True, "cancelled")]


async def test_open_invitations_are_bounded_for_the_inviter_and_the_invitee(world: World) -> None:
    _, ada_token = await signed_up(world, "Ada")
    await signed_up(world, "Bo")
    await signed_up(world, "Cy")
    await world.lobby.create(johari(PlayerIn(account="me"), PlayerIn(invite="Bo")), ada_token)
    with pytest.raises(errors.TooMany) as too_many:
        await world.lobby.create(johari(PlayerIn(account="me"), PlayerIn(invite="Bo")), ada_token)
    assert too_many.value.code == "invitee_has_too_many_invitations"
    await world.lobby.create(johari(PlayerIn(account="me"), PlayerIn(invite="Cy")), ada_token)
    await signed_up(world, "Di")
    with pytest.raises(errors.TooMany) as too_many:
        await world.lobby.create(johari(PlayerIn(account="me"), PlayerIn(invite="Di")), ada_token)
    assert too_many.value.code == "too_many_invitations"


async def test_a_server_bot_takes_its_seat_at_once_and_only_the_creator_seats_one_later(world: World) -> None:
    _, ada_token = await signed_up(world, "Ada")
    _, bo_token = await signed_up(world, "Bo")
    started = await world.lobby.create(johari(PlayerIn(account="me"), PlayerIn(bot="strong")), ada_token)
    assert started.status != "waiting"
    assert [s.account for s in started.seats] == ["Ada", "strong-johari"]
    assert (await world.lobby.lobby_game(started.game_id)).status == "started"
    created = await world.lobby.create(johari(PlayerIn(account="me"), PlayerIn(open=True)), ada_token)
    with pytest.raises(errors.Forbidden) as forbidden:
        await world.lobby.join(created.game_id, bo_token, JoinIn(bot="greedy"))
    assert forbidden.value.code == "not_creator"
    with pytest.raises(errors.RuleViolation) as rule:
        await world.lobby.join(created.game_id, ada_token, JoinIn(bot="greedy", entropy="e"))
    assert rule.value.code == "bad_entropy"
    joined = await world.lobby.join(created.game_id, ada_token, JoinIn(bot="greedy"))
    assert (joined.status, joined.seats[1].name) == ("started", "greedy-johari")


async def test_a_start_cut_short_is_finished_by_the_next_read(world: World) -> None:
    _, ada_token = await signed_up(world, "Ada")
    _, bo_token = await signed_up(world, "Bo")
    created = await world.lobby.create(johari(PlayerIn(account="me"), PlayerIn(open=True)), ada_token)
    original_start = world.lobby.start
    calls: list[str] = []

    async def crashed(game_id: str) -> None:
        calls.append(game_id)  # the join's transaction committed; the process died before the start

    world.lobby.start = crashed  # type: ignore[method-assign]
    joined = await world.lobby.join(created.game_id, bo_token, JoinIn())
    assert joined.status == "starting" and set(calls) == {created.game_id}
    world.lobby.start = original_start  # type: ignore[method-assign]
    assert (await world.lobby.lobby_game(created.game_id)).status == "started"
    assert await world.lobby.start(created.game_id) is None  # started once
