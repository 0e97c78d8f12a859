"""The dbt docs site builds offline: `dbt docs generate --static` (`make docs`) gives one HTML
file that fetches nothing and shows the project's overview and models in headless Chromium
with no network; every model is tagged by layer, and each detector's models by detector, so
the lineage graph can be filtered."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

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
    # the model's tags are shown on its page
    assert "layer:marts" in page.text
    assert "detector:family_verdict" in page.text
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


LAYERS = ("staging", "intermediate", "marts", "reporting")
DETECTOR_FOLDERS = ("detectors", "audit", "history", "remedies")  # one detector's steps each
DETECTOR_LITERAL = re.compile(r"'(\w+)'\s+as\s+detector\b", re.IGNORECASE)


REGISTRY_ENTRY = re.compile(r"'name':\s*'(\w+)',\s*'mart':\s*'(\w+)'")


def _declared_detectors(static_docs: Path) -> dict[str, str]:
    """Detector -> its mart, as declared in the macro detector_registry()."""
    manifest = json.loads((static_docs.parent / "manifest.json").read_text(encoding="utf-8"))
    registry = manifest["macros"]["macro.challenge_fairness.detector_registry"]["macro_sql"]
    return dict(REGISTRY_ENTRY.findall(registry))


def _package_models(static_docs: Path) -> dict[str, dict[str, Any]]:
    manifest = json.loads((static_docs.parent / "manifest.json").read_text(encoding="utf-8"))
    return {
        node["unique_id"]: node
        for node in manifest["nodes"].values()
        if node["resource_type"] == "model" and node["package_name"] == "challenge_fairness"
    }


def _detector_tags(node: dict[str, Any]) -> set[str]:
    return {tag.removeprefix("detector:") for tag in node["tags"] if tag.startswith("detector:")}


def test_static_docs_open_on_the_overview(static_docs: Path) -> None:
    """Opened from disk, the site's first page is the project's __overview__ docs block: the
    flow from raw tables to the gate, and how to filter the lineage graph by tag."""
    page = render_offline(static_docs, wait_for_text="How the data flows", timeout_ms=30_000)
    for text in (
        "challenge_fairness",
        "How to navigate",
        "fct_challenge_verdicts",
        "rpt_review_queue",
        "tag:layer:marts",
        "tag:detector:family_verdict",
    ):
        assert text in page.text, text
    assert [url for _, url in page.requests if not url.startswith(LOCAL_SCHEMES)] == []
    assert page.screenshot  # the overview drew something


def test_every_model_carries_the_tag_of_its_layer(static_docs: Path) -> None:
    """Exactly one `layer:` tag per model, the one of the folder it lives in."""
    models = _package_models(static_docs)
    assert len(models) > 100
    wrong = {
        node["name"]: node["tags"]
        for node in models.values()
        if [tag for tag in node["tags"] if tag.startswith("layer:")] != [f"layer:{node['fqn'][1]}"]
    }
    assert wrong == {}
    assert {node["fqn"][1] for node in models.values()} == set(LAYERS)


def test_each_detector_models_carry_its_detector_tag(static_docs: Path) -> None:
    """The detector tags are the detector names the package itself reports (the detectors
    declared in `detector_registry()`, whose rows fct_detector_coverage holds, and the
    findings of the bias scan); each declared detector's mart carries its tag, every
    detector has a tagged public mart, every model in a detector's folder carries a
    detector tag, and a tagged model's intermediate parents in those folders carry the same
    tag (so `tag:detector:<name>` shows the whole chain)."""
    models = _package_models(static_docs)
    by_name = {node["name"]: node for node in models.values()}

    declared = _declared_detectors(static_docs)
    assert len(declared) == 21
    coverage_detectors = {mart: detector for detector, mart in declared.items()}
    scan_detectors = set(DETECTOR_LITERAL.findall(by_name["int_bias_evidence_unioned"]["raw_code"]))
    detectors = set(coverage_detectors.values()) | scan_detectors
    assert {"family_verdict", "api_memorization", "challenge_contamination"} <= detectors

    untagged_marts = {
        mart: detector
        for mart, detector in coverage_detectors.items()
        if detector not in _detector_tags(by_name[mart])
    }
    assert untagged_marts == {}

    tagged = {tag for node in models.values() for tag in _detector_tags(node)}
    assert tagged == detectors
    marts_of = {
        detector: sorted(
            node["name"]
            for node in models.values()
            if node["fqn"][1] == "marts" and detector in _detector_tags(node)
        )
        for detector in detectors
    }
    assert [detector for detector, marts in marts_of.items() if not marts] == []
    assert "fct_challenge_verdicts" in marts_of["family_verdict"]
    assert "fct_api_memorization" in marts_of["api_memorization"]

    in_detector_folders = {
        unique_id: node
        for unique_id, node in models.items()
        if node["fqn"][1] in ("intermediate", "marts") and node["fqn"][2] in DETECTOR_FOLDERS
    }
    assert [node["name"] for node in in_detector_folders.values() if not _detector_tags(node)] == []
    missing_upstream = sorted(
        (models[parent]["name"], detector)
        for node in models.values()
        for detector in _detector_tags(node)
        for parent in node["depends_on"]["nodes"]
        if parent in in_detector_folders
        and models[parent]["fqn"][1] == "intermediate"
        and detector not in _detector_tags(models[parent])
    )
    assert missing_upstream == [], missing_upstream
