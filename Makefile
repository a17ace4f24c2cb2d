# Two entry points for a fresh machine: `make demo` (install + main job) and `make test` (install + full test suite).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test test-fast bench clean

$(STAMP): pyproject.toml constraints-cpu.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints-cpu.txt torch==2.13.0
	$(BIN)/pip install --quiet -c constraints-cpu.txt -e '.[dev]'
	$(BIN)/python -m ltn_sudoku.warmup  # compiles the numba code once (~1 CPU min): later processes load it
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/python scripts/demo.py

test: $(STAMP)
	bash scripts/ensure_browser.sh $(BIN)/python  # the browser test's Chromium: the system's (apt-get where allowed), else Playwright's
	$(BIN)/lint-imports  # the import contracts of pyproject.toml (layers, no torch on the symbolic side, no circle)
	$(BIN)/ruff check ltn_sudoku scripts tests  # the rules of [tool.ruff.lint]
	$(BIN)/mypy  # the package's types ([tool.mypy]): 15-50 s the first time (torch's stubs), then ~1 s (.mypy_cache)
	$(BIN)/python -m pytest -q -n 2 --dist worksteal --timeout 900 --durations=20  # slow tests first (conftest)

test-fast: $(STAMP)
	$(BIN)/lint-imports
	$(BIN)/ruff check ltn_sudoku scripts tests
	$(BIN)/mypy
	$(BIN)/python -m pytest -q -n 2 -m "not slow"

clean:
	rm -rf $(VENV) outputs multirun .pytest_cache .mypy_cache .ruff_cache
