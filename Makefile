# Two commands for a new user: `make demo` and `make test`. Each bootstraps .venv with exactly
# the versions pinned in requirements/lock.txt (Python 3.11, Linux x86_64); `make lock`
# refreshes the lock.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LOCK := requirements/lock.txt
# The resolver lives in its own scratch venv, never in the project's.
LOCKENV := .lockenv
UV_VERSION := 0.13.9

.PHONY: demo test install bench lock clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Re-installs whenever the lock or pyproject.toml changes: pip first (at its locked version),
# then every locked package, then the project itself without resolving anything.
$(STAMP): $(BIN)/python pyproject.toml $(LOCK)
	$(BIN)/python -m pip install --quiet -c $(LOCK) pip
	$(BIN)/python -m pip install --quiet -r $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/momentbound demo

# --no-loadscope-reorder: pytest-xdist hands out the files in collection order (tests/conftest.py
# puts the longest first) instead of by their number of tests.
test: $(STAMP)
	$(BIN)/python -m pytest -n auto --dist loadfile --no-loadscope-reorder

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py --quick

# Re-resolve every dependency (and the dev extra, pip, setuptools, wheel) to its newest
# release allowed by pyproject.toml, for Python 3.11 on Linux x86_64.
lock:
	$(PYTHON) -m venv $(LOCKENV)
	$(LOCKENV)/bin/python -m pip install --quiet uv==$(UV_VERSION)
	$(LOCKENV)/bin/uv pip compile pyproject.toml requirements/tools.in --extra dev \
	  --python-version 3.11 --python-platform x86_64-unknown-linux-gnu --upgrade \
	  --custom-compile-command 'make lock' --quiet --output-file $(LOCK)

clean:
	rm -rf $(VENV) $(LOCKENV) build *.egg-info src/*.egg-info
