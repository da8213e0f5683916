"""What a viewer may not know, computed from the true state, and the checks that find it in a response.

Secrets (API.md, rules B-12, Z-15, J-18): seat and organizer tokens (outside their creation answer), the seed
of a running game, and each game's hidden information. Short numbers (card ids, noble ids) cannot be found
by substring search, so the checks are structured: hidden orders are looked for as runs inside every list
of ids of the parsed response, hidden identities as values of the keys that carry such ids, and each game's
known carriers (a view's pick, an event's pile order, an unrevealed action card) by
their place in the document.
"""

from __future__ import annotations

import base64
import csv
import io
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

# Consecutive members of a hidden order that count as leaking it: 4 of a long order, 3 of a short one.
# Public lists of ids may meet hidden ids in a row by chance (a Basari deal of an earlier stage holds cards
# reshuffled since): against a 39-card pile a window of 3 matches about 1 time in 1,500, of 4 about 1 in
# 55,000 (the walker's seeds are fixed, so a run is reproducible either way).
LONG_ORDER, LONG_RUN, SHORT_RUN = 8, 4, 3


@dataclass
class Secrets:
    """The secrets of one game for one viewer at one point of play."""

    strings: set[str] = field(default_factory=set)  # tokens, seeds: never anywhere in a body
    orders: dict[str, tuple[int, ...]] = field(default_factory=dict)  # hidden orders (top first)
    hidden_ids: dict[str, set[int]] = field(default_factory=dict)  # ids whose identity is hidden
    id_keys: frozenset[str] = frozenset()  # keys whose int values are ids of the hidden kind
    checks: list[Callable[[str, Any], Iterator[str]]] = field(default_factory=list)  # (kind, doc) -> leaks


def encodings(secret: str) -> set[str]:
    """A secret string and the usual ways a careless server could print it."""
    raw = secret.encode()
    return {
        secret,
        raw.hex(),
        base64.b64encode(raw).decode().rstrip("="),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
    }


def parse(body: str, media: str) -> Any:
    """A response body as data: JSON, NDJSON (a list of documents), CSV (rows, numbers as ints), or plain
    text (response headers) as it is."""
    if media.startswith("text/plain"):
        return body
    if media.startswith("application/x-ndjson"):
        return [json.loads(line) for line in body.splitlines() if line.strip()]
    if media.startswith("text/csv"):
        return [
            [int(cell) if cell.lstrip("-").isdigit() else cell for cell in row]
            for row in csv.reader(io.StringIO(body))
        ]
    return json.loads(body)


def walk(doc: Any) -> Iterator[Any]:
    """Every node of a document, depth first."""
    yield doc
    if isinstance(doc, dict):
        for value in doc.values():
            yield from walk(value)
    elif isinstance(doc, list):
        for value in doc:
            yield from walk(value)


def id_lists(doc: Any) -> Iterator[list[int]]:
    """Every list of ints, and every list of objects with an int ``id`` read as their ids."""
    for node in walk(doc):
        if not isinstance(node, list) or not node:
            continue
        ints = [x for x in node if isinstance(x, int) and not isinstance(x, bool)]
        if len(ints) >= 2:
            yield ints
        ids = [x["id"] for x in node if isinstance(x, dict) and isinstance(x.get("id"), int)]
        if len(ids) >= 2:
            yield ids


def contains_run(values: list[int], order: tuple[int, ...], length: int) -> bool:
    """Whether ``values`` holds ``length`` consecutive members of ``order`` in that order."""
    windows = {order[i : i + length] for i in range(len(order) - length + 1)}
    return any(tuple(values[i : i + length]) in windows for i in range(len(values) - length + 1))


def leaks(body: str, media: str, kind: str, secrets: Secrets) -> list[str]:
    """Every secret found in one response body (empty: none)."""
    found = [f"secret string {s[:12]}..." for s in secrets.strings if s in body]
    doc = parse(body, media)
    for name, order in secrets.orders.items():
        length = LONG_RUN if len(order) >= LONG_ORDER else SHORT_RUN
        if len(order) < length:
            continue  # two hidden cards: too short to tell from chance (their carriers are checked by name)
        found += [
            f"{name} order in {values}" for values in id_lists(doc) if contains_run(values, order, length)
        ]
    for name, hidden in secrets.hidden_ids.items():
        for node in walk(doc):
            if isinstance(node, dict):
                found += [
                    f"hidden {name} {node[k]} under {k!r}"
                    for k in secrets.id_keys
                    if isinstance(node.get(k), int) and node[k] in hidden
                ]
    for check in secrets.checks:
        found += list(check(kind, doc))
    return found


def events_of(kind: str, doc: Any) -> list[dict[str, Any]]:
    """The event envelopes of an events page, an NDJSON history or a command answer."""
    if kind == "events" and isinstance(doc, dict):
        return list(doc.get("events", []))
    if kind == "events" and isinstance(doc, list):
        return [e for e in doc if isinstance(e, dict)]
    if kind == "command" and isinstance(doc, dict):
        return list(doc.get("events", []))
    return []


def view_of(kind: str, doc: Any) -> dict[str, Any] | None:
    """The view in a game detail or a time-travel answer."""
    if kind in ("detail", "view") and isinstance(doc, dict):
        view = doc.get("view")
        return view if isinstance(view, dict) else None
    return None


def after_last(events: list[dict[str, Any]], event_type: str, version: int) -> list[dict[str, Any]]:
    """The events after the last one of ``event_type``, if the list reaches ``version`` (else none: a page
    that stops earlier may end in an older round)."""
    if not events or events[-1].get("version") != version:
        return []
    last = max((i for i, e in enumerate(events) if e.get("type") == event_type), default=-1)
    return events[last + 1 :]


# ----------------------------------------------------------------------------------------------- Basari


def basari_secrets(state: Any, viewer: int | None, finished: bool, version: int) -> Secrets:
    """B-12: the draw pile order; every pick of step II before the reveal (but the viewer's own)."""
    secrets = Secrets()
    if finished:
        return secrets
    secrets.orders["basari draw pile"] = tuple(state.pile)
    hidden = {
        seat: state.picks[seat]
        for seat in state.seats
        if state.phase == "choose" and not state.revealed and state.picked[seat] and seat != viewer
    }

    def check(kind: str, doc: Any) -> Iterator[str]:
        view = view_of(kind, doc)
        if view is not None and (view["stage"], view["round"]) == (state.stage, state.round):
            for player in view["players"]:
                if player["seat"] in hidden and player["action"] is not None:
                    yield f"seat {player['seat']}'s pick {player['action']} in the view"
        events = events_of(kind, doc)
        for envelope in events:
            data = envelope.get("data", {})
            if data.get("type") == "pile_shuffled" and data.get("order") is not None:
                yield "pile_shuffled.order while the game runs"
            if data.get("type") == "action_chosen" and data.get("seat") != viewer and data.get("action"):
                yield f"seat {data.get('seat')}'s pick in action_chosen"
        if hidden and any(
            e.get("type") == "actions_revealed" for e in after_last(events, "cards_dealt", version)
        ):
            yield "picks revealed before every seat picked"

    secrets.checks.append(check)
    return secrets


# ----------------------------------------------------------------------------------------------- Bazaar


def bazaar_secrets(state: Any, set_aside: tuple[int, ...], finished: bool) -> Secrets:
    """Z-15: the face-down wares of each stall (identity and order) and the unused wares."""
    secrets = Secrets()
    if finished:
        return secrets
    face_down = [stall[1:] for stall in state.stalls]
    for index, cards in enumerate(face_down):
        secrets.orders[f"bazaar stall {index} face-down"] = tuple(cards)
    secrets.hidden_ids["wares"] = {c for cards in face_down for c in cards} | set(set_aside)
    secrets.id_keys = frozenset({"ware", "revealed", "id", "solitaire_ware"})

    def check(kind: str, doc: Any) -> Iterator[str]:
        for envelope in events_of(kind, doc):
            data = envelope.get("data", {})
            if data.get("face_down") is not None or data.get("set_aside") is not None:
                yield f"{data.get('type')} with face-down or unused wares while the game runs"
        view = view_of(kind, doc)
        now = view is not None and [s["size"] for s in view["stalls"]] == [len(c) for c in state.stalls]
        if view is not None and now:  # a view of the stalls as they are now (not an earlier version's)
            for stall, cards in zip(view["stalls"], state.stalls, strict=True):
                if set(stall) != {"stall", "size", "displayed"}:
                    yield f"stall {stall['stall']} shows more than size and the displayed ware: {sorted(stall)}"
                if stall["displayed"] is not None and stall["displayed"]["id"] != cards[0]:
                    yield f"stall {stall['stall']} displays {stall['displayed']['id']}, not its top card"

    secrets.checks.append(check)
    return secrets


# ----------------------------------------------------------------------------------------------- Johari


def johari_secrets(state: Any, viewer: int | None, finished: bool, version: int) -> Secrets:
    """J-18: the draw pile and Noble stack order, and the action cards not yet revealed (Prestige Cards are
    public: every one was face up in the market when taken, J-13)."""
    secrets = Secrets()
    if finished:
        return secrets
    secrets.orders["johari draw pile"] = tuple(state.draw)
    secrets.orders["johari noble stack"] = tuple(state.noble_stack)
    secrets.hidden_ids["nobles"] = set(state.noble_stack)
    secrets.id_keys = frozenset({"noble", "entering"})
    playing = state.phase == "play"
    unrevealed = {
        seat: player.slots[state.round - 1]
        for seat, player in enumerate(state.players)
        if playing and seat != viewer and player.slots[state.round - 1] is not None
    }

    def check(kind: str, doc: Any) -> Iterator[str]:
        view = view_of(kind, doc)
        this_round = view is not None and (view["day"], view["round"]) == (state.day, state.round)
        for player in view["players"] if view is not None else []:
            seat = player["seat"]
            if seat in unrevealed and this_round:
                if player["slots"][state.round - 1] not in (None, "hidden"):
                    yield f"seat {seat}'s unrevealed card {player['slots'][state.round - 1]} in its slot"
                if player["hand"] is not None and unrevealed[seat] not in player["hand"]:
                    yield f"seat {seat}'s hand shows which card it played"
        events = events_of(kind, doc)
        for envelope in events:
            data = envelope.get("data", {})
            seat = data.get("seat")
            if data.get("type") in ("game_started", "discard_reshuffled") and (
                data.get("draw_pile") or data.get("noble_stack")
            ):
                yield f"{data['type']} with the draw pile or Noble stack while the game runs"
            if data.get("type") == "action_card_played" and seat != viewer and data.get("card") is not None:
                yield f"seat {seat}'s action card in action_card_played"
        if unrevealed and any(
            e.get("type") == "action_cards_revealed" for e in after_last(events, "round_started", version)
        ):
            yield "action cards revealed before every seat played"

    secrets.checks.append(check)
    return secrets
