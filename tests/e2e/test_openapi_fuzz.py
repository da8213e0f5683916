"""Schemathesis against the real server: every operation of openapi/openapi.json, a bounded number of
generated requests each, valid and invalid by the document; no 5xx, invalid requests refused with a 4xx, and
every answer (status, content type, headers, body) matches the document.

Generated ids alone would only ever meet 404s, so each request is, half of the time, aimed at live games
(running and finished, all three games), a tournament with a seated round, known player names and games,
with a seat token of that game, another game's token or none; command bodies are then now and then a legal
command of that game (so play moves on while the fuzzer looks).
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.core.parameters import ParameterLocation
from schemathesis.core.result import Ok
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    missing_required_header,
    negative_data_rejection,
    positive_data_acceptance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)

from service.runtime.settings import PROJECT_ROOT
from tests.support.live_games import LiveGame, create_live_game, game_service, legal_body, play_until

pytestmark = [pytest.mark.e2e, pytest.mark.db]

# A request the document allows may still break a rule of the game or of the service (an unknown game, two
# equal player names, a refused command, a stale If-Match): those are 404, 409, 412 and 422, never 400, which
# says the request was malformed, i.e. the document allowed what the server refuses.
ACCEPTED = ["2xx", "401", "403", "404", "409", "412", "422", "429"]
CONFIG = SchemathesisConfig.from_dict(
    {"checks": {"positive_data_acceptance": {"expected-statuses": ACCEPTED}}}
)
SCHEMA = schemathesis.openapi.from_path(PROJECT_ROOT / "openapi" / "openapi.json", config=CONFIG)


def read_operations() -> dict[str, Any]:
    """Every operation of the committed document by label (one the loader cannot read fails collection)."""
    found: dict[str, Any] = {}
    for result in SCHEMA.get_all_operations():
        assert isinstance(result, Ok), f"schemathesis cannot read an operation: {result}"
        operation = result.ok()
        ok = operation.definition.raw.get("responses", {}).get("200", {})
        if "text/event-stream" in ok.get("content", {}):
            continue  # a live stream never ends, so a generated request would never get its answer
        found[operation.label] = operation
    return found


OPERATIONS = read_operations()
# Every check of both directions: what the document allows is accepted (or refused by a rule, see ACCEPTED),
# what it does not is refused with a 4xx.
CHECKS = [
    not_a_server_error,
    positive_data_acceptance,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
    missing_required_header,
    unsupported_method,
]
# generated requests per operation, valid and invalid mixed (45 operations: about 2,700 requests, ~90 s on two
# shared cores); FUZZ_EXAMPLES sets another bound
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "60"))


@dataclass
class Targets:
    """What the fuzzer may aim at: live games with their tokens and a legal body per game, a tournament."""

    games: list[LiveGame] = field(default_factory=list)
    legal: dict[str, list[tuple[int, dict[str, Any]]]] = field(default_factory=dict)
    tournament_id: str = ""
    organizer_token: str = ""
    tournament_tokens: list[str] = field(default_factory=list)
    player_names: list[str] = field(default_factory=list)
    # by listing: the first page's (empty), and ones that listing gave out (each listing reads only its own)
    cursors: dict[str, list[str]] = field(default_factory=dict)


@pytest.fixture(scope="session")
async def fuzz_targets(own_server: tuple[str, str]) -> Targets:
    """Games of every kind at some point of play, one finished, and a Basari tournament with round 1 seated."""
    targets = Targets()
    chooser = random.Random("openapi-fuzz")
    server, database_url = own_server
    async with game_service(database_url) as service:
        for name, players, commands in (
            ("basari", 3, 25),
            ("bazaar", 2, 40),
            ("johari", 3, 30),
            ("johari", 2, None),
        ):
            live = await create_live_game(service, name, players, f"fuzz-{name}")
            played = 0

            def enough(_loaded: Any, limit: int | None = commands) -> bool:
                nonlocal played
                played += 1
                return limit is not None and played > limit

            loaded = await play_until(service, live, chooser, stop=enough)
            targets.games.append(live)
            targets.legal[live.game_id] = [
                (p.seat, body)
                for p in loaded.game.pending(loaded.state)
                if (body := legal_body(loaded, p.seat, chooser)) is not None
            ]
    with httpx.Client(base_url=server, timeout=30) as client:
        created = client.post(
            "/v1/tournaments",
            json={
                "name": "fuzz cup",
                "game": "basari",
                "players": [{"name": f"F{i}"} for i in range(4)],
                "rounds": 2,
            },
        )
        assert created.status_code == 201, created.text
        body = created.json()
        targets.tournament_id = body["tournament_id"]
        targets.organizer_token = body["organizer_token"]
        targets.tournament_tokens = [p["token"] for p in body["players"]]
        seated = client.post(
            f"/v1/tournaments/{targets.tournament_id}/rounds",
            headers={"Authorization": f"Bearer {targets.organizer_token}"},
        )
        assert seated.status_code == 201, seated.text
    targets.player_names = [n for g in targets.games for n in g.names] + [f"F{i}" for i in range(4)]
    with httpx.Client(base_url=server, timeout=30) as client:
        page = client.get("/v1/games", params={"limit": 1}).json()
        targets.cursors["GET /v1/games"] = ["", page["next_cursor"]]
    return targets


def negated(case: Any) -> set[tuple[ParameterLocation, str | None]]:
    """Where a negative case breaks the document: (location, parameter name; None: the whole location).
    Aiming must leave those alone, or it would make the case valid and its acceptance a false failure."""
    if not case.meta.generation.mode.is_negative:
        return set()
    phase = case.meta.phase.data
    found = {(m.parameter_location, m.parameter) for m in getattr(phase, "mutations", ())}
    location = getattr(phase, "parameter_location", None)
    if location is not None:
        found.add((location, getattr(phase, "parameter", None)))
    return found


def keeps(kept: set[tuple[ParameterLocation, str | None]], location: ParameterLocation, name: str) -> bool:
    """Whether ``name`` in ``location`` is one a negative case broke (see ``negated``)."""
    return (location, name) in kept or (location, None) in kept


def aim(case: Any, data: st.DataObject, targets: Targets) -> None:
    """Half of the time point the case's ids, names and token at live things (see the module docstring),
    except what a negative case made invalid (``negated``). A valid case's listing cursor is always one the
    service gave out (the document cannot say which)."""
    kept = negated(case)
    query = case.query or {}
    if "cursor" in query and case.meta.generation.mode.is_positive:
        given_out = targets.cursors.get(case.operation.label, [""])
        query["cursor"] = data.draw(st.sampled_from(given_out), label="cursor")
    if not data.draw(st.booleans(), label="aim"):
        return
    live = data.draw(st.sampled_from(targets.games), label="game")
    path = case.path_parameters or {}
    aimed = {
        "game_id": lambda: live.game_id,
        "tournament_id": lambda: targets.tournament_id,
        "name": lambda: data.draw(st.sampled_from(targets.player_names), label="player"),
        "game": lambda: data.draw(st.sampled_from(["basari", "bazaar", "johari"]), label="game name"),
    }
    for name, target in aimed.items():
        if name in path and not keeps(kept, ParameterLocation.PATH, name):
            path[name] = target()
    tokens = [*live.tokens, targets.organizer_token, targets.tournament_tokens[0], None]
    token = data.draw(st.sampled_from(tokens), label="token")
    headers = dict(case.headers or {})
    if not keeps(kept, ParameterLocation.HEADER, "Authorization"):
        headers.pop("Authorization", None)
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
    commands = (
        case.operation.label == "POST /v1/games/{game_id}/commands"
        and targets.legal.get(live.game_id)
        and not kept  # a legal body and its seat's token would undo a negative case
    )
    if commands and data.draw(st.booleans(), label="legal body"):
        seat, body = data.draw(st.sampled_from(targets.legal[live.game_id]), label="legal")
        case.body = body
        headers["Authorization"] = f"Bearer {live.tokens[seat]}"
    case.headers = headers


@pytest.fixture
def fuzz_base(own_server: tuple[str, str], fuzz_targets: Targets) -> Iterator[tuple[str, Targets]]:
    """The server's base URL and the targets, once both are ready."""
    yield own_server[0], fuzz_targets


@pytest.mark.parametrize("label", sorted(OPERATIONS))
def test_every_operation_answers_by_the_document(label: str, fuzz_base: tuple[str, Targets]) -> None:
    """No 5xx; status codes, content types, headers and bodies as openapi/openapi.json documents them."""
    base, targets = fuzz_base
    operation = OPERATIONS[label]

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    @given(
        case=st.one_of(operation.as_strategy(), operation.as_strategy(GenerationMode.NEGATIVE)),
        data=st.data(),
    )
    def fuzz(case: Any, data: st.DataObject) -> None:
        aim(case, data, targets)
        case.call_and_validate(base_url=base, checks=CHECKS)

    fuzz()
