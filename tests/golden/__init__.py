"""Recorded playthroughs (golden files): seeded games with every seat's view and legal commands per step."""
