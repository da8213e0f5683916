#!/usr/bin/env python3
"""Follow a game's live stream to its end, standard library only: the reference a client author copies.

    python examples/follow.py --url http://127.0.0.1:8000 GAME_ID                 # as a spectator
    python examples/follow.py --url http://127.0.0.1:8000 --token TOKEN GAME_ID   # as a seat (its secrets)

GET /v1/games/{id}/stream answers server-sent events (docs/api.md, "Live streams"): a ``snapshot`` (the game
as GET /v1/games/{id} shows it, ``id:`` its version), then one event per game event (``id:`` its version),
then ``end`` once the game is over. The stream never ends by itself while the game runs, so it is read line
by line as it arrives, not as one answer (which is why the OpenAPI document lists it apart, under
``x-event-streams``). When the connection drops, the client reconnects with ``Last-Event-ID`` set to the
last ``id:`` it received and the server carries on after that version: no event is lost or told twice.
429 and 503 are retried after ``Retry-After``; 204 (the game was already over at that version) ends.

Each event is printed as one JSON line ``{"event", "id", "data"}``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

RETRIES = 8  # reconnections in a row without receiving an event, then give up


def frames(lines: Iterator[bytes]) -> Iterator[tuple[str, str | None, str]]:
    """Server-sent event frames as (event, id, data); comments (keep-alives) are skipped."""
    event, event_id, data = "message", None, list[str]()
    for raw in lines:
        line = raw.decode("utf-8").rstrip("\r\n")
        if not line:
            if data:
                yield event, event_id, "\n".join(data)
            event, event_id, data = "message", None, []
        elif line.startswith(":"):
            continue
        else:
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                event = value
            elif field == "id":
                event_id = value
            elif field == "data":
                data.append(value)


def follow(url: str, game_id: str, token: str | None, out: Any = sys.stdout) -> None:
    """Print the game's events until ``end``; reconnect after a drop from the last id received."""
    last_id: str | None = None
    failures = 0
    while failures < RETRIES:
        headers = {"accept": "text/event-stream"}
        if token:
            headers["authorization"] = f"Bearer {token}"
        if last_id is not None:
            headers["Last-Event-ID"] = last_id
        request = urllib.request.Request(f"{url.rstrip('/')}/v1/games/{game_id}/stream", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                if response.status == 204:  # over at the version we resumed from: nothing more to tell
                    return
                for event, event_id, data in frames(response):
                    failures = 0
                    if event_id is not None:
                        last_id = event_id
                    out.write(json.dumps({"event": event, "id": event_id, "data": json.loads(data)}) + "\n")
                    out.flush()
                    if event == "end":
                        return
        except urllib.error.HTTPError as failure:
            if failure.code not in (429, 502, 503, 504):
                raise SystemExit(f"{failure.code}: {failure.read().decode('utf-8', 'replace')}") from None
            time.sleep(float(failure.headers.get("Retry-After") or 1))
        except (
            OSError,
            ValueError,
            http.client.HTTPException,
        ) as failure:  # a dropped connection, a cut chunk
            print(f"stream dropped ({failure}); resuming after {last_id}", file=sys.stderr)
        failures += 1
        time.sleep(min(0.1 * 2**failures, 5))
    raise SystemExit(f"gave up after {RETRIES} failed connections")


def main() -> None:
    """Parse the command line and follow the game."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game_id")
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--token", help="a seat's (or an account's) token; none: a spectator")
    arguments = parser.parse_args()
    follow(arguments.url, arguments.game_id, arguments.token)


if __name__ == "__main__":
    main()
