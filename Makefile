# Quickstart:  make demo   (set up, build the demo platform's fairness marts, print findings,
#                          write the HTML report)
#              make test   (the test suite)
#              make report (the HTML report of the marts already built in DATABASE)
#              make docs   (the dbt docs site as one HTML file that opens from disk)
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
DATABASE ?= challenge_fairness.duckdb
REPORT ?= target/fairness_report.html

.PHONY: setup spark-setup spark-cluster spark-demo browser demo report docs lint test bench clean

setup: $(VENV)/.installed

$(VENV)/.installed: requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $@

# The Spark path (docs/spark.md): dbt-spark's Thrift client in the virtual environment, and
# for a local cluster (tests, bench, spark-demo) the pyspark wheel in .spark/ (Java 17).
spark-setup: $(VENV)/.spark-installed

$(VENV)/.spark-installed: $(VENV)/.installed requirements-spark.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-spark.lock -c requirements.lock
	touch $@

spark-cluster: .spark/.installed

.spark/.installed: requirements-spark-cluster.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --target .spark -r requirements-spark-cluster.lock
	touch $@

# The demo platform through the Spark path on a local cluster (started and stopped here):
# the scan on Spark, the statistics in DuckDB (SPARK_DATABASE), the marts back on Spark.
SPARK_DEMO := target/spark-demo
SPARK_DATABASE ?= $(SPARK_DEMO)/challenge_fairness.duckdb

spark-demo: setup spark-setup spark-cluster
	rm -rf $(SPARK_DEMO)
	$(BIN)/python -m challenge_fairness.demo --parquet-dir $(SPARK_DEMO)/raw --quickstart
	$(BIN)/python -m challenge_fairness.spark_path --local-cluster $(SPARK_DEMO)/cluster \
		--raw-parquet-dir $(SPARK_DEMO)/raw --scan-stage-dir $(SPARK_DEMO)/scan \
		--duckdb $(SPARK_DATABASE) --export-dir $(SPARK_DEMO)/marts \
		--vars '{fairness_gate_severity: warn}'
	$(BIN)/python -m challenge_fairness.summary $(SPARK_DATABASE)

demo: setup
	rm -f $(DATABASE)
	$(BIN)/python -m challenge_fairness.demo --duckdb $(DATABASE) --quickstart --truth-json target/demo_truth.json
	CHALLENGE_FAIRNESS_DUCKDB=$(DATABASE) $(BIN)/dbt build --vars '{fairness_gate_severity: warn}'
	$(BIN)/python -m challenge_fairness.summary $(DATABASE)
	$(BIN)/python -m challenge_fairness.report $(DATABASE) --out $(REPORT)

# The offline HTML report (one self-contained file) of the marts built in DATABASE.
report: setup
	$(BIN)/python -m challenge_fairness.report $(DATABASE) --out $(REPORT)

# The dbt docs site as one self-contained file (manifest and catalog inlined): it opens from
# disk with no server (a plain target/index.html opened from disk stays empty, as the browser
# blocks it from reading manifest.json). Column types come from DATABASE when it exists
# (after `make demo` or your own build); without it the site is written from the project
# alone, and no database file is created.
DOCS := target/static_index.html

docs: setup
	@if [ -f "$(DATABASE)" ]; then \
		CHALLENGE_FAIRNESS_DUCKDB=$(DATABASE) $(BIN)/dbt docs generate --static; \
	else \
		echo "$(DATABASE) does not exist: writing the docs site without the database's column types"; \
		CHALLENGE_FAIRNESS_DUCKDB=$(DATABASE) $(BIN)/dbt parse && \
		CHALLENGE_FAIRNESS_DUCKDB=$(DATABASE) $(BIN)/dbt docs generate --static --no-compile --empty-catalog; \
	fi
	@echo "Docs site (open it in a browser, no server needed): file://$(CURDIR)/$(DOCS)"

# sqlfluff (.sqlfluff: dialect duckdb, the dbt templater) lints every model as dbt compiles
# it, so the macros are linted where the models expand them; compiling needs the raw tables
# (a few models read them at compile time), hence the demo's raw tables in LINT_DATABASE.
LINT_DATABASE := target/sqlfluff_raw.duckdb

lint: setup
	$(BIN)/ruff check python_udfs tests bench
	$(BIN)/ruff format --check python_udfs tests bench
	$(BIN)/mypy python_udfs/challenge_fairness
	mkdir -p target && rm -f $(LINT_DATABASE)
	$(BIN)/python -m challenge_fairness.demo --duckdb $(LINT_DATABASE) --quickstart > /dev/null
	CHALLENGE_FAIRNESS_DUCKDB=$(LINT_DATABASE) $(BIN)/sqlfluff lint models --processes 2

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

test: lint browser spark-setup spark-cluster
	$(BIN)/python -m pytest

bench: setup
	$(BIN)/python bench/bench_core.py

clean:
	rm -rf target logs dbt_packages integration_tests/target integration_tests/logs \
		integration_tests/dbt_packages $(DATABASE)
