"""The house component data (JSON), shipped with the package and loaded by each game's own validator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).parent


def load_component_data(name: str) -> Any:
    """The parsed JSON of ``domain/data/<name>.json`` (validation is the game's own job)."""
    return json.loads((DATA_DIR / f"{name}.json").read_text(encoding="utf-8"))
