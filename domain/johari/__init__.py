"""Johari (rules/johari.md, J-1..J-19) as a pure decider: ``GAME`` declares it for the service."""

from domain.johari.game import GAME, JohariOptions

__all__ = ["GAME", "JohariOptions"]
