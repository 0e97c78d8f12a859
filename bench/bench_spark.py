"""Spark path benchmark: where the time goes, and how small the scan stage is.

On the 10M-attempt platform of ``bench_core.py`` (with its test results), in one run:

1. the Spark path (``python -m challenge_fairness.spark_path``) on a local cluster of this
   machine (master, one worker with every core, Thrift Server; ``make spark-cluster``):
   cluster start, the raw files registered as tables, the scan stage on Spark, the
   statistics in DuckDB from the files Spark wrote, the marts registered back on Spark;
2. the all-DuckDB build of the same raw files, for reference, and the comparison of every
   mart, staging and intermediate relation of the two builds (1e-9);
3. the size on disk of each scan-stage table Spark wrote (what DuckDB reads), against the
   raw parquet files.

Usage::

    .venv/bin/python bench/bench_spark.py [--attempts N] [--test-cases K] [--skip-duckdb]

Results are written to ``bench/out/spark_results.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python_udfs"))
sys.path.insert(0, str(ROOT / "bench"))

import compare_marts  # noqa: E402
from bench_core import DEFAULT_ATTEMPTS, DEFAULT_TEST_CASES, OUT, ensure_data  # noqa: E402
from challenge_fairness import spark_path  # noqa: E402
from challenge_fairness.demo import PlatformSpec  # noqa: E402

VARS = {"fairness_gate_severity": "warn"}
IGNORED_COLUMNS = {*compare_marts.RUN_STAMP_COLUMNS, *compare_marts.ENGINE_HASH_COLUMNS}


def folder_bytes(path: Path) -> int:
    """Bytes of the parquet files under `path` (a file or a folder)."""
    if path.is_file():
        return path.stat().st_size
    return sum(part.stat().st_size for part in path.rglob("*.parquet"))


def parquet_rows(path: Path) -> int:
    pattern = str(path if path.is_file() else path / "*.parquet")
    return int(duckdb.sql(f"select count(*) from read_parquet('{pattern}')").fetchall()[0][0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attempts", type=int, default=DEFAULT_ATTEMPTS)
    parser.add_argument("--seed", type=int, default=PlatformSpec.seed)
    parser.add_argument("--test-cases", type=int, default=DEFAULT_TEST_CASES)
    parser.add_argument("--skip-duckdb", action="store_true", help="no all-DuckDB reference")
    args = parser.parse_args(argv)

    data = ensure_data(args.attempts, args.seed, args.test_cases)
    run_dir = OUT / f"spark_run_{args.attempts}"
    shutil.rmtree(run_dir, ignore_errors=True)
    run_dir.mkdir(parents=True)
    log = run_dir / "dbt.log"

    print(f"Spark path on {args.attempts:,} attempts (dbt output: {log}) ...", flush=True)
    started = time.perf_counter()
    outcome = spark_path.run(
        scan_stage_dir=run_dir / "scan",
        duckdb_path=run_dir / "spark_path.duckdb",
        export_dir=run_dir / "marts",
        dbt_vars=VARS,
        raw_parquet_dir=data,
        local_cluster=run_dir / "cluster",
        log=log,
        work_dir=run_dir,
    )
    total = time.perf_counter() - started
    if outcome.returncode:
        print(f"the Spark path failed (exit {outcome.returncode}): see {log}")
        return outcome.returncode

    results: dict[str, object] = {
        "attempts": args.attempts,
        "spark_path_seconds": outcome.seconds,
        "spark_path_total_seconds": total,
        "cores": os.cpu_count(),
    }
    if not args.skip_duckdb:
        database = run_dir / "duckdb.duckdb"
        command = [str(Path(sys.executable).with_name("dbt")), "build", "--quiet"]
        command += ["--vars", json.dumps({**VARS, "raw_parquet_dir": str(data)})]
        environment = dict(os.environ, CHALLENGE_FAIRNESS_DUCKDB=str(database))
        started = time.perf_counter()
        import subprocess

        with log.open("a") as output:
            code = subprocess.run(
                command, cwd=ROOT, env=environment, stdout=output, stderr=output, check=False
            ).returncode
        results["duckdb_build_seconds"] = time.perf_counter() - started
        if code:
            print(f"the all-DuckDB build failed (exit {code}): see {log}")
            return code
        results["relations_different"] = compare_marts.differences(
            database, run_dir / "spark_path.duckdb", ignore_columns=IGNORED_COLUMNS
        )

    raw = {path.stem: path for path in sorted(data.glob("*.parquet"))}
    scan = {path.name: path for path in sorted((run_dir / "scan").iterdir()) if path.is_dir()}
    raw_bytes = sum(folder_bytes(path) for path in raw.values())
    sizes = {
        name: {"rows": parquet_rows(path), "bytes": folder_bytes(path)}
        for name, path in {**{f"raw {k}": v for k, v in raw.items()}, **scan}.items()
    }
    results["sizes"] = sizes
    results["raw_bytes"] = raw_bytes

    print(f"\n{'step':<34}{'seconds':>9}")
    for name, seconds in outcome.seconds.items():
        print(f"{name:<34}{seconds:9.1f}")
    if "duckdb_build_seconds" in results:
        print(f"{'all-DuckDB build (reference)':<34}{results['duckdb_build_seconds']:9.1f}")
        print(f"relations that differ: {len(results['relations_different'])}")
        for line in results["relations_different"]:
            print(f"  {line}")
    print(f"\n{'table':<40}{'rows':>14}{'MiB':>10}{'of raw':>9}")
    for name, size in sizes.items():
        share = size["bytes"] / raw_bytes
        print(f"{name:<40}{size['rows']:>14,}{size['bytes'] / 2**20:>10.1f}{share:>9.1%}")
    path = OUT / "spark_results.json"
    path.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
