"""End to end: the real server on a free port, real PostgreSQL, clients posting only entries of ``legal``."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import httpx
import pytest

from tests.support.client_play import play_to_end

pytestmark = [pytest.mark.e2e, pytest.mark.db]


@pytest.mark.parametrize("players", [3, 4, 5])
async def test_basari_plays_to_the_end_over_http(http: httpx.AsyncClient, players: int) -> None:
    started = time.perf_counter()
    played = await play_to_end(http, "basari", players, seed=f"e2e-basari-{players}")
    elapsed = time.perf_counter() - started
    assert played.final["status"] == "finished"
    assert played.final["result"]["winners"]
    audit = (await http.get(f"/v1/games/{played.game_id}/audit")).json()
    assert audit["ok"], audit["problems"]
    print(
        f"basari {players}p: {played.commands} commands in {elapsed:.1f}s ({played.commands / elapsed:.0f}/s)"
    )


async def test_concurrent_games_over_http(http: httpx.AsyncClient) -> None:
    """Several clients play different games at once; every game finishes and audits clean."""
    started = time.perf_counter()
    played = await asyncio.gather(
        *(play_to_end(http, "basari", 3 + i % 3, seed=f"e2e-many-{i}") for i in range(6))
    )
    elapsed = time.perf_counter() - started
    commands = sum(p.commands for p in played)
    for game in played:
        assert (await http.get(f"/v1/games/{game.game_id}/audit")).json()["ok"]
    print(f"6 concurrent basari games: {commands} commands in {elapsed:.1f}s ({commands / elapsed:.0f}/s)")


@pytest.mark.parametrize("players", [1, 2, 4, 6])
async def test_bazaar_plays_to_the_end_over_http(http: httpx.AsyncClient, players: int) -> None:
    started = time.perf_counter()
    played = await play_to_end(http, "bazaar", players, seed=f"e2e-bazaar-{players}", prefer=("buy",))
    elapsed = time.perf_counter() - started
    assert played.final["status"] == "finished"
    assert (await http.get(f"/v1/games/{played.game_id}/audit")).json()["ok"]
    print(
        f"bazaar {players}p: {played.commands} commands in {elapsed:.1f}s ({played.commands / elapsed:.0f}/s)"
    )


async def test_bazaar_with_double_purchases_over_http(http: httpx.AsyncClient) -> None:
    """Z-11 over HTTP: a client that saves up for two wares and then buys both makes double purchases."""
    save_for_two = SaveForTwoWares()
    most_in_a_turn = []
    for attempt in range(3):  # seeded, so deterministic: the same games every run
        played = await play_to_end(
            http,
            "bazaar",
            2,
            seed=f"e2e-bazaar-double-{attempt}",
            options={"double_purchase": True},
            strategy=save_for_two,
        )
        assert played.final["status"] == "finished"
        events = (await http.get(f"/v1/games/{played.game_id}/events")).json()["events"]
        bought_per_turn: dict[int, int] = {}
        turn = 0
        for event in events:
            if event["type"] == "turn_started":
                turn = event["data"]["turn"]
            elif event["type"] == "ware_bought":
                bought_per_turn[turn] = bought_per_turn.get(turn, 0) + 1
        most_in_a_turn.append(max(bought_per_turn.values()))
        if most_in_a_turn[-1] == 2:
            break
    print(f"most wares bought in one turn, game by game: {most_in_a_turn}")
    assert most_in_a_turn[-1] == 2, "no turn had a double purchase"


@pytest.mark.parametrize("players", [2, 3, 4])
async def test_johari_plays_to_the_end_over_http(http: httpx.AsyncClient, players: int) -> None:
    started = time.perf_counter()
    played = await play_to_end(http, "johari", players, seed=f"e2e-johari-{players}")
    elapsed = time.perf_counter() - started
    assert played.final["status"] == "finished"
    assert played.final["view"]["day"] == 10
    assert (await http.get(f"/v1/games/{played.game_id}/audit")).json()["ok"]
    print(
        f"johari {players}p: {played.commands} commands in {elapsed:.1f}s ({played.commands / elapsed:.0f}/s)"
    )


class SaveForTwoWares:
    """A Bazaar client that only ever posts entries of legal, steering its stones toward two displayed wares
    at once (Z-11) and buying only when it can buy both in the same turn."""

    def __call__(self, mine: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        view, legal = mine["view"], mine["legal"]
        hand = view["players"][mine["you"]]["stones"]
        buys = [entry for entry in legal if entry["type"] == "buy"]
        if buys and view["purchases_this_turn"] > 0:
            return rng.choice(buys)
        target = self.target(view)
        if buys and target and self.deficit(hand, target) == 0:
            pair = [entry for entry in buys if entry["ware"] in target["wares"]]
            if pair:
                return pair[0]
        others = [entry for entry in legal if entry["type"] != "buy"] or legal
        if target is None or rng.random() < 0.15:
            return rng.choice(others)
        exchange = {e["index"]: e for e in view["exchange"]}

        def score(entry: dict[str, Any]) -> float:
            if entry["type"] == "trade":
                equation = exchange[entry["equation"]]
                give, take = (
                    (equation["left"], equation["right"])
                    if entry["give"] == "left"
                    else (equation["right"], equation["left"])
                )
                after = {c: hand[c] - give.get(c, 0) + take.get(c, 0) for c in hand}
                return self.deficit(after, target)
            if entry["type"] == "end_turn":
                return self.deficit(hand, target) + 0.25
            return self.deficit(hand, target) - 0.5  # a roll usually brings one stone nearer

        return min(others, key=lambda entry: (score(entry), rng.random()))

    @staticmethod
    def target(view: dict[str, Any]) -> dict[str, Any] | None:
        """The two displayed wares (from different stalls) and the stones buying both takes."""
        shown = [stall["displayed"] for stall in view["stalls"] if stall.get("displayed")]
        if len(shown) < 2:
            return None
        first, second = shown[0], shown[1]
        stones: dict[str, int] = {}
        for ware in (first, second):
            for colour, count in ware["stones"].items():
                stones[colour] = stones.get(colour, 0) + count
        return {"wares": {first["id"], second["id"]}, "stones": stones}

    @staticmethod
    def deficit(hand: dict[str, int], target: dict[str, Any]) -> int:
        """How many stones the hand lacks for the target, plus what it holds beyond it."""
        need = target["stones"]
        lacking = sum(max(0, count - hand.get(colour, 0)) for colour, count in need.items())
        surplus = sum(max(0, count - need.get(colour, 0)) for colour, count in hand.items())
        return lacking + surplus
