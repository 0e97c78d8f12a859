"""Floor benchmark: the least time and memory any ``dbt build`` of this package can take.

Issue 11 asks the full build to be at most as slow as the pandas + scipy script
(``bench/bench_core.py``) and ``--select +fct_challenge_verdicts`` at most 0.4 of it, with a
quarter of its peak memory. This script measures, in one run on the same platform, the two
costs no design of the build can avoid, so that those targets can be checked against what
is possible at all:

1. **scan**: the bare scan a build needs under the issue's own rules, in plain DuckDB (no
   dbt, no UDF) at the profile's memory limit, in a process of its own. It is less than
   the package does (no rejection reasons, raw records, row conservation or statistics):

   - attempts: the repeated ``attempt_id`` keys; the clean attempts (no repeated key, a
     known challenge and agent, a score in 0..100) kept once, slim; their counts per
     (challenge, agent, day, score), the fact the verdict reads;
   - test results: the repeated (attempt, test case) keys; the counts per (test case,
     agent, score band, passed) of the results of clean attempts whose test case belongs
     to the attempt's challenge, which needs the join of every test result to the attempts.

   The attempts part alone is the floor of the verdict's subgraph.
2. **dbt**: ``dbt build --select base_platform__models`` (one 12-row model and its test),
   warm (after an untimed ``dbt parse``), on a fresh database: interpreter start-up and
   imports, partial parse, the plugin's UDF registration, the project hooks and the
   artifacts. Every build pays this once.
3. **pandas**: ``bench/_pandas_run.py``, as in ``bench_core.py``.

It prints each measurement, the floors (scan + dbt, attempts part + dbt, dbt's peak memory)
as ratios to pandas, and whether issue 11's targets lie above or below them.

Usage::

    .venv/bin/python bench/bench_floor.py [--attempts N] [--seed S] [--test-cases K]
                                          [--memory-limit 50%]

Results are written to ``bench/out/floor_results.json``.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_core import (  # noqa: E402
    DEFAULT_ATTEMPTS,
    DEFAULT_TEST_CASES,
    MEMORY_RATIO_TARGET,
    OUT,
    ROOT,
    TIME_RATIO_TARGET,
    add_agents_per_model,
    dbt_executable,
    ensure_data,
    measure,
    run_pandas,
    shape_suffix,
)
from challenge_fairness.demo import PlatformSpec  # noqa: E402

PROFILE_MEMORY_LIMIT = "50%"  # the profile's default
DBT_FIXED_SELECTION = "base_platform__models"

# The bare scan, one statement per step; {data} is the parquet folder.
ATTEMPT_STEPS = (
    (
        "attempt key duplicates",
        """create table attempt_duplicates as
        select attempt_id from read_parquet('{data}/attempts.parquet')
        group by attempt_id having count(*) > 1""",
    ),
    (
        "clean attempts (slim copy)",
        """create table attempts as
        select
            attempts.attempt_id,
            attempts.challenge_id,
            attempts.agent_id,
            least(cast(floor(attempts.score * 10 / 100.0) as bigint), 9) as score_band,
            attempts.score,
            cast(attempts.submitted_at as date) as submitted_on
        from read_parquet('{data}/attempts.parquet') as attempts
        inner join read_parquet('{data}/challenges.parquet') as challenges
            on attempts.challenge_id = challenges.challenge_id
        inner join read_parquet('{data}/agents.parquet') as agents
            on attempts.agent_id = agents.agent_id
        where attempts.score between 0 and 100
            and attempts.attempt_id not in (select attempt_id from attempt_duplicates)""",
    ),
    (
        "attempt score counts",
        """create table attempt_score_counts as
        select challenge_id, agent_id, submitted_on, score, count(*) as attempts
        from attempts
        group by challenge_id, agent_id, submitted_on, score""",
    ),
)
TEST_RESULT_STEPS = (
    (
        "test result key duplicates",
        """create table test_result_duplicates as
        select attempt_id, test_case_id from read_parquet('{data}/test_results.parquet')
        group by attempt_id, test_case_id having count(*) > 1""",
    ),
    (
        "test result counts",
        """create table test_result_counts as
        select
            results.test_case_id, attempts.agent_id, attempts.score_band, results.passed,
            count(*) as results
        from read_parquet('{data}/test_results.parquet') as results
        inner join attempts
            on results.attempt_id = attempts.attempt_id
        inner join read_parquet('{data}/test_cases.parquet') as test_cases
            on results.test_case_id = test_cases.test_case_id
            and test_cases.challenge_id = attempts.challenge_id
        group by results.test_case_id, attempts.agent_id, attempts.score_band, results.passed""",
    ),
)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attempts", type=int, default=DEFAULT_ATTEMPTS, help="attempts")
    parser.add_argument("--seed", type=int, default=PlatformSpec.seed, help="generator seed")
    parser.add_argument("--test-cases", type=int, default=DEFAULT_TEST_CASES)
    add_agents_per_model(parser)
    parser.add_argument(
        "--memory-limit",
        default=os.environ.get("CHALLENGE_FAIRNESS_MEMORY_LIMIT", PROFILE_MEMORY_LIMIT),
        help="DuckDB memory limit of the scan and the dbt build (default: the profile's)",
    )
    parser.add_argument("--scan-into", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", type=Path, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def run_scan(database: Path, data_dir: Path, memory_limit: str) -> None:
    """The bare scan (child process): each step's seconds to ``<database>.steps.json``."""
    steps: dict[str, float] = {}
    with duckdb.connect(str(database)) as con:
        con.execute(f"set memory_limit = '{memory_limit}'")
        con.execute("set preserve_insertion_order = false")
        con.execute(f"set temp_directory = '{database}.tmp'")
        for name, sql in ATTEMPT_STEPS + TEST_RESULT_STEPS:
            start = time.perf_counter()
            con.execute(sql.format(data=data_dir))
            steps[name] = time.perf_counter() - start
    Path(f"{database}.steps.json").write_text(json.dumps(steps, indent=2) + "\n")


def measure_dbt_fixed(data_dir: Path, run_dir: Path) -> dict[str, float]:
    """Warm ``dbt build`` of one small model on a fresh database."""
    build_dir = run_dir / "dbt_fixed"
    build_dir.mkdir()
    options = [
        "--profiles-dir", ".",
        "--project-dir", ".",
        "--target-path", str(build_dir / "target"),
        "--log-path", str(build_dir / "logs"),
        "--vars", json.dumps({"raw_parquet_dir": str(data_dir)}),
    ]  # fmt: skip
    env = {
        **os.environ,
        "CHALLENGE_FAIRNESS_DUCKDB": str(build_dir / "bench.duckdb"),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }
    # its time is not used: it only writes the manifest the build then parses partially from
    measure("dbt_parse", [dbt_executable(), "parse", *options], build_dir, env)
    build = measure(
        "dbt_fixed",
        [dbt_executable(), "build", "--select", DBT_FIXED_SELECTION, *options],
        build_dir,
        env,
    )
    return {"seconds": build.seconds, "peak_mib": build.peak_mib}


def main(argv: list[str] | None = None) -> int:
    """Measure the scan, dbt's fixed cost and pandas; print the floors against the targets."""
    args = parse_args(argv)
    if args.scan_into:
        run_scan(args.scan_into, args.data_dir, args.memory_limit)
        return 0
    os.environ["CHALLENGE_FAIRNESS_MEMORY_LIMIT"] = args.memory_limit
    data_dir = ensure_data(args.attempts, args.seed, args.test_cases, args.agents_per_model)
    run_dir = OUT / f"floor_run_{args.attempts}_{args.seed}{shape_suffix(args.agents_per_model)}"
    shutil.rmtree(run_dir, ignore_errors=True)
    run_dir.mkdir(parents=True)

    database = run_dir / "scan.duckdb"
    scan_command = [
        sys.executable, __file__, "--scan-into", str(database), "--data-dir", str(data_dir),
        "--memory-limit", args.memory_limit,
    ]  # fmt: skip
    scan = measure("scan", scan_command, run_dir, dict(os.environ))
    steps = json.loads(Path(f"{database}.steps.json").read_text())
    attempt_seconds = sum(steps[name] for name, _ in ATTEMPT_STEPS)
    dbt_fixed = measure_dbt_fixed(data_dir, run_dir)
    pandas, _ = run_pandas(data_dir, run_dir)

    floors = {
        "full build": scan.seconds + dbt_fixed["seconds"],
        "verdicts": attempt_seconds + dbt_fixed["seconds"],
    }
    results = {
        "attempts": args.attempts,
        "seed": args.seed,
        "agents_per_model": args.agents_per_model,
        "memory_limit": args.memory_limit,
        "scan": {"seconds": scan.seconds, "peak_mib": scan.peak_mib, "steps": steps},
        "dbt_fixed": dbt_fixed,
        "pandas": {"seconds": pandas.seconds, "peak_mib": pandas.peak_mib},
        "floor_seconds": floors,
        "floor_time_ratio": {k: v / pandas.seconds for k, v in floors.items()},
        "floor_memory_ratio": dbt_fixed["peak_mib"] / pandas.peak_mib,
        "targets": {
            "full build": TIME_RATIO_TARGET["warm"],
            "verdicts": TIME_RATIO_TARGET["verdicts"],
            "memory": MEMORY_RATIO_TARGET,
        },
    }

    print(f"\nattempts: {args.attempts:,}   DuckDB memory limit: {args.memory_limit}")
    print(f"scan (plain DuckDB)      {scan.seconds:7.1f} s  {scan.peak_mib:7.0f} MiB")
    for name, seconds in steps.items():
        print(f"  {name:<27}{seconds:6.1f} s")
    print(
        f"dbt fixed cost           {dbt_fixed['seconds']:7.1f} s  {dbt_fixed['peak_mib']:7.0f} MiB"
    )
    print(f"pandas + scipy           {pandas.seconds:7.1f} s  {pandas.peak_mib:7.0f} MiB")
    for name, seconds in floors.items():
        ratio = results["floor_time_ratio"][name]
        target = results["targets"][name]
        reach = "unreachable" if ratio > target else "within reach"
        print(
            f"floor of the {name}: {seconds:.1f} s = {ratio:.2f} x pandas "
            f"(target <= {target:.2f}: {reach})"
        )
    print(
        f"floor of peak memory (dbt alone): {results['floor_memory_ratio']:.2f} x pandas; "
        f"target {MEMORY_RATIO_TARGET:.2f} leaves DuckDB "
        f"{MEMORY_RATIO_TARGET * pandas.peak_mib - dbt_fixed['peak_mib']:.0f} MiB"
    )
    path = OUT / "floor_results.json"
    path.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
