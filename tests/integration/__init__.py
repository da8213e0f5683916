"""Integration tests: the event store and the service against a real PostgreSQL."""
