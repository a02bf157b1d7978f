# Słownik — the two commands a newcomer needs are `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
HOST ?= 127.0.0.1
export HOST PORT

.DEFAULT_GOAL := help
.PHONY: help run run-production test test-fast test-postgres test-sqlite test-live test-faults conformance conformance-install redis-server chromium nginx lint format superuser migrate demo bench relevance clean messages

help:
	@echo "make run        serve the demo glossary at http://$(HOST):$(PORT) (SQLite, no setup)"
	@echo "make run-production  the same with DEBUG=0: the production error pages, locally"
	@echo "make test       lint + full test suite on a throwaway PostgreSQL, then on SQLite"
	@echo "make test-fast  the edit-test loop: SQLite, no live servers, no browser (under a minute)"
	@echo "make test-live  only the tests with real peers (SDK client, curl, conformance) on PostgreSQL"
	@echo "make test-faults  only the fault tests (worker kill, database restart, nginx recipe)"
	@echo "make conformance  only the official MCP conformance suite (both eras) on PostgreSQL"
	@echo "make superuser  create an admin account for /admin/"
	@echo "make format     apply ruff formatting and fixes"
	@echo "make bench      run the benchmarks in bench/"
	@echo "make relevance  search relevance per query class, on PostgreSQL and on SQLite"

$(VENV)/.installed: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements.txt
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed requirements-dev.txt requirements-semantic.txt
	$(PY) -m pip install -q -r requirements-dev.txt
	touch $@

migrate: $(VENV)/.installed
	@$(PY) manage.py migrate --noinput -v 0

demo: migrate
	@$(PY) manage.py load_demo --if-empty
	@$(PY) manage.py relink_texts -v 0

run: demo
	@scripts/run

# The site as production serves it (DEBUG=0: the 404/500/503 pages, collected static files),
# on plain http with a throwaway key: see README, "Production error pages locally".
run-production: demo
	@scripts/run production

superuser: migrate
	@$(PY) manage.py superuser

lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) manage.py makemigrations --check --dry-run -v 1

format: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

# Node 22 and the MCP conformance suite, into .cache/ (once; a no-op afterwards). The suite runs
# in the PostgreSQL pass only (tests/live/test_conformance.py skips it on SQLite).
conformance-install:
	scripts/conformance install

# The multi-process live-update tests start a private Redis; install the server if missing.
redis-server:
	scripts/ensure-redis

# The real-browser tests (tests/browser.py) drive Debian's Chromium; install it if missing.
chromium:
	scripts/ensure-chromium

# The production-recipe test (tests/live/test_deploy_recipe.py) runs Debian's nginx; if it
# cannot be installed, that test is skipped with the reason (hence `-`: not a make failure).
nginx:
	-scripts/ensure-nginx

test-postgres: $(VENV)/.installed-dev conformance-install redis-server chromium nginx
	scripts/with-postgres $(VENV)/bin/pytest -q $(PYTEST_ARGS)

test-sqlite: $(VENV)/.installed-dev redis-server chromium
	env -u DATABASE_URL $(VENV)/bin/pytest -q $(PYTEST_ARGS)

test: lint test-postgres test-sqlite

# The edit-test loop: everything but the real peers (live server processes, the conformance
# suite, Redis fan-out, the browser) and the semantic model, on the embedded SQLite, with
# nothing to install.
test-fast: $(VENV)/.installed-dev
	env -u DATABASE_URL $(VENV)/bin/pytest -q -m "not live and not browser and not semantic" \
		--ignore=tests/live \
		-p no:cacheprovider $(PYTEST_ARGS)

# A live server process on its own database, driven by the SDK client, curl bytes and the suite.
test-live: $(VENV)/.installed-dev conformance-install redis-server
	scripts/with-postgres $(VENV)/bin/pytest -q -m live $(PYTEST_ARGS)

# Fault tests against real processes: a granian worker killed under load, PostgreSQL restarted
# under the WSGI server, a stream's process killed, the deploy/ recipe behind Debian's nginx.
# They live in tests/live/, so `make test` already runs them in its PostgreSQL pass; this
# target runs only them.
FAULT_TESTS := tests/live/test_faults.py tests/live/test_database_restart.py \
	tests/live/test_stream_crash.py tests/live/test_deploy_recipe.py
test-faults: $(VENV)/.installed-dev nginx
	scripts/with-postgres $(VENV)/bin/pytest -q $(FAULT_TESTS) $(PYTEST_ARGS)

conformance: $(VENV)/.installed-dev conformance-install
	scripts/with-postgres $(VENV)/bin/pytest -q tests/live/test_conformance.py $(PYTEST_ARGS)

# Polish catalogue (plural forms of counts): the compiled django.mo is committed, so a fresh
# clone needs no gettext; after editing a django.po, recompile (needs GNU gettext's msgfmt).
messages: $(VENV)/.installed
	cd glossary && ../$(PY) ../manage.py compilemessages -l pl -v 0

# Each benchmark gets its own throwaway PostgreSQL cluster; results go to docs/benchmarks.md.
bench: $(VENV)/.installed-dev
	@if [ -f bench/search.py ]; then scripts/with-postgres $(PY) bench/search.py $(BENCH_SEARCH_ARGS); fi
	scripts/with-postgres $(PY) bench/mcp.py $(BENCH_MCP_ARGS)
	scripts/with-postgres $(PY) bench/autolink.py $(BENCH_AUTOLINK_ARGS)

# Relevance per query class (tests/glossary/data/relevance/), each on a throwaway database.
relevance: $(VENV)/.installed-dev
	scripts/with-postgres $(PY) bench/relevance.py
	env -u DATABASE_URL $(PY) bench/relevance.py

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache .cache
