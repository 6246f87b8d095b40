# Two commands on a fresh clone (only Python 3.11+ needed):
#   make demo   install the package alone and evaluate the demo data offline (HTML report)
#   make test   install everything else too (.[dev]) and run every test (unit tests + notebooks)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
BASE_STAMP := $(VENV)/.base-stamp
STAMP := $(VENV)/.installed-stamp
# pip shows what it downloads and installs (no silent minutes); modules are compiled to
# bytecode when first imported, not all at install time
PIP := $(BIN)/python -m pip install --disable-pip-version-check --progress-bar on --no-compile

.PHONY: install demo test bench lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# the package and its own dependencies: all the demo needs
$(BASE_STAMP): pyproject.toml | $(BIN)/python
	$(PIP) -e .
	touch $(BASE_STAMP)

# the test, notebook, Ray, browser and openai-agents extras on top
$(STAMP): pyproject.toml $(BASE_STAMP)
	$(PIP) -e ".[dev]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

install: $(STAMP)

demo: $(BASE_STAMP)
	$(BIN)/python -m agenteval_nb demo --out out

test: lint
	$(BIN)/python -m pytest tests notebooks --nbval-lax --nbval-current-env

bench: $(STAMP)
	$(BIN)/python bench/deterministic.py
	$(BIN)/python bench/judge.py
	$(BIN)/python bench/inference.py
	$(BIN)/python bench/frames.py
	$(BIN)/python bench/report.py
	$(BIN)/python bench/ray.py
	$(BIN)/python bench/experiment.py
	$(BIN)/python bench/inspector_table.py
	$(BIN)/python bench/streaming.py
	$(BIN)/python bench/capture.py
	$(BIN)/python bench/traces.py

lint: $(STAMP)
	$(BIN)/ruff check agenteval_nb tests bench
	$(BIN)/ruff format --check agenteval_nb tests bench
	$(BIN)/mypy

clean:
	rm -rf $(VENV) out .pytest_cache
