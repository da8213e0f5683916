"""The benchmark behind `make bench` (run as ``python -m tests.bench``; no file here is collected by pytest)."""
