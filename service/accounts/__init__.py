"""Accounts: one identity and bearer token per player or bot, and the seats accounts hold."""
