"""Tournaments: registration, rounds seated as games, results recorded from the feed, standings."""
