"""The Spark path in one command: scan on Spark, statistics in DuckDB, marts back to Spark.

    python -m challenge_fairness.spark_path --scan-stage-dir <dir> --duckdb <file> \\
        --export-dir <dir> [--vars '{...}'] [--raw-parquet-dir <dir>] [--local-cluster <dir>]

1. `dbt run --target spark --select +tag:stage:scan`: the Thrift Server validates the raw
   tables and writes the scan stage (staging and the attempt cells) as parquet files under
   `<scan-stage-dir>/<model>/`.
2. `dbt build` on DuckDB with var `scan_stage_dir`: every mart, test, the gate and the
   parquet export of the public marts (var `parquet_export_dir`), from those files.
3. `dbt run-operation register_public_marts --target spark`: the exported marts become
   external parquet tables of the warehouse.

`--raw-parquet-dir` first registers `<dir>/<table>.parquet` files or `<dir>/<table>/`
folders of parquet files as the raw tables (register_raw_parquet_tables); `--local-cluster`
starts a local cluster around the run (challenge_fairness.local_spark) and stops it
afterwards, also on failure. The same vars go to both targets, so both stages scan as of
the same `bias_scan_date`. The exit code is the first failing step's; the marts are
registered even when the DuckDB build fails on a test (the fairness gate), so that the
warehouse shows what failed it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from challenge_fairness.local_spark import LocalSpark

PROJECT_DIR = Path(__file__).resolve().parents[2]
# The raw tables, as platform_source_columns names them (required ones first).
RAW_TABLES = (
    "attempts",
    "challenges",
    "agents",
    "models",
    "test_cases",
    "test_results",
    "challenge_files",
    "reference_corpus",
    "rubric_items",
    "rubric_scores",
)


@dataclass
class SparkPathRun:
    """What each step took (seconds) and the exit code of the first failing step."""

    seconds: dict[str, float] = field(default_factory=dict)
    returncode: int = 0


def _dbt(
    target: str,
    arguments: list[str],
    project_dir: Path,
    work_dir: Path,
    environment: dict[str, str],
    log: Path | None,
) -> int:
    dbt = Path(sys.executable).with_name("dbt")
    command = [str(dbt), *arguments, "--project-dir", str(project_dir)]
    if target == "spark":
        command += ["--target", "spark"]
    # One target path per target, so that each keeps its partial parse between runs.
    command += ["--profiles-dir", str(project_dir)]
    command += ["--target-path", str(work_dir / f"target-{target}")]
    command += ["--log-path", str(work_dir / "logs")]
    if log is None:
        return subprocess.run(command, cwd=project_dir, env=environment, check=False).returncode
    with log.open("a") as output:
        return subprocess.run(
            command, cwd=project_dir, env=environment, stdout=output, stderr=output, check=False
        ).returncode


@contextlib.contextmanager
def _cluster(workdir: Path | None) -> Iterator[None]:
    if workdir is None:
        yield
        return
    with LocalSpark(workdir):
        yield


def raw_parquet_tables(raw_dir: Path) -> dict[str, list[str]]:
    """The raw tables in `raw_dir`, in either form DuckDB reads (docs/spark.md): `tables`,
    each a file `<table>.parquet` (or Spark's folder of that name) or a folder `<table>/`
    of parquet files, Hive partitions allowed; `folders`, those of the second form. A
    table in both forms is refused, as on DuckDB."""
    both = [t for t in RAW_TABLES if (raw_dir / f"{t}.parquet").exists() and (raw_dir / t).is_dir()]
    if both:
        raise ValueError(
            f"raw table {', '.join(both)} is both a file <table>.parquet and a folder <table>/"
            f" in {raw_dir}: keep one of them"
        )
    tables = [
        t for t in RAW_TABLES if (raw_dir / f"{t}.parquet").exists() or (raw_dir / t).is_dir()
    ]
    return {"tables": tables, "folders": [t for t in tables if (raw_dir / t).is_dir()]}


def run(
    scan_stage_dir: Path,
    duckdb_path: Path,
    export_dir: Path,
    dbt_vars: dict[str, Any] | None = None,
    raw_parquet_dir: Path | None = None,
    local_cluster: Path | None = None,
    project_dir: Path = PROJECT_DIR,
    log: Path | None = None,
    work_dir: Path | None = None,
) -> SparkPathRun:
    """Run the three steps (after starting a local cluster and registering raw files, when
    asked); returns the time of each step and the first nonzero exit code. dbt's output
    goes to `log` when given, its artifacts under `work_dir` (default
    `<project>/target/spark_path`)."""
    work_dir = Path(work_dir or Path(project_dir) / "target" / "spark_path").resolve()
    outcome = SparkPathRun()
    shared = dict(dbt_vars or {}, scan_stage_dir=str(Path(scan_stage_dir).resolve()))
    environment = dict(os.environ, CHALLENGE_FAIRNESS_DUCKDB=str(Path(duckdb_path).resolve()))

    def step(name: str, target: str, arguments: list[str]) -> int:
        started = time.perf_counter()
        code = _dbt(target, arguments, project_dir, work_dir, environment, log)
        outcome.seconds[name] = time.perf_counter() - started
        if code and not outcome.returncode:
            outcome.returncode = code
        return code

    if raw_parquet_dir is not None:
        try:
            raw_tables = raw_parquet_tables(Path(raw_parquet_dir))
        except ValueError as error:
            print(f"challenge_fairness.spark_path: {error}", file=sys.stderr)
            outcome.returncode = 2
            return outcome
    started = time.perf_counter()
    with _cluster(local_cluster):
        if local_cluster is not None:
            outcome.seconds["cluster start"] = time.perf_counter() - started
        if raw_parquet_dir is not None:
            arguments = {"raw_dir": str(Path(raw_parquet_dir).resolve()), **raw_tables}
            if step(
                "raw tables registered on spark",
                "spark",
                ["run-operation", "register_raw_parquet_tables",
                 "--args", json.dumps(arguments), "--vars", json.dumps(shared)],
            ):  # fmt: skip
                return outcome
        if step(
            "scan stage on spark",
            "spark",
            ["run", "--select", "+tag:stage:scan", "--vars", json.dumps(shared)],
        ):
            return outcome
        export = str(Path(export_dir).resolve())
        step(
            "statistics on duckdb",
            "duckdb",
            ["build", "--vars", json.dumps(dict(shared, parquet_export_dir=export))],
        )
        if not Path(export).is_dir():
            return outcome
        step(
            "marts registered on spark",
            "spark",
            ["run-operation", "register_public_marts",
             "--args", json.dumps({"export_dir": export}), "--vars", json.dumps(shared)],
        )  # fmt: skip
    if local_cluster is not None:
        outcome.seconds["total with cluster stop"] = time.perf_counter() - started
    return outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m challenge_fairness.spark_path", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--scan-stage-dir", type=Path, required=True)
    parser.add_argument("--duckdb", type=Path, required=True, help="the statistics database")
    parser.add_argument("--export-dir", type=Path, required=True, help="the public marts")
    parser.add_argument("--vars", default="{}", help="dbt vars (YAML/JSON) for both targets")
    parser.add_argument("--raw-parquet-dir", type=Path, help="register these raw files first")
    parser.add_argument("--local-cluster", type=Path, help="run a local cluster in this folder")
    parser.add_argument("--project-dir", type=Path, default=PROJECT_DIR)
    arguments = parser.parse_args(argv)
    import yaml  # type: ignore[import-untyped]

    outcome = run(
        arguments.scan_stage_dir,
        arguments.duckdb,
        arguments.export_dir,
        yaml.safe_load(arguments.vars) or {},
        arguments.raw_parquet_dir,
        arguments.local_cluster,
        arguments.project_dir,
    )
    for name, seconds in outcome.seconds.items():
        print(f"{name:<34} {seconds:8.1f} s")
    return outcome.returncode


if __name__ == "__main__":
    raise SystemExit(main())
