# The two commands of the README: `make run` and `make test`. Everything else is for developers.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: run test test-fast lint openapi bench install clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

## run: set up, start the database (embedded under .data/ unless DATABASE_URL is set), migrate, serve
run: $(STAMP)
	$(PY) -m service serve

## test: set up, then the whole suite (domain, store, service, HTTP end to end) on a real PostgreSQL
test: $(STAMP)
	$(PY) -m pytest -q

## test-fast: the domain tests only (no database)
test-fast: $(STAMP)
	$(PY) -m pytest -q tests/unit tests/property

## bench: set up, then throughput against raw asyncpg / bare Litestar (BENCH_SCALE=0.25 for a quick run)
bench: $(STAMP)
	$(PY) -m tests.bench

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

openapi: $(STAMP)
	$(PY) -m api.openapi

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
