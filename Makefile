# Bendscope — `make serve` serves the editor, `make test` runs every test.
# Both install what they need on a fresh machine (npm packages, a Python venv,
# Debian's chromium for the browser tests, Debian's postgresql for the shared-store tests).

PYTHON ?= python3
PORT ?= 8000
MEMORY_PORT ?= 8765
VENV := .venv
VPY := $(VENV)/bin/python
VENDOR_STAMP := static/vendor/.stamp
KAPPA_SOURCES := $(wildcard py/bendscope/kappa/*.py) py/bendscope/__init__.py

.PHONY: serve docs test test-unit test-e2e test-visual vendor venv chromium postgresql lint format bench bench-browser bench-large bench-hand bench-shapes bench-kappa-page bench-live bench-live-time bench-memory load-memory serve-memory update-snapshots clean

serve: vendor
	$(PYTHON) scripts/serve.py $(PORT)

vendor: $(VENDOR_STAMP)

$(VENDOR_STAMP): package.json package-lock.json scripts/vendor.py pyproject.toml $(KAPPA_SOURCES)
	$(PYTHON) scripts/vendor.py

venv: $(VENV)/.stamp

$(VENV)/.stamp: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet -e '.[test]'
	touch $@

chromium:
	@if [ ! -x /usr/bin/chromium ]; then \
		echo "Installing Debian chromium for the browser tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core >/dev/null; \
	fi

# The tests start their own throwaway server (initdb + pg_ctl in a temporary directory,
# 127.0.0.1, a free port); the package's own cluster is not created.
postgresql:
	@if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null; then \
		echo "Installing Debian postgresql for the shared-store tests"; \
		mkdir -p /etc/postgresql-common && \
		( [ -f /etc/postgresql-common/createcluster.conf ] || echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.conf ) && \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive UCF_FORCE_CONFFOLD=1 apt-get install -y -qq \
			-o Dpkg::Options::=--force-confold postgresql >/dev/null; \
	fi

lint: venv
	$(VPY) -m ruff check py tests e2e bench scripts conftest.py
	$(VPY) -m ruff format --check py tests e2e bench scripts conftest.py
	$(VPY) -m mypy

format: venv
	$(VPY) -m ruff format py tests e2e bench scripts conftest.py
	$(VPY) -m ruff check --fix py tests e2e bench scripts conftest.py

# the documentation site, into site/ (warnings are errors); the tools' reference is generated first
docs: venv
	$(VPY) -m bendscope.memory.mcp.schema docs/memory/tools.md
	NO_MKDOCS_2_WARNING=1 $(VPY) -m mkdocs build --strict -d site

# --durations: every log ends with the slowest tests (and fixtures), to see where the time goes
DURATIONS := --durations=25
# the CPython tests in two processes (pytest-xdist; each its own PostgreSQL server), then the
# browser tests in two (each its own server and Chromium; a file's tests stay in one process, so a
# module's shared page is booted once). A page boot is ~10 CPU-s on one core of a renderer: one
# process leaves the second core to others, and on a shared machine it gets half the CPU share two
# get. E2E_JOBS=0 runs the browser tests in one process, as before.
UNIT_TESTS := tests py/bendscope/shared py/bendscope/kappa py/bendscope/bend py/bendscope/memory
UNIT_JOBS ?= 2
E2E_JOBS ?= 2
E2E_ARGS = $(if $(filter 0,$(E2E_JOBS)),,-n $(E2E_JOBS) --dist loadfile)

# (the browser tests run even when a CPython test failed; either failing fails the target)
test: venv vendor chromium postgresql lint docs
	$(VPY) -m pytest -n $(UNIT_JOBS) $(DURATIONS) $(UNIT_TESTS); unit=$$?; \
	$(VPY) -m pytest $(E2E_ARGS) $(DURATIONS) e2e; e2e=$$?; \
	test $$unit = 0 && test $$e2e = 0

test-unit: venv vendor postgresql
	$(VPY) -m pytest -n $(UNIT_JOBS) $(DURATIONS) $(UNIT_TESTS)

test-e2e: venv vendor chromium
	$(VPY) -m pytest $(E2E_ARGS) $(DURATIONS) e2e

test-visual: venv vendor chromium
	$(VPY) -m pytest e2e/visual

update-snapshots: venv vendor chromium
	$(VPY) -m pytest e2e/visual --update-snapshots

bench: venv
	$(VPY) bench/bench_engine.py

bench-browser: venv vendor chromium
	$(VPY) bench/bench_browser.py

bench-large: venv vendor chromium
	$(VPY) bench/bench_large.py

bench-hand: venv vendor chromium postgresql
	$(VPY) bench/bench_hand.py

bench-shapes: venv vendor chromium
	$(VPY) bench/bench_shapes.py

bench-kappa-page: venv vendor chromium
	$(VPY) bench/bench_kappa_page.py

bench-live: venv vendor chromium postgresql
	$(VPY) bench/bench_live.py

bench-live-time: venv vendor chromium
	$(VPY) bench/bench_live_time.py

bench-memory: venv postgresql
	$(VPY) bench/bench_memory.py
	$(VPY) bench/bench_durability.py
	$(VPY) bench/bench_durability.py --bulk --rounds 3
	$(VPY) bench/bench_time.py --backends sqlite,postgresql

load-memory: venv postgresql
	$(VPY) bench/load_memory.py

# the memory (BENDSCOPE_MEMORY_STORE, else ~/.local/share/bendscope/memory.sqlite3) with its live
# editor: open the URL it prints ("editor on http://127.0.0.1:8765/?token=…")
serve-memory: venv vendor
	$(VENV)/bin/bendscope-memory serve --http $(MEMORY_PORT) --editor

clean:
	rm -rf static/vendor node_modules $(VENV) build dist *.egg-info
