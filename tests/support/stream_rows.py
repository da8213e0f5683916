"""Counting the stream rows a store is asked for (its ``stream_info``), the reads a reader may skip."""

from __future__ import annotations

from typing import Any


def count_stream_rows(store: Any) -> list[str]:
    """From now on, the id of every stream whose row ``store`` is asked for, in order (the real reads)."""
    asked: list[str] = []
    stream_info = store.stream_info

    async def counted(stream_id: str) -> Any:
        asked.append(stream_id)
        return await stream_info(stream_id)

    store.stream_info = counted
    return asked
