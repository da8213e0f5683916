"""The service on several hosts and an HA PostgreSQL (docs/operations.md), each check on the one cluster of
tests/cluster/conftest.py, in this order (the later ones change the cluster): spectators on every host,
background decisions across hosts, an app host killed, reads from replicas after one's own writes, the
primary's host crashed, a lossy failover. Each records its figures (conftest.figure) before its verdict.

Run with ``make cluster-test`` (root: it builds network namespaces); not part of ``make test``.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections import Counter

import asyncpg
import httpx

from tests.cluster.conftest import figure
from tests.cluster.network import set_link
from tests.cluster.nodes import APP_PORT, APPS, NODES, Cluster
from tests.cluster.play import (
    Burst,
    Spectator,
    connect,
    create_game,
    fetch,
    lost_acks,
    stored_hashes,
    wait_until,
)

GAMES_IN_BURST = 12  # games played at once by a burst's players (each a sequence of johari games)


def superuser(cluster: Cluster) -> str:
    """The superuser's URL through HAProxy's primary frontend (the checks read the store directly)."""
    return cluster.url("postgres")


async def stored_versions(cluster: Cluster, game_ids: list[str]) -> dict[str, int]:
    """Each game's version in the store."""
    rows = await fetch(
        superuser(cluster),
        "SELECT stream_id, version FROM streams WHERE stream_id = ANY($1::text[])",
        game_ids,
    )
    return {row["stream_id"]: row["version"] for row in rows}


def summary(ledger_acks: int, lost: int, retried: Counter[str]) -> str:
    """acknowledged / lost / retried attempts by cause, for a figure line."""
    causes = ", ".join(f"{cause} {count}" for cause, count in retried.most_common()) or "none"
    return f"acknowledged {ledger_acks}, lost {lost}, attempts retried: {causes}"


async def test_a_every_spectator_stream_on_every_host_gets_every_version_exactly_once(
    cluster: Cluster,
) -> None:
    """Streams on each host, the games played through the balancer on all hosts: each stream shows every
    version after its snapshot once, in order, up to the stored version."""
    followed = 6
    clients = [httpx.AsyncClient(timeout=httpx.Timeout(60.0)) for _ in APPS]
    spectators: list[Spectator] = []
    try:
        async with Burst(cluster.http, games=followed) as burst:
            await wait_until("the burst's first games", lambda: len(burst.ledger.games) >= followed)
            for game_id in sorted(burst.ledger.games)[:followed]:
                for app, client in zip(APPS, clients, strict=True):
                    spectator = Spectator(f"{app.front}:{APP_PORT}", game_id)
                    spectator.task = asyncio.create_task(spectator.follow(client))
                    spectators.append(spectator)
            await wait_until(
                "every stream's snapshot", lambda: all(s.snapshot is not None for s in spectators)
            )
            await burst.acks(len(burst.ledger.acks) + 150)
        stored = await stored_versions(cluster, sorted({s.game_id for s in spectators}))
        await wait_until(
            "every stream to reach its game's stored version",
            lambda: all(s.ended or s.last >= stored[s.game_id] for s in spectators),
            seconds=60,
        )
    finally:
        for spectator in spectators:
            if spectator.task is not None:
                spectator.task.cancel()
        await asyncio.gather(*(s.task for s in spectators if s.task), return_exceptions=True)
        for client in clients:
            await client.aclose()
    faults = {f"{s.host} {s.game_id}": s.fault(stored[s.game_id]) for s in spectators}
    faults = {where: fault for where, fault in faults.items() if fault}
    delivered = sum(len(s.ids) for s in spectators)
    figure(
        f"a. {len(spectators)} streams on {len(APPS)} hosts delivered {delivered} events, {len(faults)} faulty"
    )
    assert not faults, f"streams that missed or repeated versions: {faults}"
    assert delivered > 0, "no stream delivered any event: the burst did not play the followed games"


async def wait_finished(cluster: Cluster, game_ids: list[str], seconds: float) -> None:
    """Wait until every game is finished in the store."""
    done: set[str] = set()

    async def check() -> None:
        rows = await fetch(
            superuser(cluster),
            "SELECT stream_id FROM streams WHERE stream_id = ANY($1::text[]) AND status = 'finished'",
            game_ids,
        )
        done.update(row["stream_id"] for row in rows)

    deadline = time.monotonic() + seconds
    while True:
        await check()
        if len(done) == len(game_ids):
            return
        assert time.monotonic() < deadline, f"{len(game_ids) - len(done)} games never finished"
        await asyncio.sleep(0.5)


def logged(cluster: Cluster, event: str, game_ids: set[str]) -> Counter[str]:
    """How many times each app host logged ``event`` for one of ``game_ids``."""
    counts: Counter[str] = Counter()
    for app in APPS:
        counts[app.name] += sum(
            1
            for line in cluster.log_lines(app.name)
            if line.get("event") == event and line.get("game_id") in game_ids
        )
    return counts


async def test_b_timeouts_and_bot_moves_are_decided_once_across_hosts(cluster: Cluster) -> None:
    """Every host runs a bot runner and a clock scheduler, all woken by every append: each bot move and each
    timeout is claimed by one host, computed there and appended once. A decision computed by a second host
    would be refused by the store and logged (``bot_move_refused``, ``timeout_refused``)."""
    async with httpx.AsyncClient(base_url=cluster.http, timeout=30) as client:
        bot_games, timed_games = [], []
        for n in range(2):
            # games of bots only need an account (at most BOT_GAMES_PER_ACCOUNT, 3, running each)
            account = await client.post(
                "/v1/accounts", json={"name": f"bot-owner-{uuid.uuid4().hex[:8]}-{n}"}
            )
            assert account.status_code == 201, account.text
            owner = {"Authorization": f"Bearer {account.json()['token']}"}
            for _ in range(2):
                response = await client.post(
                    "/v1/games",
                    json={"game": "johari", "players": [{"bot": "random"}, {"bot": "random"}]},
                    headers=owner,
                )
                assert response.status_code == 201, response.text
                bot_games.append(response.json()["game_id"])
        for _ in range(4):
            # nobody moves: each decision times out after 1 s, the second timeout of a seat resigns it
            response = await client.post(
                "/v1/games",
                json={
                    "game": "johari",
                    "players": [{"name": "a"}, {"name": "b"}],
                    "clock": {"decision_seconds": 1, "max_timeouts": 2},
                },
            )
            assert response.status_code == 201, response.text
            timed_games.append(response.json()["game_id"])
    await wait_finished(cluster, bot_games + timed_games, seconds=300)
    # each accepted timeout and bot move stores its command's idempotency record (service/workers/timeouts.py,
    # service/workers/bots.py): "<seat>:clock-v<version>-s<seat>", "<seat>:bot-v<version>"
    count = "SELECT count(*) FROM commands WHERE stream_id = ANY($1::text[]) AND command_id LIKE $2"
    stored_timeouts = (await fetch(superuser(cluster), count, timed_games, "%:clock-v%"))[0][0]
    bot_moves = (await fetch(superuser(cluster), count, bot_games, "%:bot-v%"))[0][0]
    timed_out = logged(cluster, "seat_timed_out", set(timed_games))
    refused_timeouts = logged(cluster, "timeout_refused", set(timed_games))
    refused_bots = logged(cluster, "bot_move_refused", set(bot_games))
    figure(
        f"b. {bot_moves} bot moves in {len(bot_games)} games, refused {sum(refused_bots.values())};"
        f" {stored_timeouts} timeouts stored, appended by host {dict(timed_out)},"
        f" refused {sum(refused_timeouts.values())}"
    )
    assert bot_moves > 0, "the bots made no move"
    assert not sum(refused_bots.values()), (
        f"bot moves decided by two hosts (refused on append): {refused_bots}"
    )
    assert not sum(refused_timeouts.values()), f"timeouts decided by two hosts: {refused_timeouts}"
    assert sum(timed_out.values()) == stored_timeouts, (
        f"timeouts appended ({dict(timed_out)}) differ from the timeouts stored ({stored_timeouts})"
    )


async def test_c_killing_an_app_host_mid_burst_loses_no_acknowledged_command(cluster: Cluster) -> None:
    """kill -9 an app host while commands flow through the balancer: every acknowledged command is stored."""
    victim = APPS[0]
    async with Burst(cluster.http, games=GAMES_IN_BURST) as burst:
        await burst.acks(100)
        served = sum(
            1 for line in cluster.log_lines(victim.name) if str(line.get("path", "")).endswith("/commands")
        )
        killed_at = time.monotonic()
        cluster.crash(victim)
        await wait_until(
            "commands acknowledged after the kill", lambda: len(burst.ledger.acked_after(killed_at)) >= 100
        )
    lost = await lost_acks(superuser(cluster), burst.ledger.acks)
    figure(
        f"c. {victim.name} killed after serving {served} commands of the burst:"
        f" {summary(len(burst.ledger.acks), len(lost), burst.ledger.retried)}"
    )
    cluster.start_app(victim)
    await asyncio.to_thread(cluster.wait_ready, victim)
    assert served > 0, f"{victim.name} served no command before it was killed: the check proved nothing"
    assert not lost, f"acknowledged commands not stored: {lost[:10]}"
    assert not burst.ledger.refused, f"commands refused: {burst.ledger.refused}"
    assert burst.ledger.unanswered == 0, f"{burst.ledger.unanswered} commands never answered"


async def play_reading_own_writes(
    client: httpx.AsyncClient, commands: int, stale: list[str], reads: list[int]
) -> None:
    """Play one game through the balancer, each step reading the game with ``min_version`` = the version of
    this client's own last command (read-your-writes); a read older than it is recorded in ``stale``."""
    created = await create_game(client, {"game": "johari", "players": [{"name": "a"}, {"name": "b"}]})
    game_id, tokens = created["game_id"], [seat["token"] for seat in created["seats"]]
    chooser = random.Random(game_id)
    last = created["version"]
    for _ in range(commands):
        public = await client.get(f"/v1/games/{game_id}", params={"min_version": last})
        assert public.status_code == 200, f"read after own write: {public.status_code} {public.text}"
        reads.append(public.json()["version"])
        if public.json()["version"] < last:
            stale.append(f"{game_id}: read {public.json()['version']} after writing {last}")
        if public.json()["status"] == "finished":
            return
        seat = chooser.choice(public.json()["pending"])["seat"]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        mine = await client.get(f"/v1/games/{game_id}", params={"min_version": last}, headers=auth)
        assert mine.status_code == 200, f"read after own write: {mine.status_code} {mine.text}"
        if mine.json()["version"] < last:
            stale.append(f"{game_id} seat {seat}: read {mine.json()['version']} after writing {last}")
        legal = [entry for entry in mine.json()["legal"] if entry["type"] != "resign"]
        posted = await client.post(f"/v1/games/{game_id}/commands", json=chooser.choice(legal), headers=auth)
        assert posted.status_code == 200, posted.text
        last = posted.json()["version"]


async def standby_transactions(cluster: Cluster) -> int:
    """Transactions run on the games database of every standby so far (reads served by replicas)."""
    total = 0
    for node in NODES:
        try:
            connection = await asyncpg.connect(
                cluster.url("postgres", host=node.front, port=5432, attributes="standby"), timeout=5
            )
        except (OSError, asyncpg.PostgresError, asyncpg.TargetServerAttributeNotMatched):
            continue  # the primary (or a node that is down)
        try:
            total += await connection.fetchval(
                "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = 'games'"
            )
        finally:
            await connection.close()
    return total


async def test_f_reads_from_replicas_never_show_a_version_older_than_the_clients_own_last_write(
    cluster: Cluster,
) -> None:
    """READ_DATABASE_URL is HAProxy's standby frontend (the synchronous standby and the read replica): every
    read with the client's own last version as ``min_version`` answers that version or a later one, and the
    standbys served reads; the replicas' replay lag is sampled on the primary meanwhile."""
    lag_ms: list[float] = []
    stop = asyncio.Event()

    async def sample_lag() -> None:
        connection = await connect(superuser(cluster))
        try:
            while not stop.is_set():
                rows = await connection.fetch(
                    "SELECT extract(epoch FROM replay_lag) * 1000 AS ms FROM pg_stat_replication"
                    " WHERE replay_lag IS NOT NULL"
                )
                lag_ms.extend(float(row["ms"]) for row in rows)
                await asyncio.sleep(0.1)
        finally:
            await connection.close()

    before = await standby_transactions(cluster)
    sampler = asyncio.create_task(sample_lag())
    stale: list[str] = []
    reads: list[int] = []
    try:
        async with httpx.AsyncClient(base_url=cluster.http, timeout=30) as client:
            await asyncio.gather(
                *(play_reading_own_writes(client, 40, stale, reads) for _ in range(GAMES_IN_BURST))
            )
    finally:
        stop.set()
        await sampler
    served_by_standbys = await standby_transactions(cluster) - before
    lag_ms.sort()
    p99 = lag_ms[int(len(lag_ms) * 0.99)] if lag_ms else 0.0
    figure(
        f"f. {len(reads)} reads after own writes, {len(stale)} older than the write;"
        f" {served_by_standbys} transactions on the standbys; replay lag p99 {p99:.1f} ms"
        f" ({len(lag_ms)} samples, max {lag_ms[-1] if lag_ms else 0.0:.1f} ms)"
    )
    assert not stale, f"reads older than the client's own last write: {stale[:10]}"
    assert served_by_standbys > len(reads) / 2, (
        f"the standbys ran {served_by_standbys} transactions for {len(reads)} reads: reads did not go to replicas"
    )


async def test_d_crashing_the_primary_loses_no_acknowledged_command_and_writes_resume(
    cluster: Cluster,
) -> None:
    """kill -9 every process of the primary's host mid-burst: the synchronous standby takes over, no
    acknowledged command is lost, writes resume within 30 s; the old primary then rejoins as a standby."""
    primary, standby = await asyncio.to_thread(cluster.wait_synchronous)
    async with Burst(cluster.http, games=GAMES_IN_BURST) as burst:
        await burst.acks(100)
        crashed_at = time.monotonic()
        cluster.crash(primary)
        await wait_until("a write after the crash", lambda: burst.ledger.acked_after(crashed_at), seconds=120)
        resumed = min(ack.answered_at for ack in burst.ledger.acked_after(crashed_at)) - crashed_at
        await wait_until("more writes", lambda: len(burst.ledger.acked_after(crashed_at)) >= 100)
    lost = await lost_acks(superuser(cluster), burst.ledger.acks)
    new_leader = cluster.leader()
    figure(
        f"d. primary {primary.name} crashed, {new_leader and new_leader.name} leads; writes resumed after"
        f" {resumed:.1f} s; {summary(len(burst.ledger.acks), len(lost), burst.ledger.retried)};"
        f" 503s by who answered: {dict(burst.ledger.unavailable)}"
    )
    rejoin_started = time.monotonic()
    cluster.start_patroni(primary)
    await asyncio.to_thread(cluster.wait_synchronous)
    figure(
        f"d. {primary.name} rejoined as the synchronous standby in {time.monotonic() - rejoin_started:.1f} s"
    )
    assert new_leader == standby, f"the synchronous standby {standby.name} should lead, not {new_leader}"
    assert not lost, f"acknowledged commands lost in the failover: {lost[:10]}"
    assert resumed <= 30, f"writes resumed only {resumed:.1f} s after the crash (more than 30 s)"
    assert not burst.ledger.unavailable["without Retry-After"], (
        f"503 answers without Retry-After during the failover: {dict(burst.ledger.unavailable)}"
    )
    assert not burst.ledger.refused, f"commands refused: {burst.ledger.refused}"
    assert burst.ledger.unanswered == 0, f"{burst.ledger.unanswered} commands never answered"


async def served_heads(game_ids: list[str]) -> dict[tuple[str, str], tuple[int, str]]:
    """Each app host's (version, signed head hash) of each game, read from the host directly."""
    served: dict[tuple[str, str], tuple[int, str]] = {}
    async with httpx.AsyncClient(timeout=30) as client:
        for app in APPS:
            for game_id in game_ids:
                response = await client.get(f"http://{app.front}:{APP_PORT}/v1/games/{game_id}")
                assert response.status_code == 200, (
                    f"{app.name} {game_id}: {response.status_code} {response.text}"
                )
                detail = response.json()
                served[(app.name, game_id)] = (detail["version"], detail["head"]["head_hash"])
    return served


async def test_e_after_a_lossy_failover_no_game_is_served_at_a_vanished_version(cluster: Cluster) -> None:
    """Asynchronous replication, the standby cut off from the primary's WAL, the primary crashed: the
    standby takes over without the last commits. Every host then serves every game at a version the store
    holds, with the store's hash (no cached state from the lost history), and accepts commands on them."""
    primary, standby = await asyncio.to_thread(cluster.wait_synchronous)
    cluster.patch_dcs({"synchronous_mode": False, "maximum_lag_on_failover": 1 << 40})

    async def asynchronous() -> bool:
        states = await fetch(superuser(cluster), "SELECT sync_state FROM pg_stat_replication")
        return bool(states) and all(row["sync_state"] == "async" for row in states)

    deadline = time.monotonic() + 60
    while not await asynchronous():
        assert time.monotonic() < deadline, "the standby never became asynchronous"
        await asyncio.sleep(0.2)
    async with Burst(cluster.http, games=GAMES_IN_BURST) as burst:
        await burst.acks(50)
        set_link(primary, "r", up=False)  # the standby receives no more WAL: it lags from here
        unplugged_at = time.monotonic()
        await wait_until(
            "commands acknowledged in the lag window",
            lambda: len(burst.ledger.acked_after(unplugged_at)) >= 100,
        )
        crashed_at = time.monotonic()
        cluster.crash(primary)
        await wait_until("a write after the crash", lambda: burst.ledger.acked_after(crashed_at), seconds=120)
        resumed = min(ack.answered_at for ack in burst.ledger.acked_after(crashed_at)) - crashed_at
        await wait_until("more writes", lambda: len(burst.ledger.acked_after(crashed_at)) >= 100)
    in_window = [ack for ack in burst.ledger.acks if unplugged_at < ack.sent_at < crashed_at]
    lost = await lost_acks(superuser(cluster), [ack for ack in burst.ledger.acks if ack.sent_at < crashed_at])
    games = sorted(burst.ledger.games)
    served = await served_heads(games)
    stored = await stored_hashes(superuser(cluster), set(games))
    vanished = {
        f"{host} {game_id}": version
        for (host, game_id), (version, head) in served.items()
        if stored.get((game_id, version)) != head
    }
    # expected after a lossy failover: a client's last write is gone (409 version_not_reached on its read),
    # or a command it sends again was decided on the older stored state (422)
    refused = {
        cause: n
        for cause, n in burst.ledger.refused.items()
        if not cause.startswith("422") and cause != "409 version_not_reached"
    }
    figure(
        f"e. asynchronous failover to {standby.name} after {resumed:.1f} s: {len(in_window)} commands acknowledged"
        f" in the lag window, {len(lost)} of them lost (expected: the risk of asynchronous replication);"
        f" {len(served)} (host, game) pairs served, {len(vanished)} at a vanished version"
    )
    assert lost, (
        "the asynchronous failover lost nothing: the standby did not lag, the scenario proved nothing"
    )
    assert not vanished, f"games served at versions the store no longer holds: {vanished}"
    assert not refused, f"commands refused after the lossy failover (a stale cached state?): {refused}"
