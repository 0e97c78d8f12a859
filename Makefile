# Quickstart:  make demo   (set up, build the demo platform's fairness marts, print findings,
#                          write the HTML report)
#              make test   (the test suite)
#              make report (the HTML report of the marts already built in DATABASE)
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
DATABASE ?= challenge_fairness.duckdb
REPORT ?= target/fairness_report.html

.PHONY: setup browser demo report lint test bench clean

setup: $(VENV)/.installed

$(VENV)/.installed: requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $@

demo: setup
	rm -f $(DATABASE)
	$(BIN)/python -m challenge_fairness.demo --duckdb $(DATABASE) --quickstart --truth-json target/demo_truth.json
	CHALLENGE_FAIRNESS_DUCKDB=$(DATABASE) $(BIN)/dbt build --vars '{fairness_gate_severity: warn}'
	$(BIN)/python -m challenge_fairness.summary $(DATABASE)
	$(BIN)/python -m challenge_fairness.report $(DATABASE) --out $(REPORT)

# The offline HTML report (one self-contained file) of the marts built in DATABASE.
report: setup
	$(BIN)/python -m challenge_fairness.report $(DATABASE) --out $(REPORT)

lint: setup
	$(BIN)/ruff check python_udfs tests bench
	$(BIN)/ruff format --check python_udfs tests bench
	$(BIN)/mypy python_udfs/challenge_fairness

# The report and docs tests render pages in Debian's headless Chromium (driven by the
# pinned playwright package, never `playwright install`): installed here when missing.
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
		if [ "$$(id -u)" -eq 0 ]; then \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
				--no-install-recommends chromium fonts-dejavu-core; \
		else \
			echo "make test needs Debian's chromium at /usr/bin/chromium for the report and docs" \
				"tests: sudo apt-get install -y --no-install-recommends chromium" >&2; \
			exit 1; \
		fi; \
	fi

test: lint browser
	$(BIN)/python -m pytest

bench: setup
	$(BIN)/python bench/bench_core.py

clean:
	rm -rf target logs dbt_packages integration_tests/target integration_tests/logs \
		integration_tests/dbt_packages $(DATABASE)
