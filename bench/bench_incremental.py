"""Daily increments at scale: a full build, then one day's new attempts folded in.

One run

1. generates (or reuses) the ``bench_core.py`` platform of ``--base-attempts`` attempts
   (2 test results per attempt) and tiles it ``--tiles`` times in DuckDB (``attempt_id ||
   '-' || k``; the other tables as they are): a platform for time and memory, not for the
   statistics. It is cut in two days, written as parquet to
   ``bench/out/incremental_<attempts>_<new>/day1|day2/``: day 2 holds every attempt row
   and test result, day 1 all but the last ``--new`` attempt rows and their test results,
   so day 2's raw tables are day 1's with rows appended (an append-only log); not timed;
2. measures three ``dbt build`` runs (``bench/_measure.py``; each after an untimed ``dbt
   parse`` into its target directory, so it parses partially, as a scheduled run does):
   **full day 1** on a fresh database, **increment**: day 2 on that same database as the
   daily run of README "Run it daily" does it (var ``check_history`` false: the raw rows
   already folded are counted, not re-read, and the data tests tagged ``scans:history``
   are left to a scheduled check; dbt's unit tests are left out, as README's daily
   command does), and **full day 2** on a fresh database (default vars);
3. compares the increment's database with the full day-2 one (``compare_marts.py``: every
   relation of ``main``, the run histories left out, and of ``staging``, to 1e-9);
4. measures two runs of day 2 again on the increment's database, nothing new: **no
   change**, the daily run's fixed cost (the statistics recomputed from the facts), and
   **history check**, with the default vars: what the scheduled check of the history
   costs (one pass over each raw table and the data tests over every attempt);
5. prints the seconds, peak MiB and the increment's share of the full day-2 build (issue
   13: at most 15 %), the slowest nodes of the increment, and writes
   ``bench/out/incremental_results.json``.

Usage::

    .venv/bin/python bench/bench_incremental.py                      # 100M attempts, 1M new
    .venv/bin/python bench/bench_incremental.py --tiles 1 --new 100000   # 10M, quick

DuckDB's memory limit is ``--memory-limit`` (default 2GB, the runs the figures in
bench/README.md compare; at 1GB the builds complete too, on one dbt thread); it spills to
``<database>.tmp`` beyond it. Exit code 0 only when
every build succeeded and the marts are equal.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_core  # noqa: E402
import compare_marts  # noqa: E402

OUT = bench_core.OUT
INCREMENT_SHARE_TARGET = 0.15
RUN_HISTORIES = {"rpt_daily_bias_scan", "rpt_review_queue"}
# A count keeps the largest row it ever held: its watermark, not a result.
BOOKKEEPING = {
    "int_keyed__test_results_checked.last_source_row_number",
    "int_keyed__test_results_checked.last_attempt_row_number",
    "int_keyed__rubric_scores_checked.last_attempt_row_number",
    "int_attempt_score_cells_counted.last_source_row_number",
}
TOP_NODES = 8
# The daily run of README "Run it daily": the history (raw rows already folded, the data
# tests tagged scans:history) is checked by a scheduled run with the default vars instead.
DAILY_VARS = {"check_history": False}
# ... and leaves dbt's unit tests (the SQL on fixed inputs, not the data) to it and to CI.
DAILY_ARGS = ("--exclude-resource-type", "unit_test")
# Relations past this many rows are compared inside DuckDB, exactly, by a fingerprint
# (compare_marts.py reads both sides into pandas: at 100M attempts that would not fit).
LARGE_ROWS = 2_000_000
MARKER = "_complete.json"
TILED_TABLES = ("attempts", "test_results")
COPIED_TABLES = ("challenges", "agents", "models", "test_cases")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-attempts", type=int, default=10_000_000)
    parser.add_argument("--tiles", type=int, default=10, help="copies of the base platform")
    parser.add_argument("--new", type=int, default=1_000_000, help="attempt rows of day 2")
    parser.add_argument("--memory-limit", default="2GB", help="DuckDB memory limit")
    bench_core.add_agents_per_model(parser)
    return parser.parse_args(argv)


def tiled_days(base: Path, tiles: int, new: int, suffix: str = "") -> tuple[Path, Path]:
    """Write (or reuse) day 1 and day 2 of the tiled platform; return their directories."""
    con = duckdb.connect()
    n = con.execute(f"select count(*) from '{base}/attempts.parquet'").fetchone()[0]
    total = n * tiles
    if not 0 < new < total:
        raise SystemExit(f"--new must be between 1 and {total - 1}")
    directory = OUT / f"incremental_{total}_{new}{suffix}"
    days = directory / "day1", directory / "day2"
    if (directory / MARKER).exists():
        print(f"reusing data in {directory.relative_to(bench_core.ROOT)}")
        return days
    cut = total - new
    con.execute("set preserve_insertion_order = true")
    start = time.perf_counter()
    for day, limit in zip(days, (cut, total), strict=True):
        day.mkdir(parents=True, exist_ok=True)
        for table in COPIED_TABLES:
            con.execute(f"copy (from '{base}/{table}.parquet') to '{day}/{table}.parquet'")
        attempts = f"read_parquet('{base}/attempts.parquet', file_row_number = true)"
        # position = k * n + the attempt's row: day 1 is a prefix of day 2 in both tables,
        # the test results of the new attempts at the end
        con.execute(
            f"""copy (
                select attempt_id || '-' || k as attempt_id, challenge_id, agent_id, score,
                    submitted_at
                from {attempts}, range({tiles}) as tiles(k)
                where k * {n} + file_row_number < {limit}
                order by k, file_row_number
            ) to '{day}/attempts.parquet' (row_group_size 1000000)"""
        )
        con.execute(
            f"""copy (
                select results.attempt_id || '-' || k as attempt_id, results.test_case_id,
                    results.passed
                from read_parquet('{base}/test_results.parquet', file_row_number = true)
                    as results
                inner join (select attempt_id, file_row_number as position from {attempts})
                    as positions
                    on results.attempt_id = positions.attempt_id,
                    range({tiles}) as tiles(k)
                where k * {n} + positions.position < {limit}
                order by k * {n} + positions.position >= {cut}, k, results.file_row_number
            ) to '{day}/test_results.parquet' (row_group_size 1000000)"""
        )
    (directory / MARKER).write_text(json.dumps({"attempts": total, "new": new}) + "\n")
    print(f"  tiled {total:,} attempts in {time.perf_counter() - start:.0f} s")
    return days


def build(
    name: str,
    data: Path,
    database: Path,
    run_dir: Path,
    memory_limit: str,
    extra_vars: dict[str, Any] | None = None,
    extra_args: tuple[str, ...] = (),
) -> bench_core.Measurement:
    """Measure one ``dbt build`` of ``data`` into ``database`` (parsed partially), with
    ``extra_vars`` besides the raw files and the gate's severity, and ``extra_args``."""
    build_dir = run_dir / name
    build_dir.mkdir(parents=True)
    options = [
        "--profiles-dir", ".",
        "--project-dir", ".",
        "--target-path", str(build_dir / "target"),
        "--log-path", str(build_dir / "logs"),
        "--vars", json.dumps(
            {"raw_parquet_dir": str(data), "fairness_gate_severity": "warn", **(extra_vars or {})}
        ),
    ]  # fmt: skip
    env = {
        **os.environ,
        "CHALLENGE_FAIRNESS_DUCKDB": str(database),
        "CHALLENGE_FAIRNESS_MEMORY_LIMIT": memory_limit,
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }
    with (build_dir / "dbt_parse.log").open("w") as log:
        parsed = subprocess.run(
            [bench_core.dbt_executable(), "parse", *options],
            cwd=bench_core.ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
    if parsed.returncode != 0:
        bench_core.fail(f"dbt parse exited with {parsed.returncode}", build_dir / "dbt_parse.log")
    return bench_core.measure(
        f"dbt_build_{name}",
        [bench_core.dbt_executable(), "build", *options, *extra_args],
        build_dir,
        env,
    )


def large_relations(database: Path, schema: str) -> set[str]:
    """The relations of ``schema`` with more than LARGE_ROWS rows."""
    with duckdb.connect(str(database), read_only=True) as con:
        names = con.execute(
            "select table_name from information_schema.tables where table_schema = ?", [schema]
        ).fetchall()
        return {
            name
            for (name,) in names
            if con.execute(f'select count(*) from "{schema}"."{name}"').fetchone()[0] > LARGE_ROWS
        }


def differ_in_duckdb(old: Path, new: Path, schema: str, relation: str) -> list[str]:
    """Whether the two sides hold the same rows (as multisets, values exactly): their count
    and the sum of a 64-bit hash of every row, computed in DuckDB in constant memory."""
    fingerprints = []
    for database in (old, new):
        with duckdb.connect(str(database), read_only=True) as con:
            fingerprints.append(
                con.execute(
                    f'select count(*), sum(hash(rows)) from "{schema}"."{relation}" as rows'
                ).fetchone()
            )
    if fingerprints[0] == fingerprints[1]:
        return []
    return [f"rows and row-hash sum: {fingerprints[0]} -> {fingerprints[1]}"]


def slowest_nodes(run_dir: Path, name: str) -> list[tuple[str, float]]:
    results = json.loads((run_dir / name / "target" / "run_results.json").read_text())
    nodes = sorted(results["results"], key=lambda node: -node["execution_time"])
    return [(node["unique_id"].split(".")[-1], node["execution_time"]) for node in nodes]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    base = bench_core.ensure_data(
        args.base_attempts,
        bench_core.PlatformSpec.seed,
        bench_core.DEFAULT_TEST_CASES,
        args.agents_per_model,
    )
    day1, day2 = tiled_days(
        base, args.tiles, args.new, bench_core.shape_suffix(args.agents_per_model)
    )
    run_dir = OUT / f"incremental_run_{day1.parent.name.removeprefix('incremental_')}"
    if run_dir.exists():
        subprocess.run(["rm", "-rf", str(run_dir)], check=True)
    run_dir.mkdir(parents=True)
    daily, fresh = run_dir / "daily.duckdb", run_dir / "fresh.duckdb"
    measured = {
        "full_day1": build("full_day1", day1, daily, run_dir, args.memory_limit),
        "increment": build(
            "increment", day2, daily, run_dir, args.memory_limit, DAILY_VARS, DAILY_ARGS
        ),
        "full_day2": build("full_day2", day2, fresh, run_dir, args.memory_limit),
    }
    differing: dict[str, list[str]] = {}
    for schema, ignore in (("main", RUN_HISTORIES), ("staging", set())):
        large = large_relations(fresh, schema) - ignore
        results = compare_marts.compare(
            fresh,
            daily,
            schema,
            1e-9,
            ignore | large,
            set(compare_marts.RUN_STAMP_COLUMNS) | BOOKKEEPING,
        )
        differing |= {
            f"{schema}.{r.relation}": r.details[:3] for r in results if r.status != "equal"
        }
        for relation in sorted(large):
            if details := differ_in_duckdb(fresh, daily, schema, relation):
                differing[f"{schema}.{relation}"] = details
    measured["no_change"] = build(
        "no_change", day2, daily, run_dir, args.memory_limit, DAILY_VARS, DAILY_ARGS
    )
    measured["history_check"] = build("history_check", day2, daily, run_dir, args.memory_limit)
    share = measured["increment"].seconds / measured["full_day2"].seconds
    floor = measured["no_change"].seconds / measured["full_day2"].seconds
    checked = measured["history_check"].seconds / measured["full_day2"].seconds
    nodes = slowest_nodes(run_dir, "increment")
    report: dict[str, Any] = {
        "attempts": {"day1": day1.parent.name, "new": args.new},
        "memory_limit": args.memory_limit,
        "machine": {"cores": os.cpu_count(), "python": platform.python_version()},
        "builds": {name: vars(m) for name, m in measured.items()},
        "increment_share": share,
        "increment_share_target": INCREMENT_SHARE_TARGET,
        "no_change_share": floor,
        "history_check_share": checked,
        "marts_equal": not differing,
        "differing": differing,
        "increment_nodes": nodes[:40],
    }
    (OUT / "incremental_results.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"\n{'build':<11} {'wall s':>8} {'CPU s':>8} {'peak MiB':>9}")
    for name, m in measured.items():
        print(f"{name:<11} {m.seconds:8.1f} {m.cpu_seconds:8.1f} {m.peak_mib:9.0f}")
    verdict = "met" if share <= INCREMENT_SHARE_TARGET else "NOT met"
    print(
        f"increment / full day 2: {share:.1%} (target <= {INCREMENT_SHARE_TARGET:.0%}: {verdict})"
    )
    print(f"a daily run with nothing new / full day 2: {floor:.1%}")
    print(f"a run that checks the history (default vars), nothing new / full day 2: {checked:.1%}")
    print(f"DuckDB memory limit {args.memory_limit}, spilling to <database>.tmp beyond it")
    print(
        "slowest nodes of the increment: "
        + ", ".join(f"{n} {s:.1f} s" for n, s in nodes[:TOP_NODES])
    )
    print("marts of the increment equal the full build: " + ("yes" if not differing else "NO"))
    for relation, details in differing.items():
        print(f"  {relation}: {details}")
    return 0 if not differing else 1


if __name__ == "__main__":
    raise SystemExit(main())
