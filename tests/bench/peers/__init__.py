"""`python -m tests.bench.peers`: this service side by side with peers doing the same job (docs/performance.md)."""
