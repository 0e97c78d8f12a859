"""One small dbt build of a demo platform shared by the report, parquet export and docs tests.

Built once per test session (cached here, whichever test module asks first) with the parquet
export on, selecting the marts the HTML report reads and their parents.
"""

from __future__ import annotations

from typing import Any

import pytest
from challenge_fairness.demo import PlatformSpec, generate_platform, write_duckdb
from challenge_fairness.report import MARTS_READ
from conftest import REPO_ROOT, run_dbt

# The marts the report reads (and the public marts upstream of them); a mart built on
# another branch joins when it exists.
REPORT_MARTS = MARTS_READ
PARALLEL_MARTS = ("rpt_flagged_challenge_score_distributions",)
SPEC = PlatformSpec(seed=7, n_attempts=120_000)  # enough per month to flag in the history

_cache: dict[str, dict[str, Any]] = {}


def model_exists(name: str) -> bool:
    """A model file of that name exists in this checkout."""
    return any((REPO_ROOT / "models").rglob(f"{name}.sql")) or any(
        (REPO_ROOT / "models").rglob(f"{name}.py")
    )


def public_mart_names() -> set[str]:
    """The public marts: every model file under models/marts/, and the fct_/rpt_ models of
    the reporting layer (models/reporting/)."""
    models = REPO_ROOT / "models"
    marts = {p.stem for p in (models / "marts").rglob("*") if p.suffix in (".sql", ".py")}
    reporting = {
        p.stem
        for p in (models / "reporting").rglob("*")
        if p.suffix in (".sql", ".py") and p.stem.startswith(("fct_", "rpt_"))
    }
    return marts | reporting


def build_selection() -> list[str]:
    """`--select` arguments: the report's marts with their parents."""
    names = list(REPORT_MARTS) + [name for name in PARALLEL_MARTS if model_exists(name)]
    return [f"+{name}" for name in names]


def small_platform_build(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Generate the platform, build the report's marts with the parquet export (cached)."""
    if "build" in _cache:
        return _cache["build"]
    work = tmp_path_factory.mktemp("report_build")
    platform = generate_platform(SPEC)
    database = work / "platform.duckdb"
    write_duckdb(platform, str(database))
    export_dir = work / "export" / "marts"  # two levels that do not exist yet
    run = run_dbt(
        ["build", "--select", *build_selection(), "--indirect-selection", "cautious"],
        database=database,
        work_dir=work,
        dbt_vars={"fairness_gate_severity": "warn", "parquet_export_dir": str(export_dir)},
    )
    assert run.success, run.output
    built_models = [
        result.node.name
        for result in run.result.result
        if result.node.resource_type == "model" and str(result.status) == "success"
    ]
    _cache["build"] = {
        "work": work,
        "database": database,
        "export_dir": export_dir,
        "run": run,
        "built_models": built_models,
        "planted_biases": SPEC.planted_family_biases,
        "templates": SPEC.n_templates,
    }
    return _cache["build"]
