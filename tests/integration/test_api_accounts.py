"""Accounts over the API against a real PostgreSQL: every name rule, uniqueness after NFKC and case-folding,
token rotation and revocation, and the sign-up rate limit."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from tests.support.accounts import bearer, unlimited_client

pytestmark = pytest.mark.db


@pytest.fixture(scope="module")
async def client(database_url: str) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app wired to the test database (sign-up limit off: these tests sign up many accounts)."""
    async with unlimited_client(database_url) as test_client:
        yield test_client


def unique(prefix: str = "p") -> str:
    """A name no other test uses."""
    return f"{prefix}{uuid.uuid4().hex[:10]}"


async def sign_up(client: AsyncTestClient[Any], name: str, kind: str | None = None) -> Any:
    """POST /v1/accounts."""
    body: dict[str, Any] = {"name": name}
    if kind is not None:
        body["kind"] = kind
    return await client.post("/v1/accounts", json=body)


async def test_sign_up_shows_the_token_once_and_me_answers_with_it(client: AsyncTestClient[Any]) -> None:
    name = unique("Ana ")
    response = await sign_up(client, name)
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["name"] == name and body["kind"] == "human" and len(body["token"]) >= 40
    me = await client.get("/v1/me", headers=bearer(body["token"]))
    assert me.status_code == 200 and me.json()["name"] == name and "token" not in me.json()


async def test_a_bot_account(client: AsyncTestClient[Any]) -> None:
    response = await sign_up(client, unique("bot-"), kind="bot")
    assert response.status_code == 201 and response.json()["kind"] == "bot"
    refused = await sign_up(client, unique(), kind="admin")
    assert refused.status_code == 422 and refused.json()["code"] == "unknown_account_kind"


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("", "name_length"),
        ("x" * 41, "name_length"),
        ("a\u0000b", "name_invisible_character"),  # control
        ("a\u200bb", "name_invisible_character"),  # zero-width space (format)
        ("a\u200db", "name_invisible_character"),  # zero-width joiner
        ("a\u202eb", "name_invisible_character"),  # right-to-left override
        ("a\u3164b", "name_invisible_character"),  # Hangul filler: a "letter" that shows nothing
        ("a\tb", "name_invisible_character"),
        ("a@b", "name_characters"),
        ("a/b", "name_characters"),
        ("a😀b", "name_characters"),
        ("a\u0301b\u0301\u0301\u0301\u0301", "name_characters"),  # stacked marks
        ("ab\u0301\u0302\u0303", "name_characters"),  # three marks on one letter
        ("\u0301ab", "name_characters"),  # a mark with no letter
        (" ab", "name_spaces"),
        ("ab ", "name_spaces"),
        ("a  b", "name_spaces"),
        ("\u3000ab", "name_spaces"),  # ideographic space: NFKC makes it a leading space
    ],
)
async def test_every_name_rule_is_refused_naming_it_and_creates_nothing(
    client: AsyncTestClient[Any], name: str, code: str
) -> None:
    response = await sign_up(client, name)
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["code"] == code
    assert response.json()["detail"]


@pytest.mark.parametrize(
    "name",
    ["Zoë", "José María", "O'Brien-x".replace("'", ""), "Łukasz_99", "राम", "張偉", "a.b-c_d", "x" * 40],
)
async def test_names_of_letters_digits_spaces_and_punctuation_are_accepted(
    client: AsyncTestClient[Any], name: str
) -> None:
    name = name[:34] + uuid.uuid4().hex[:6] if len(name) < 40 else uuid.uuid4().hex[:8] + name[8:]
    response = await sign_up(client, name)
    assert response.status_code == 201, response.text


async def test_names_are_unique_after_nfkc_and_case_folding(client: AsyncTestClient[Any]) -> None:
    base = uuid.uuid4().hex[:8]
    assert (await sign_up(client, f"Straße {base}")).status_code == 201
    fullwidth = "\uff33\uff54\uff52\uff41\uff53\uff53\uff45 " + base  # NFKC makes it "Strasse"
    for twin in (f"STRASSE {base}", f"strasse {base}", fullwidth):
        response = await sign_up(client, twin)
        assert response.status_code == 409, twin
        assert response.json()["code"] == "name_taken"
    assert (await sign_up(client, "\ufb01sh " + base)).status_code == 201  # the ligature is "fi" after NFKC
    assert (await sign_up(client, f"FISH {base}")).json()["code"] == "name_taken"


async def test_rotation_stops_the_old_token_at_once(client: AsyncTestClient[Any]) -> None:
    old = (await sign_up(client, unique())).json()["token"]
    rotated = await client.post("/v1/me/token", headers=bearer(old))
    assert rotated.status_code == 200
    new = rotated.json()["token"]
    assert new != old
    assert (await client.get("/v1/me", headers=bearer(old))).status_code == 401
    assert (await client.post("/v1/me/token", headers=bearer(old))).status_code == 401
    assert (await client.get("/v1/me", headers=bearer(new))).status_code == 200


async def test_revocation_leaves_the_account_without_a_token(client: AsyncTestClient[Any]) -> None:
    token = (await sign_up(client, unique())).json()["token"]
    assert (await client.delete("/v1/me/token", headers=bearer(token))).status_code == 204
    me = await client.get("/v1/me", headers=bearer(token))
    assert me.status_code == 401 and me.json()["code"] == "unknown_token"
    assert (await client.delete("/v1/me/token", headers=bearer(token))).status_code == 401


async def test_me_without_or_with_a_made_up_token_is_401(client: AsyncTestClient[Any]) -> None:
    assert (await client.get("/v1/me")).json()["code"] == "token_required"
    assert (await client.get("/v1/me", headers=bearer("made-up"))).json()["code"] == "unknown_token"


async def test_sign_up_is_rate_limited_per_address(database_url: str) -> None:
    async with unlimited_client(database_url, signups_per_hour=3) as limited:
        answers = [(await sign_up(limited, unique())).status_code for _ in range(5)]
        assert answers == [201, 201, 201, 429, 429]
        refused = await sign_up(limited, unique())
        assert refused.headers["content-type"].startswith("application/problem+json")
        assert "retry-after" in refused.headers
        assert (await limited.get("/v1/catalog")).status_code == 200  # other endpoints are not touched


async def test_a_name_that_looks_like_an_account_s_is_taken(client: AsyncTestClient[Any]) -> None:
    """Look-alike letters of Latin, Greek and Cyrillic fold together (domain/names.py skeleton): a Greek
    omicron cannot sign up beside the built-in bot account ``strong-johari``, nor a Cyrillic a beside an
    account whose name has a Latin one."""
    lookalike = await sign_up(client, "str\u03bfng-johari")
    assert lookalike.status_code == 409 and lookalike.json()["code"] == "name_taken", lookalike.text
    assert 'looks like the account "strong-johari"' in lookalike.json()["detail"]
    base = uuid.uuid4().hex[:8]
    assert (await sign_up(client, f"alice {base}")).status_code == 201
    cyrillic = await sign_up(client, f"\u0430lice {base}")
    assert cyrillic.status_code == 409 and cyrillic.json()["code"] == "name_taken"


async def test_players_of_one_game_may_not_look_alike(client: AsyncTestClient[Any]) -> None:
    body = {"game": "johari", "players": [{"bot": "strong"}, {"name": "str\u03bfng-johari"}]}
    response = await client.post("/v1/games", json=body)
    assert response.status_code == 422 and response.json()["code"] == "duplicate_player_name", response.text
