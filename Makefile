# The two commands of the README: `make run` and `make test`. Everything else is for developers.
# `make run` installs only what serving needs; `make test` (and lint, bench, openapi) adds the dev extras.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
SERVE_STAMP := $(VENV)/.serve-stamp
STAMP  := $(VENV)/.installed-stamp

.PHONY: run test test-fast lint openapi golden screenshots bench cluster-test install install-serve generators clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# serving: the package and its runtime dependencies only (nothing to do when the dev install is current)
$(SERVE_STAMP): pyproject.toml | $(VENV)/bin/python
	test $(STAMP) -nt pyproject.toml || $(PY) -m pip install --quiet -e .
	touch $(SERVE_STAMP)

# developing: the package with the dev extras (tests, linters, generators' Python side, profilers)
$(STAMP): pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(SERVE_STAMP) $(STAMP)

install-serve: $(SERVE_STAMP)

install: $(STAMP)

## run: set up, start the database (embedded under .data/ unless DATABASE_URL is set), migrate, serve
run: $(SERVE_STAMP)
	$(PY) -m service serve

## test: set up with the dev extras, then the whole suite (domain, store, service, HTTP end to end) on a real PostgreSQL,
## in TEST_WORKERS processes (pytest-xdist; each starts its own embedded PostgreSQL). Most of the suite waits on
## servers, browsers and clocks rather than computing: two processes on two cores take 7 minutes instead of 17.
## With DATABASE_URL set, one: the tests' databases then share a server, whose transaction ids (and so the
## feed's horizon, docs/operations.md) are server-wide, and one process's open transactions
## would hold back the feeds another's tests wait on.
TEST_WORKERS ?= $(if $(DATABASE_URL),0,2)
test: $(STAMP)
	$(PY) -m pytest -q -n $(TEST_WORKERS)

## test-fast: every test that needs no database (tests/conftest.py marks the others `db`), on every core
test-fast: $(STAMP)
	$(PY) -m pytest -q -n auto -m "not db"

## bench: set up, then throughput against raw asyncpg / bare Litestar, then bots against random and strong's think time, then a person's wait for a bot while 20 bot-only games run, then timeout lateness (two processes), then this service against boardgame.io and the eventsourcing library (tests/bench/peers; npm) (BENCH_SCALE=0.25 for a quick run)
bench: $(STAMP)
	$(PY) -m tests.bench
	$(PY) -m tests.bench.bots
	$(PY) -m tests.bench.bot_turns
	$(PY) -m tests.bench.clocks
	$(PY) -m tests.bench.peers
	$(PY) -m tests.bench.mixed

## cluster-test: (as root) etcd, two PostgreSQL nodes under Patroni, HAProxy and three app hosts in network namespaces, then an app host killed, the primary crashed and a lossy failover (tests/cluster, docs/operations.md)
cluster-test: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider tests/cluster

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

openapi: $(STAMP)
	$(PY) -m api.openapi

# the recorded playthroughs (tests/golden) as the code plays them today; review the diff before committing
golden: $(STAMP)
	$(PY) -m tests.golden

# the README's screenshots (docs/screenshots/), taken by the browser tests that reach them; review before committing
screenshots: $(STAMP)
	$(PY) -m tests.browser.screenshots

## generators: the client generators the contract is proved with (tests/e2e/test_generated_clients.py):
## openapi-python-client (PyPI) in its own virtualenv, openapi-typescript and tsc (npm), under .generators/
GEN := .generators
$(GEN)/.stamp: Makefile
	test -x $(GEN)/venv/bin/python || $(PYTHON) -m venv $(GEN)/venv
	$(GEN)/venv/bin/pip install --quiet openapi-python-client==0.29.1
	mkdir -p $(GEN) && cd $(GEN) && npm install --silent --no-audit --no-fund openapi-typescript@7.13.0 typescript@5.9.3
	touch $@

generators: $(GEN)/.stamp

clean:
	rm -rf $(VENV) $(GEN) .pytest_cache .mypy_cache .ruff_cache
