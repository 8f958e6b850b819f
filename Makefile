# Muster's everyday commands. `make run` and `make test` are the README's quick start.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install run test test-embedded test-services lint typecheck format bench bench-scale clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $@

install: $(VENV)/.installed

## Set up, create the demo campaign on SQLite with eager jobs, and serve it.
run: install
	$(BIN)/python manage.py migrate --no-input -v 0
# The demo prints its summary; a log line per command it runs would bury it.
	LOG_LEVEL=WARNING $(BIN)/python manage.py demo --url http://$(HOST):$(PORT)
	@echo "Serving Muster at http://$(HOST):$(PORT)/  (Ctrl-C to stop)"
	$(BIN)/python manage.py runserver --noreload $(HOST):$(PORT)

## Set up and run the whole test suite: on the embedded default, then against PostgreSQL,
## Redis and a live Celery worker when they are reachable (required when MUSTER_REQUIRE_SERVICES=1).
test: install
	$(BIN)/python -m tests.run

test-embedded: install
	$(BIN)/python -m tests.run --embedded-only

test-services: install
	$(BIN)/python -m tests.run --services-only

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: install
	$(BIN)/python -m bench.event_log
	$(BIN)/python -m bench.hostile_input

$(VENV)/.installed-bench: pyproject.toml | $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e ".[dev,bench]"
	touch $@

## The scale benchmark (docs/benchmarks.md): campaigns of 1k and 10k events; all four sizes with
## SIZES=1000,10000,100000,1000000. DATABASE_URL runs it on PostgreSQL.
SIZES ?= 1000,10000
# More options of bench.scale, e.g. BENCH_ARGS="--seconds 3".
BENCH_ARGS ?=
bench-scale: $(VENV)/.installed-bench
	$(BIN)/python -m bench.scale --sizes $(SIZES) $(BENCH_ARGS)

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache .mypy_cache .hypothesis .coverage
