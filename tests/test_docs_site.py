"""The dbt docs site builds offline: `dbt docs generate --static` gives one HTML file that
fetches nothing and shows the project's models in headless Chromium with no network."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from challenge_fairness import report
from conftest import run_dbt
from offline_browser import markup_resource_references, render_offline
from report_fixtures import model_exists, public_mart_names, small_platform_build

pytestmark = pytest.mark.dbt

LOCAL_SCHEMES = ("file:", "data:", "about:", "blob:")
FILE_ORIGIN_ERROR = "Unsafe attempt to load URL file:"
FAILED_LOAD = "Failed to load resource: net::ERR_FAILED"


@pytest.fixture(scope="module")
def static_docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    build = small_platform_build(tmp_path_factory)
    work = tmp_path_factory.mktemp("docs")
    run = run_dbt(["docs", "generate", "--static"], database=build["database"], work_dir=work)
    assert run.success, run.output
    page = work / "target" / "static_index.html"
    assert page.is_file()
    return page


def test_static_docs_reference_no_external_resource(static_docs: Path) -> None:
    """No script, style sheet, font or image in the markup comes from the network; the
    docs app's usage tracker (which would load a script) is off because the project sets
    send_anonymous_usage_stats: false, and the manifest is inlined."""
    text = static_docs.read_text(encoding="utf-8")
    assert markup_resource_references(text) == []
    assert re.search(r"<script[^>]+\bsrc=", text, re.IGNORECASE) is None
    assert re.search(r'"send_anonymous_usage_stats":\s*false', text)
    assert "fct_challenge_verdicts" in text


def test_static_docs_render_offline(static_docs: Path) -> None:
    """With the network cut off, a model's page shows its name, description and columns."""
    page = render_offline(
        static_docs,
        wait_for_text="One row per challenge: the verdict a reviewer can trust",
        fragment="#!/model/model.challenge_fairness.fct_challenge_verdicts",
        timeout_ms=30_000,
    )
    assert "fct_challenge_verdicts" in page.text
    assert "lead_adjusted_deviation" in page.text
    network = [(kind, url) for kind, url in page.requests if not url.startswith(LOCAL_SCHEMES)]
    assert network == []
    # dbt docs' own quirks on file:// pages, all local: Angular asks for icon files named by
    # unbound templates ('{{ getIcon(...) }}'), and the favicon link is an unrendered
    # "${require('./assets/favicon.ico')}" (the one failed load); nothing else may fail
    local_failures = [url for _, url in page.requests if "favicon" in url]
    other_errors = [
        error
        for error in page.console_errors
        if FILE_ORIGIN_ERROR not in error
        and not (error == FAILED_LOAD and len(local_failures) == 1)
    ]
    assert other_errors == []


def test_exposures_declare_the_report_and_the_parquet_hand_off(tmp_path: Path) -> None:
    """`dbt ls --resource-type exposure` lists both exposures; the report's depends on every
    mart the report reads that exists in the project, the parquet one on every public mart."""
    run = run_dbt(
        [
            "ls",
            "--resource-type",
            "exposure",
            "--output",
            "json",
            "--output-keys",
            "name depends_on",
        ],
        database=tmp_path / "unused.duckdb",
        work_dir=tmp_path,
    )
    assert run.success, run.output
    exposures = {item["name"]: item for item in map(json.loads, run.result.result)}
    assert set(exposures) == {"fairness_html_report", "parquet_mart_export"}

    def models_of(name: str) -> set[str]:
        return {node.split(".")[-1] for node in exposures[name]["depends_on"]["nodes"]}

    existing_report_marts = {name for name in report.MARTS_READ if model_exists(name)}
    assert models_of("fairness_html_report") == existing_report_marts
    assert models_of("parquet_mart_export") == public_mart_names()
