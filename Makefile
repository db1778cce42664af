# Two commands for contributors: `make serve` and `make test`. Everything else is set up on demand.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# Exact, hashed installs: pip installs the pinned uv (requirements/uv.txt, every wheel hashed) into
# the virtual environment, and uv installs the project (editable) and its extras exactly as
# uv.lock has them. --locked: a uv.lock that no longer matches pyproject.toml is an error.
# --compile-bytecode: the installed packages' bytecode is written once, at install; otherwise
# each Python process (the site build, the tests, their browsers' drivers) compiles every module
# it imports afresh where PYTHONDONTWRITEBYTECODE is set, as in many containers.
UV_REQUIREMENTS := requirements/uv.txt
NODE_STAMP := node_modules/.installed
CHROMIUM ?= /usr/bin/chromium-headless-shell
# The Debian package `make browser` installs when CHROMIUM is missing: the full browser for a
# path ending in /chromium, else the headless shell.
CHROMIUM_PACKAGE := $(if $(filter %/chromium,$(CHROMIUM)),chromium,chromium-headless-shell)

.PHONY: setup serve site test browser lint pdf bench train clean conformance

setup: $(STAMP) $(NODE_STAMP)

$(STAMP): pyproject.toml uv.lock $(UV_REQUIREMENTS)
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed; set PYTHON=python3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes --only-binary :all: -r $(UV_REQUIREMENTS)
	UV_PROJECT_ENVIRONMENT=$(VENV) $(BIN)/uv sync --locked --compile-bytecode --extra test --extra docs --quiet
	@touch $@

# KaTeX comes from the npm registry: the build runs it (one Node process) to typeset every formula,
# and copies its style sheet and fonts into the site; no CDN, and nothing third-party committed.
$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

site: setup
	$(BIN)/mkdocs build --strict

serve: setup
	$(BIN)/mkdocs serve --livereload

# Debian's Chromium drives the browser tests (Playwright's own browser download is not used): its
# headless shell (package chromium-headless-shell): the same engine without the browser's
# window, tabs and profile, which opens and prints pages for less work than the full browser
# run headless. CHROMIUM=/usr/bin/chromium runs the tests in the full browser.
browser:
	@if [ ! -x "$(CHROMIUM)" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(CHROMIUM_PACKAGE) >/dev/null; \
	  else \
	    echo "The browser tests need Chromium at $(CHROMIUM): install it (Debian: sudo apt-get install $(CHROMIUM_PACKAGE)) or set CHROMIUM=/path/to/chromium"; exit 1; \
	  fi; \
	fi

# The handout: headless Chromium prints the site's one-page edition (site/print_page/: every page
# but the API reference) once its fonts and figures have loaded, with bookmarks, running heads
# and the page numbers in its contents; pypdf cuts it into one PDF per chapter (pdf/). A deploy
# copies both into docs/, where the site's links expect them (docs/hooks/handout.py).
PDF ?= rope-explained.pdf
PDF_CHAPTERS ?= pdf
pdf: site browser
	CHROMIUM=$(CHROMIUM) $(BIN)/python -m tools.print_pdf site $(PDF) --chapters $(PDF_CHAPTERS)

lint: setup
	$(BIN)/ruff check rope_explained tests benchmarks docs/hooks tools training
	$(BIN)/ruff format --check rope_explained tests benchmarks docs/hooks tools training

test: setup browser
	CHROMIUM=$(CHROMIUM) $(BIN)/python -m pytest

# The conformance group (tests/conformance/): the package against the real torch and
# transformers, in an environment of its own (.venv-conformance/), so that `make test` never
# installs or imports them. requirements/conformance.txt pins every package with its hashes,
# and pip checks each file it installs against them (--require-hashes, wheels only).
# torch is PyTorch's CPU build, 2.13.0+cpu: PyPI's Linux wheels of torch pull about 3 GB of
# CUDA libraries that a CPU test never loads, while PyTorch's CPU wheel is about 190 MB. PyPI
# does not carry the +cpu build, so pip needs an index or a directory that does: CI passes
# TORCH_INDEX=https://download.pytorch.org/whl/cpu (PyTorch's CPU index); a machine whose pip
# is configured with the wheel (find-links) needs nothing more. The lock is for CPython 3.11
# on x86-64 Linux, as CI runs it.
CONF_VENV := .venv-conformance
CONF_STAMP := $(CONF_VENV)/.installed
CONF_REQUIREMENTS := requirements/conformance.txt
TORCH_INDEX ?=

$(CONF_STAMP): $(CONF_REQUIREMENTS)
	@$(PYTHON) -c 'import platform, sys; sys.exit(0 if sys.version_info[:2] == (3, 11) and sys.platform == "linux" and platform.machine() == "x86_64" else "make conformance installs a lock for CPython 3.11 on x86-64 Linux; set PYTHON=python3.11")'
	rm -rf $(CONF_VENV)
	$(PYTHON) -m venv $(CONF_VENV)
	$(CONF_VENV)/bin/python -m pip install --quiet --require-hashes --only-binary :all: \
	  $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX)) -r $(CONF_REQUIREMENTS)
	@touch $@

conformance: $(CONF_STAMP)
	$(CONF_VENV)/bin/python -m pytest -c tests/conformance/pytest.ini -p no:cacheprovider tests/conformance

bench: setup browser
	$(BIN)/python benchmarks/bench_forward.py
	CHROMIUM=$(CHROMIUM) $(BIN)/python benchmarks/bench_page_weight.py

# Retrain the committed weights of the trained model (rope_explained/data/trained-*): the
# `train` extra (JAX, optax, pinned exactly) joins the environment, then each run is pinned to
# one CPU, the setting under which its bits repeat, and training/check.py checks the result
# (tolerances, and whether each SHA-256 is the committed one). Six runs of about 80 CPU-s each.
TRAIN_RUNS := 0 1 2
PIN := $(shell command -v taskset >/dev/null 2>&1 && echo taskset -c 0)
train: $(STAMP)
	UV_PROJECT_ENVIRONMENT=$(VENV) $(BIN)/uv sync --locked --compile-bytecode --extra test --extra docs --extra train --quiet
	@[ -n "$(PIN)" ] || echo "taskset not found: the runs use every CPU, and their bits may differ from the committed ones"
	for seed in $(TRAIN_RUNS); do \
	  $(PIN) $(BIN)/python training/train.py --seed $$seed || exit 1; \
	  $(PIN) $(BIN)/python training/train.py --seed $$seed --no-warmup || exit 1; \
	done
	$(BIN)/python training/check.py

clean:
	rm -rf site .cache
