"""The NOTIFY payload of the change relay (eventstore/pgnotify.py): the primary's WAL position first, then the
stream ids; a name that could be mistaken for the position wakes everybody instead."""

from __future__ import annotations

from eventstore.pgnotify import EVERYTHING, lsn_of, parse_payload, payloads


def test_an_lsn_reads_as_its_high_and_low_halves() -> None:
    assert lsn_of("0/16B3748") == 0x16B3748
    assert lsn_of("16/B374D848") == (0x16 << 32) | 0xB374D848


def test_a_payload_gives_its_position_and_its_streams() -> None:
    assert parse_payload("@1/0\na\nb") == (1 << 32, ["a", "b"])
    assert parse_payload("@0/10\n*") == (16, [EVERYTHING])


def test_a_payload_without_a_position_names_streams_only() -> None:
    assert parse_payload("a\nb") == (0, ["a", "b"])  # as an earlier release sent it
    assert parse_payload("@not-an-lsn\na") == (0, [EVERYTHING])


def test_a_stream_named_like_a_position_wakes_everybody() -> None:
    assert payloads({"a", "@0/1"}) == [EVERYTHING]
    assert payloads({"a", "b"}) == ["a\nb"]
