# One command per job. Each target makes its own virtualenv in .venv; nothing else is assumed
# beyond python3 and make.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
BASE := $(VENV)/.base-installed
FULL := $(VENV)/.full-installed
# Quiet installs: errors still show; setuptools' ~380 lines of warnings about the data folders
# (static/, templates/) it takes for packages, and pip's notices, do not.
PIP := PYTHONWARNINGS=ignore $(PY) -m pip install -qq --disable-pip-version-check

.PHONY: demo test bench lint fmt fuzz screenshots clean venv zoo triage-model

$(BASE): pyproject.toml
	@$(PYTHON) -m venv $(VENV)
	@echo "setting up $(VENV) (a few minutes the first time)"
	@$(PIP) --upgrade pip
	@$(PIP) -e '.[server,dev]'
	@touch $@

# Tests and benchmarks also run real TensorFlow, JAX and the Google-cloud clients on the CPU.
$(FULL): $(BASE)
	@$(PIP) -e '.[server,dev,tensorflow,jax,tpu,gcp]'
	@touch $@

venv: $(FULL)

demo: $(BASE)
	@$(VENV)/bin/tpuwatch demo

# Test files run on TEST_WORKERS processes (a file stays on one worker: its fixtures and servers are
# shared within it); each worker has its own PostgreSQL database. TEST_WORKERS=0 runs them in one.
TEST_WORKERS ?= 3
test: $(FULL)
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile

bench: $(FULL)
	$(PY) bench/run_all.py

# Refit the triage scorer's weights (app/triage/weights.json) on the failure zoo and its supplement
# (real errors the scorer must weigh too) and print the
# leave-one-family-out scores they come with.
triage-model: $(BASE)
	$(PY) -m tpuwatch.server.triage.learn tests/triage/zoo/captured.jsonl tests/triage/supplement/captured.jsonl \
		--crossval --write

# A longer schemathesis run than the one in `make test` (TPUWATCH_FUZZ_EXAMPLES cases per mode).
fuzz: $(FULL)
	TPUWATCH_FUZZ_EXAMPLES=$${TPUWATCH_FUZZ_EXAMPLES:-2000} $(PY) -m pytest tests/fuzz -q -p no:cacheprovider

# The README's pictures, as the browser tests leave the pages.
screenshots: $(FULL)
	TPUWATCH_SCREENSHOT_DIR=$(CURDIR)/docs $(PY) -m pytest tests/browser -q -p no:cacheprovider

# Regenerate the failure zoo's captured errors (runs ~220 scripts on the CPU; ~11 minutes).
zoo: $(FULL)
	$(PIP) -e '.[zoo]'
	JAX_PLATFORMS=cpu $(PY) tests/triage/zoo/regenerate.py

lint: $(BASE)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

fmt: $(BASE)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
