# Vivabank: `make run` serves the site with a worker; `make test` runs every check.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
ASSETS_STAMP := vendor/.installed-stamp
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/vivabank

# Checks run with a throwaway key; production must set SECRET_KEY itself.
fmt lint typecheck pytest test mutation: export SECRET_KEY ?= vivabank-checks-only-not-a-real-secret

.PHONY: install run test fmt lint typecheck pytest bench load mutation clean

install: $(STAMP) $(ASSETS_STAMP)

# A pip config with an --extra-index-url folder that lacks a package warns "Location ... is
# ignored" once per package; only those lines are dropped, errors and other warnings show.
PIP_NOISE := ^WARNING: Location '[^']*' is ignored: it is neither a file nor a directory\.$$
$(STAMP): requirements/all.lock pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "Installing the Python packages of requirements/all.lock into $(VENV)/"
	@set -o pipefail; $(PY) -m pip install --quiet --disable-pip-version-check \
		-r requirements/all.lock 2>&1 | { grep -v "$(PIP_NOISE)" || true; }
	@touch $(STAMP)

$(ASSETS_STAMP): package.json package-lock.json scripts/install-assets.sh scripts/build-assets.mjs \
		$(wildcard assets/*/*)
	@echo "Bundling the pages' browser assets (esbuild: htmx, KaTeX, CodeMirror) into vendor/"
	@bash scripts/install-assets.sh
	@touch $(ASSETS_STAMP)

# `make run PORT=8001` serves on another port.
PORT ?= 8000
run: install
	DEBUG=true PORT=$(PORT) bash scripts/run-dev.sh

# Rewrites files: sorts imports, applies safe lint fixes, formats. `make lint` only checks.
fmt: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

# .pre-commit-config.yaml runs these same checks on each commit (`.venv/bin/pre-commit install`).
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/pre-commit validate-config .pre-commit-config.yaml
	DEBUG=true DATABASE_URL=sqlite:///:memory: $(PY) manage.py makemigrations --check --dry-run

typecheck: install
	$(VENV)/bin/mypy .

pytest: install
	DATABASE_URL=$(TEST_DATABASE_URL) $(VENV)/bin/pytest --cov --cov-report=term:skip-covered --cov-fail-under=80

test: lint typecheck pytest
	DEBUG=true DATABASE_URL=sqlite:///:memory: $(PY) manage.py runner_check fixtures/banks/pytorch-fundamentals

# Benchmarks print figures (never assert timings); the grading one needs PostgreSQL and Redis.
BENCH_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/vivabank_bench
bench: install
	psql -h 127.0.0.1 -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='vivabank_bench'" \
		| grep -q 1 || createdb -h 127.0.0.1 -U postgres vivabank_bench
	DEBUG=true DATABASE_URL=$(BENCH_DATABASE_URL) $(PY) manage.py migrate --noinput -v0
	DEBUG=true $(PY) manage.py runner_bench --json
	DEBUG=true DATABASE_URL=$(BENCH_DATABASE_URL) $(PY) manage.py grading_bench --json
	DEBUG=true DATABASE_URL=$(BENCH_DATABASE_URL) $(PY) manage.py grading_bench --json --http --regrades 0
	DEBUG=true DATABASE_URL=$(BENCH_DATABASE_URL) $(PY) manage.py pages_bench --json

# An exam's load over HTTP (tests/load/locustfile.py, docs/benchmarks.md): 300 students against
# gunicorn (2 processes) and 2 grading workers on PostgreSQL and Redis db 11; stops by itself in
# about 5 minutes and prints the figures as JSON (LOAD_USERS, LOAD_EXAM_S change the size).
load: install
	bash scripts/load.sh

# Mutation testing of the rules that decide a grade (docs/mutation.md): slow, so not in `make test`.
# A fresh copy and test database each run; prints killed/survived per area, fails under 90%.
MUTATION_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/vivabank_mutation
mutation: install
	rm -rf mutants
	psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS test_vivabank_mutation"
	DATABASE_URL=$(MUTATION_DATABASE_URL) $(VENV)/bin/mutmut run
	$(VENV)/bin/mutmut results --all true | $(PY) scripts/mutation_report.py --fail-under 90

clean:
	rm -rf $(VENV) var vendor node_modules mutants .mypy_cache .ruff_cache .pytest_cache
