"""Johari (rules/johari.md, J-1..J-19) as a pure decider: ``GAME`` satisfies ``domain.core.Game``."""

from domain.johari.game import GAME, JohariGame, JohariOptions

__all__ = ["GAME", "JohariGame", "JohariOptions"]
