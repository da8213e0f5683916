#!/usr/bin/env python3
"""An external bot for the bazaar games server, standard library only: the reference a bot author copies.

    python examples/bot.py --url http://127.0.0.1:8000 --name my-bot          # signs up (kind bot), then plays
    python examples/bot.py --token TOKEN --join GAME_ID                        # an existing account joins a game
    python examples/bot.py --token TOKEN --lobby basari                        # joins an open seat of a lobby game

It follows its notification stream (GET /v1/me/stream, server-sent events) instead of polling its games, and
accepts every invitation to a game it gets there (POST /v1/games/{id}/join), as a challenge is accepted.
On the snapshot and on every ``your_turn`` it reads the game (GET /v1/games/{id}: ``legal`` is every command
its seat may send now) and posts one of them, chosen at random (replace ``choose`` with your strategy), with
``If-Match`` (the version it decided on: 412 if the game moved on, then it reads again) and an
``Idempotency-Key`` naming that decision, so a retry after a lost answer never plays twice. Network errors,
429 and 503 are retried with backoff (honouring Retry-After); a dropped stream reconnects with Last-Event-ID.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import urllib.error
import urllib.request
from typing import Any

RETRIES = 6


class Server:
    """The HTTP calls the bot makes, with retries for what is worth retrying."""

    def __init__(self, url: str, token: str | None = None) -> None:
        self.url = url.rstrip("/")
        self.token = token

    def call(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        """(status, parsed JSON body); retries network errors, 429 and 5xx with backoff."""
        data = json.dumps(body).encode() if body is not None else None
        sent = {"content-type": "application/json", **(headers or {})}
        if self.token:
            sent["authorization"] = f"Bearer {self.token}"
        for attempt in range(RETRIES):
            request = urllib.request.Request(self.url + path, data=data, method=method, headers=sent)
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    return response.status, json.loads(response.read() or b"null")
            except urllib.error.HTTPError as failure:
                payload = (
                    json.loads(failure.read() or b"null")
                    if failure.headers.get_content_subtype().endswith("json")
                    else None
                )
                if failure.code in (429, 502, 503, 504) and attempt < RETRIES - 1:
                    time.sleep(float(failure.headers.get("Retry-After") or 2**attempt))
                    continue
                return failure.code, payload
            except (urllib.error.URLError, TimeoutError, ConnectionError):
                if attempt == RETRIES - 1:
                    raise
                time.sleep(2**attempt)
        raise RuntimeError("unreachable")


def decisions(game: dict[str, Any]) -> list[dict[str, Any]]:
    """The seat's decisions due now: ``legal`` without ``resign`` (listed for every seat still playing)."""
    return [command for command in game["legal"] if command["type"] != "resign"]


def choose(game: dict[str, Any]) -> dict[str, Any]:
    """The bot's strategy: here, any decision of ``legal`` at random (never resigning)."""
    return random.choice(decisions(game))


def play(server: Server, game_id: str) -> None:
    """Act in ``game_id`` while a decision of this bot's seat is due."""
    while True:
        status, game = server.call("GET", f"/v1/games/{game_id}")
        if status != 200 or game["status"] != "active" or not decisions(game):
            return
        version = game["version"]
        command = choose(game)
        headers = {"If-Match": f'"{version}"', "Idempotency-Key": f"{game_id}-v{version}"}
        status, answer = server.call("POST", f"/v1/games/{game_id}/commands", command, headers)
        if status == 200:
            print(f"{game_id}: played {command['type']} at version {version}", flush=True)
        elif status not in (409, 412):  # 409/412: the game moved on meanwhile; read it again
            print(f"{game_id}: {command} refused: {status} {answer}", file=sys.stderr, flush=True)
            return


def accept(server: Server, invitation: dict[str, Any]) -> None:
    """Take the seat an invitation reserves (a tournament invitation is left alone here)."""
    game_id = invitation.get("game_id")
    if game_id:
        status, _answer = server.call("POST", f"/v1/games/{game_id}/join", {})
        print(f"{game_id}: accepted the invitation: {status}", flush=True)


def events(server: Server, last_id: str | None) -> Any:
    """The notification stream's events as (event, id, data); ends when the connection drops."""
    headers = {"authorization": f"Bearer {server.token}", "accept": "text/event-stream"}
    if last_id:
        headers["Last-Event-ID"] = last_id
    request = urllib.request.Request(server.url + "/v1/me/stream", headers=headers)
    with urllib.request.urlopen(request, timeout=120) as response:
        event, ident, data = "message", None, []
        for raw in response:
            line = raw.decode().rstrip("\r\n")
            if not line:
                if data:
                    yield event, ident, json.loads("\n".join(data))
                event, data = "message", []
                continue
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "event":
                event = value
            elif field == "id":
                ident = value
            elif field == "data":
                data.append(value)


def follow(server: Server) -> None:
    """Play every game the stream says is due, forever; reconnect where it left off."""
    last_id = None
    backoff = 1.0
    while True:
        try:
            for event, ident, data in events(server, last_id):
                backoff = 1.0
                if ident:
                    last_id = ident
                if event == "snapshot":
                    for invitation in data["invitations"]:
                        accept(server, invitation)
                    for game in data["games"]:
                        if game["your_turn"]:
                            play(server, game["game_id"])
                elif event == "invited":
                    accept(server, data)
                elif event in ("your_turn", "seated", "round_seated"):
                    play(server, data["game_id"])
        except (urllib.error.URLError, TimeoutError, ConnectionError, json.JSONDecodeError) as failure:
            print(f"stream dropped ({failure}); reconnecting", file=sys.stderr, flush=True)
        time.sleep(backoff)
        backoff = min(30.0, backoff * 2)


def main() -> None:
    """Sign up or use a token, optionally join a game, then follow the notifications."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--name", help="sign up under this name (an account of kind bot)")
    parser.add_argument("--token", help="an existing account token instead of signing up")
    parser.add_argument("--join", help="take a seat of this lobby game first")
    parser.add_argument("--lobby", help="take an open seat of the first waiting game of this kind")
    args = parser.parse_args()
    server = Server(args.url, args.token)
    if not args.token:
        if not args.name:
            parser.error("give --name to sign up, or --token")
        status, account = server.call("POST", "/v1/accounts", {"name": args.name, "kind": "bot"})
        if status != 201:
            sys.exit(f"sign-up refused: {status} {account}")
        server.token = account["token"]
        print(f"signed up as {account['name']}; token (shown once): {account['token']}", flush=True)
    join = args.join
    if args.lobby:
        status, page = server.call("GET", f"/v1/lobby?game={args.lobby}")
        waiting = [
            g for g in (page or {}).get("games", []) if any(s["status"] == "open" for s in g.get("seats", []))
        ]
        join = waiting[0]["game_id"] if waiting else None
    if join:
        status, answer = server.call("POST", f"/v1/games/{join}/join", {})
        print(
            f"join {join}: {status} {answer.get('status') if isinstance(answer, dict) else answer}",
            flush=True,
        )
    follow(server)


if __name__ == "__main__":
    main()
