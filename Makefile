# Two commands on a fresh clone (only Python 3.11+ needed):
#   make demo   evaluate the demo data offline and write the HTML report
#   make test   install into .venv and run every test (unit tests + notebooks)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: install demo test bench lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[dev]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m agenteval_nb demo --out out

test: $(STAMP)
	$(BIN)/python -m pytest tests notebooks --nbval-lax --nbval-current-env

bench: $(STAMP)
	$(BIN)/python bench/deterministic.py
	$(BIN)/python bench/judge.py
	$(BIN)/python bench/inference.py
	$(BIN)/python bench/frames.py
	$(BIN)/python bench/report.py
	$(BIN)/python bench/ray.py
	$(BIN)/python bench/experiment.py

lint: $(STAMP)
	$(BIN)/ruff check agenteval_nb tests bench
	$(BIN)/ruff format --check agenteval_nb tests bench

clean:
	rm -rf $(VENV) out .pytest_cache
