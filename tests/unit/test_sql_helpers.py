"""service/runtime/sql.py: optional WHERE conditions as parameters, and rows as records."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
import pytest

from service.runtime.sql import Where, encode_json, record, records


class Row(msgspec.Struct, frozen=True):
    game_id: str
    rated: bool
    created_at: datetime
    clock: dict[str, int] | None = None


def test_values_become_numbered_parameters_and_the_text_stays_fixed() -> None:
    where = Where("g.status = 'waiting'")
    where.add_if("basari", "g.game = {}").add_if(None, "g.rated = {}").add("(g.at, g.id) < ({}, {})", 5, "x")
    assert where.sql == "WHERE g.status = 'waiting' AND g.game = $1 AND (g.at, g.id) < ($2, $3)"
    assert where.args == ["basari", 5, "x"]


def test_parameters_continue_after_the_given_ones() -> None:
    where = Where("s.account_id = $1", args=["account"]).add("s.seat = {}", 2)
    assert where.sql == "WHERE s.account_id = $1 AND s.seat = $2"
    assert where.args == ["account", 2]


def test_no_condition_is_no_where_clause() -> None:
    assert Where().add_if(None, "g.game = {}").sql == ""


def test_a_value_that_looks_like_sql_stays_a_parameter() -> None:
    where = Where().add_if("x'; DROP TABLE accounts; --", "a.name = {}")
    assert where.sql == "WHERE a.name = $1"


def test_rows_map_to_records_by_column_name() -> None:
    at = datetime(2026, 1, 2, tzinfo=UTC)
    rows = [
        {"game_id": "g1", "rated": True, "created_at": at, "extra": 1},
        {"game_id": "g2", "rated": False, "created_at": at, "clock": {"bank_seconds": 60}},
    ]
    assert records(Row, rows) == [Row("g1", True, at), Row("g2", False, at, {"bank_seconds": 60})]


def test_a_row_missing_a_required_column_is_refused() -> None:
    with pytest.raises(msgspec.ValidationError):
        record(Row, {"game_id": "g1"})


def test_jsonb_values_encode_records_and_builtins_alike() -> None:
    at = datetime(2026, 1, 2, tzinfo=UTC)
    assert (
        encode_json(Row("g", False, at))
        == '{"game_id":"g","rated":false,"created_at":"2026-01-02T00:00:00Z","clock":null}'
    )
    assert encode_json({"a": [1, "é"]}) == '{"a":[1,"é"]}'
