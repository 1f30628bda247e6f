# Bendscope — `make serve` serves the editor, `make test` runs every test.
# Both install what they need on a fresh machine (npm packages, a Python venv,
# Debian's chromium for the browser tests).

PYTHON ?= python3
PORT ?= 8000
VENV := .venv
VPY := $(VENV)/bin/python
VENDOR_STAMP := static/vendor/.stamp
KAPPA_SOURCES := $(wildcard py/kappa/*.py)

.PHONY: serve test test-unit test-e2e test-visual vendor venv chromium lint format bench bench-browser bench-large bench-memory serve-memory update-snapshots clean

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

lint: venv
	$(VPY) -m ruff check py tests e2e bench scripts
	$(VPY) -m ruff format --check py tests e2e bench scripts
	$(VPY) -m mypy

format: venv
	$(VPY) -m ruff format py tests e2e bench scripts
	$(VPY) -m ruff check --fix py tests e2e bench scripts

test: venv vendor chromium lint
	$(VPY) -m pytest tests py/kappa py/bend py/memory e2e

test-unit: venv vendor
	$(VPY) -m pytest tests py/kappa py/bend py/memory

test-e2e: venv vendor chromium
	$(VPY) -m pytest e2e

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

bench-memory: venv
	$(VPY) bench/bench_memory.py

serve-memory: venv
	$(VPY) -m memory serve

clean:
	rm -rf static/vendor node_modules $(VENV) build dist *.egg-info
