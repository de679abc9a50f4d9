# The two commands of this repository:
#
#   make book   build the book (executes every chapter) -> _build/html/index.html
#   make test   everything CI runs: notebook pairs, unit tests, a rerun of every chapter
#               with seed 1 at reduced size, nbval, a -W book build, the built site
#
# Both create the virtual environment .venv/ from requirements.txt when needed
# (Python 3.11 on PATH as `python3.11`; PyPI access on the first install).
# Every other target is internal.

SHELL       := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := book
.DELETE_ON_ERROR:
.NOTPARALLEL:

VENV    := .venv
PY      := $(VENV)/bin/python
PIP     := $(VENV)/bin/pip
JB      := $(VENV)/bin/jupyter-book
PYTEST  := $(VENV)/bin/pytest

# The repository root is importable everywhere, in the kernels too (they inherit
# the environment); the editable install below does the same for plain `python`.
export PYTHONPATH := $(CURDIR)$(if $(PYTHONPATH),:$(PYTHONPATH))
export PIP_DISABLE_PIP_VERSION_CHECK := 1
# No progress bars in CI logs nor in the executed pages of the book (a reader who
# runs a notebook interactively still gets them).
export TQDM_DISABLE := 1

BUILD_DIR   := _build
JCACHE      := $(BUILD_DIR)/.jupyter_cache

# $(call step,TITLE,COMMAND): a banner, the command, and the seconds it took.
# COMMAND must not contain a comma (put it in a variable instead).
define step
	@printf '\n==== %s\n' '$(1)'; t0=$$(date +%s); \
	if ( $(2) ); then \
	  printf '==== %s: ok (%ss)\n' '$(1)' "$$(( $$(date +%s) - t0 ))"; \
	else \
	  rc=$$?; printf '==== %s: FAILED, exit %s (%ss)\n' '$(1)' "$$rc" "$$(( $$(date +%s) - t0 ))" >&2; exit $$rc; \
	fi
endef

.PHONY: book test venv check-notebooks unit chapter-reruns nbval book-strict book-cache site-test rerun

# --------------------------------------------------------------------------------
# user-facing targets

book: venv book-cache
	$(call step,book: execute the chapters (scripts/execute_chapters.py; $(JOBS) at once),$(EXEC_CMD))
	$(call step,book: jupyter-book build (HTML in $(BUILD_DIR)/html),$(JB) build . --builder html)
	@echo "Open $(BUILD_DIR)/html/index.html"

test: venv
	@t0=$$(date +%s); \
	$(MAKE) --no-print-directory check-notebooks unit chapter-reruns nbval book-strict site-test; \
	printf '\n==== make test: all steps passed (%ss)\n' "$$(( $$(date +%s) - t0 ))"

# --------------------------------------------------------------------------------
# the virtual environment

$(PY):
	@command -v python3.11 >/dev/null || { echo "make: python3.11 not found on PATH (the book needs Python 3.11)" >&2; exit 1; }
	python3.11 -m venv $(VENV)

# pip is quiet when nothing changes but prints its errors and fails the target.
# The editable install of lrlib (no dependencies: requirements.txt pins them) is
# redone only when pyproject.toml changes.
venv: $(PY)
	$(call step,venv: pip install -r requirements.txt,$(PIP) install -q -r requirements.txt)
	@if [ ! -f $(VENV)/.lrlib-editable ] || [ pyproject.toml -nt $(VENV)/.lrlib-editable ]; then \
	  printf '\n==== venv: pip install --no-deps -e . (lrlib)\n'; \
	  $(PIP) install -q --no-deps -e . && touch $(VENV)/.lrlib-editable; \
	fi

# --------------------------------------------------------------------------------
# steps of `make test` (in this order; the first failure stops it)

# The notebook pairs, and the workflow files under .github/workflows/ (actionlint, pinned in requirements.txt).
ACTIONLINT_CMD = $(VENV)/bin/actionlint .github/workflows/*.yml && echo "actionlint: workflow files ok"
check-notebooks:
	$(call step,test 1/6: notebook pairs (scripts/check_notebooks.py),$(PY) scripts/check_notebooks.py)
	$(call step,test 1/6: workflow files (actionlint),$(ACTIONLINT_CMD))

# pytest exits 5 when it collects no test: that must fail, not pass silently (scripts/pytest_step.py).
# The chapter reruns (tests/test_notebook_rerun.py, marked slow) are a step of their own.
UNIT_CMD = $(PY) scripts/pytest_step.py "the unit tests" -- tests -q -p no:cacheprovider -m "not slow"
unit:
	$(call step,test 2/6: unit tests (pytest -m "not slow" tests),$(UNIT_CMD))

# Every chapter rerun with seed 1 at reduced size as a seed sweep (tests/test_notebook_rerun.py).
RERUNS_CMD = $(PY) scripts/pytest_step.py "the chapter reruns" -- tests -q -p no:cacheprovider -m slow
chapter-reruns:
	$(call step,test 3/6: chapter reruns (pytest -m slow),$(RERUNS_CMD))

# nbval runs each notebook as it is (default parameters) in a kernel started from
# this environment, with the notebook's folder as working directory, at reduced size
# (LRLIB_QUICK=1, read by lrlib.nbparams.check_common): the book build below executes
# every chapter at full scale and checks its verdicts, so running the full scale here
# too would only double CI time. The notebooks run $(JOBS) at a time (single-threaded kernels).
NBVAL_CMD = $(PY) scripts/pytest_step.py "the notebooks" --env LRLIB_QUICK=1 --shards $(JOBS) -- --nbval-lax --nbval-current-env \
	--nbval-cell-timeout=1800 -p no:cacheprovider --rootdir=$(CURDIR) 'notebooks/[0-9][0-9]_*.ipynb'
nbval:
	$(call step,test 4/6: nbval on notebooks/*.ipynb,$(NBVAL_CMD))

# --all re-reads every page (an incremental build would not re-emit the warnings of
# pages that did not change); execution results still come from the cache.
book-strict: book-cache
	$(call step,test 5/6: execute the chapters (scripts/execute_chapters.py; $(JOBS) at once),$(EXEC_CMD))
	$(call step,test 5/6: book build with warnings as errors,$(JB) build . --builder html --all -W -n --keep-going)

# The site as a reader sees it: serve the book that book-strict just built on localhost
# and open every page of the table of contents in headless Chromium (Debian's chromium,
# installed by the script when missing): no console errors, glued figures are images,
# math rendered, internal links and launch/download buttons resolve. Screenshots of
# every page go to $(BUILD_DIR)/site-test/ (not in git).
site-test:
	$(call step,test 6/6: the built site in headless Chromium (scripts/site_check.py),$(PY) scripts/site_check.py --html $(BUILD_DIR)/html --out $(BUILD_DIR)/site-test)

# --------------------------------------------------------------------------------
# The jupyter-cache keys a notebook on its code cells only: scripts/book_cache.py keys it on
# lrlib/, the claims files, the data checksums and the pins too, and clears it when they change.

# The chapters run single-threaded: execute them $(JOBS) at a time into the book's execution
# cache before the build, which then finds them there (jupyter-book alone executes them one
# after another). JOBS defaults to the number of cores.
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)
# Per-chapter and per-section seconds go to $(BUILD_DIR)/execution-timings.json (benchmarks/run.py
# --record-book reads it).
EXEC_CMD = $(PY) scripts/execute_chapters.py --cache $(JCACHE) --jobs $(JOBS) \
	--timings $(BUILD_DIR)/execution-timings.json notebooks/[0-9][0-9]_*.ipynb

book-cache:
	@$(PY) scripts/book_cache.py $(BUILD_DIR)

# --------------------------------------------------------------------------------
# make rerun CHAPTER=<key> SEED=<n> [QUICK=1]: one chapter, another seed: a one-run seed sweep
# (lrlib.sweep: papermill, the notebook's folder as working directory). Output in runs/rerun/
# (runs/rerun-quick/ with QUICK=1, so that a quick run never overwrites a full run's ledger).
CHAPTER ?=
SEED    ?= 1
QUICK   ?= 0
RERUN_CMD = $(PY) scripts/rerun.py --chapter "$(CHAPTER)" --seed "$(SEED)" --quick "$(QUICK)"
rerun: venv
	$(call step,rerun $(CHAPTER) with seed $(SEED),$(RERUN_CMD))
