"""The statistics stage reads the scan stage from files and builds the same marts.

The scan stage (tag `stage:scan`: the models that read the raw tables, and the attempt
cells) is what a warehouse builds where the raw data lives (docs/spark.md). Here it is
built by DuckDB itself, written out as `<dir>/<model>/part-0.parquet` (the layout
dbt-spark's `location_root` gives), and a second build on an empty database reads it with
var `scan_stage_dir`: every mart and every staging relation equals the all-DuckDB build
(1e-9), and no raw table is read (the second build has none to read).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import duckdb
import pytest
from challenge_fairness.demo import PlatformSpec, generate_platform, write_parquet
from conftest import REPO_ROOT, run_dbt

sys.path.insert(0, str(REPO_ROOT / "bench"))

import compare_marts  # noqa: E402

pytestmark = pytest.mark.dbt

VARS = {"fairness_gate_severity": "warn"}
# A sum of 64-bit hashes is a HUGEINT in DuckDB, which parquet stores as a DOUBLE: the
# incremental scan's bookkeeping, which nothing downstream reads.
#: The raw rows of the largest tables: a view of the warehouse, not copied to files, so
#: the statistics stage has them empty (it reads the folds that check them).
WAREHOUSE_VIEWS = {"base_platform__test_results", "base_platform__rubric_scores"}
IGNORED_COLUMNS = {"int_keyed__test_results_checked.row_checksum", *compare_marts.RUN_STAMP_COLUMNS}


def scan_stage_relations(run_dir: Path) -> dict[str, str]:
    """The scan-stage models of the project (tag stage:scan), as {model: schema.relation}."""
    manifest = json.loads((run_dir / "target" / "manifest.json").read_text())
    return {
        node["name"]: f"{node['schema']}.{node['alias']}"
        for node in manifest["nodes"].values()
        if node["resource_type"] == "model" and "stage:scan" in node["tags"]
    }


def export_scan_stage(database: Path, relations: dict[str, str], directory: Path) -> None:
    """Write each scan-stage relation of `database` to `<directory>/<model>/part-0.parquet`."""
    with duckdb.connect(str(database), read_only=True) as connection:
        for model, relation in relations.items():
            (directory / model).mkdir(parents=True)
            target = directory / model / "part-0.parquet"
            connection.execute(f"copy (select * from {relation}) to '{target}'")


def platform_built_in_duckdb(tmp_path: Path, attempts: int) -> tuple[Path, Path]:
    """A generated platform (dirty rows, test results, every detector's tables) written as
    parquet files to `<tmp_path>/raw`, and its all-DuckDB build, `<tmp_path>/full.duckdb`."""
    raw = tmp_path / "raw"
    spec = PlatformSpec(
        n_attempts=attempts, dirty=True, detector_plants=True, verdict_drift=True, bias_fix=True
    )
    write_parquet(generate_platform(spec), str(raw))
    full = tmp_path / "full.duckdb"
    built = run_dbt(
        ["build"], full, tmp_path / "full", dbt_vars={**VARS, "raw_parquet_dir": str(raw)}
    )
    assert built.success, built.output
    return raw, full


def test_statistics_stage_reads_the_scan_stage_from_files(tmp_path: Path) -> None:
    _, full = platform_built_in_duckdb(tmp_path, attempts=15_000)
    relations = scan_stage_relations(tmp_path / "full")
    assert {"base_platform__attempts", "int_attempt_score_cells_counted"} <= set(relations)
    assert len(relations) == 15, sorted(relations)

    scan_dir = tmp_path / "scan"
    export_scan_stage(full, relations, scan_dir)
    split = tmp_path / "split.duckdb"
    read = run_dbt(
        ["build"], split, tmp_path / "split", dbt_vars={**VARS, "scan_stage_dir": str(scan_dir)}
    )
    assert read.success, read.output
    with duckdb.connect(str(split), read_only=True) as connection:
        kinds = dict(
            connection.execute(
                "select table_name, table_type from information_schema.tables"
                " where table_schema in ('staging', 'intermediate')"
            ).fetchall()
        )
    assert all(kinds[model] == "VIEW" for model in relations), kinds

    assert (
        compare_marts.differences(
            full, split, ignore_columns=IGNORED_COLUMNS, ignore_relations=WAREHOUSE_VIEWS
        )
        == []
    )


def test_missing_scan_stage_files_fail_with_the_path(tmp_path: Path) -> None:
    empty = tmp_path / "scan"
    empty.mkdir()
    read = run_dbt(
        ["run", "--select", "base_platform__agents"],
        tmp_path / "split.duckdb",
        tmp_path,
        dbt_vars={**VARS, "scan_stage_dir": str(empty)},
    )
    assert not read.success
    assert str(empty / "base_platform__agents") in read.output
