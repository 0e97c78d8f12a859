"""Core benchmark: the full ``dbt build`` against a plain pandas + scipy implementation.

One run

1. generates (or reuses) a simulated platform of ``--attempts`` attempts, with
   ``--test-cases`` test cases per challenge (about that many test results per attempt), as
   parquet in ``bench/out/data_<attempts>_<seed>_tc<test cases>/`` (not timed);
2. runs ``dbt build`` of this project on that parquet three times, each into a fresh DuckDB
   file and in its own process tree, measuring wall-clock time and peak RSS
   (``bench/_measure.py``): **cold**, with a fresh target directory (full parse), **warm**,
   after an untimed ``dbt parse`` into its target directory, so that the build parses
   partially, as a scheduled daily run of an unchanged project does, and **verdicts**, warm
   and only ``--select +fct_challenge_verdicts`` (dbt's default indirect selection);
3. runs ``bench/_pandas_run.py`` (pandas reads the parquet, ``tests/pandas_reference.py``
   computes the four core statistics) the same way, unless ``--skip-pandas``;
4. prints a table with the measurements, the dbt/pandas ratios of the builds and whether
   issue 11's targets (time ratio <= 1.0 for the full builds, <= 0.4 for the verdicts;
   memory ratio <= 1/4) are met, the mart row counts, the top dbt nodes by execution time,
   and checks that both full builds give the same marts and that they and pandas flag the
   same (challenge, family) pairs in ``fct_family_deviation``;
5. writes everything to ``bench/out/core_results.json``.

Usage::

    .venv/bin/python bench/bench_core.py [--attempts N] [--seed S] [--test-cases K]
                                         [--skip-pandas] [--memory-limit 192MB]

Exit code 0 only when every measured command succeeded, the warm build parsed partially,
and the flagged sets agree.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
OUT = BENCH / "out"
sys.path.insert(0, str(ROOT / "python_udfs"))

from challenge_fairness.demo import PlatformSpec, generate_platform, write_parquet  # noqa: E402

# 50 templated challenges come from the fixed catalogue; 231 standalone ones make ~281.
N_STANDALONE_CHALLENGES = 231
DEFAULT_ATTEMPTS = 10_000_000
DEFAULT_TEST_CASES = 2  # test cases per challenge: about 2 test results per attempt
# Issue 11: the full build at most as slow as the pandas script with a quarter of its peak
# memory; the verdict's subgraph (`--select +fct_challenge_verdicts`) at most 0.4 of its time.
TIME_RATIO_TARGET = {"cold": 1.0, "warm": 1.0, "verdicts": 0.4}
MEMORY_RATIO_TARGET = 1 / 4
MARTS = (
    "fct_family_deviation",
    "fct_combination_difficulty",
    "fct_family_kruskal_wallis",
    "fct_family_effect_sizes",
)
TABLES = ("attempts", "challenges", "agents", "models")
TEST_TABLES = ("test_cases", "test_results")
DATA_MARKER = "_complete.json"
TOP_NODES = 5
LOG_TAIL_LINES = 40
BUILDS = ("cold", "warm", "verdicts")
FULL_BUILDS = ("cold", "warm")
VERDICT_SELECTION = "+fct_challenge_verdicts"
# dbt's info-level line when it cannot reuse the saved manifest.
FULL_PARSE_MARKER = "Unable to do partial parsing"


@dataclass(frozen=True)
class Measurement:
    """Wall-clock time and peak memory of one measured command."""

    seconds: float
    cpu_seconds: float
    load_average_1min: dict[str, float]
    peak_mib: float
    tree_rss_sampled_peak_mib: float | None
    returncode: int
    log: str


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attempts", type=int, default=DEFAULT_ATTEMPTS, help="attempts")
    parser.add_argument("--seed", type=int, default=PlatformSpec.seed, help="generator seed")
    parser.add_argument(
        "--test-cases",
        type=int,
        default=DEFAULT_TEST_CASES,
        help="test cases per challenge, so test results per scored attempt (0: no test tables)",
    )
    add_agents_per_model(parser)
    parser.add_argument("--skip-pandas", action="store_true", help="measure the dbt build only")
    parser.add_argument(
        "--memory-limit",
        help="DuckDB memory limit of the dbt builds, e.g. 192MB "
        "(sets CHALLENGE_FAIRNESS_MEMORY_LIMIT; default: the environment's, else the profile's)",
    )
    return parser.parse_args(argv)


def add_agents_per_model(parser: argparse.ArgumentParser) -> None:
    """The platform's shape: agents per model (6 families x 2 models: 12 x this many)."""
    parser.add_argument(
        "--agents-per-model",
        type=int,
        default=PlatformSpec.agents_per_model,
        help="agents per model: 12 x this many agents (default %(default)s: 36; 12: 144)",
    )


def shape_suffix(agents_per_model: int) -> str:
    """The data and run directories' suffix of a shape other than the default."""
    return "" if agents_per_model == PlatformSpec.agents_per_model else f"_apm{agents_per_model}"


def ensure_data(
    attempts: int,
    seed: int,
    test_cases: int,
    agents_per_model: int = PlatformSpec.agents_per_model,
) -> Path:
    """Return the parquet directory for (attempts, seed, test cases per challenge, agents
    per model), generating it when not cached."""
    directory = OUT / f"data_{attempts}_{seed}_tc{test_cases}{shape_suffix(agents_per_model)}"
    marker = directory / DATA_MARKER
    tables = TABLES + (TEST_TABLES if test_cases else ())
    if marker.exists() and all((directory / f"{t}.parquet").exists() for t in tables):
        print(f"reusing data in {directory.relative_to(ROOT)}")
        return directory
    spec = PlatformSpec(
        seed=seed,
        n_attempts=attempts,
        n_standalone_challenges=N_STANDALONE_CHALLENGES,
        test_cases_per_challenge=test_cases,
        agents_per_model=agents_per_model,
    )
    print(f"generating {attempts:,} attempts (seed {seed}) ...", flush=True)
    start = time.perf_counter()
    platform_data = generate_platform(spec)
    shutil.rmtree(directory, ignore_errors=True)
    write_parquet(platform_data, str(directory))
    rows = {name: table.num_rows for name, table in platform_data.tables.items()}
    del platform_data
    # Written last: a directory without it is an interrupted write and is regenerated.
    marker.write_text(json.dumps({"seed": seed, "n_attempts": attempts, "rows": rows}) + "\n")
    print(f"  wrote {rows} in {time.perf_counter() - start:.1f} s")
    return directory


def measure(name: str, command: list[str], run_dir: Path, env: dict[str, str]) -> Measurement:
    """Run ``command`` via ``bench/_measure.py``, its output into ``<run_dir>/<name>.log``."""
    result_path = run_dir / f"{name}_measure.json"
    log_path = run_dir / f"{name}.log"
    wrapper = [sys.executable, str(BENCH / "_measure.py"), str(result_path), "--", *command]
    print(f"running {name} ...", flush=True)
    with log_path.open("w") as log:
        subprocess.run(wrapper, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    if not result_path.exists():
        fail(f"{name}: the measuring wrapper wrote no result", log_path)
    result = json.loads(result_path.read_text())
    measurement = Measurement(
        seconds=result["wall_seconds"],
        cpu_seconds=result["cpu_seconds"],
        load_average_1min=result["load_average_1min"],
        peak_mib=result["max_rss_mib"],
        tree_rss_sampled_peak_mib=result["tree_rss_sampled_peak_mib"],
        returncode=result["returncode"],
        log=str(log_path.relative_to(ROOT)),
    )
    if measurement.returncode != 0:
        fail(f"{name} exited with {measurement.returncode}", log_path)
    print(
        f"  {measurement.seconds:.1f} s ({measurement.cpu_seconds:.1f} s CPU), "
        f"peak {measurement.peak_mib:.0f} MiB"
    )
    return measurement


def fail(message: str, log_path: Path) -> None:
    """Print the tail of a log and stop the benchmark with exit code 1."""
    if log_path.exists():
        tail = log_path.read_text(errors="replace").splitlines()[-LOG_TAIL_LINES:]
        print(f"--- last {len(tail)} lines of {log_path} ---", file=sys.stderr)
        print("\n".join(tail), file=sys.stderr)
    print(f"BENCHMARK FAILED: {message}", file=sys.stderr)
    raise SystemExit(1)


def dbt_executable() -> str:
    """The dbt next to this interpreter (the project venv), else the one on PATH."""
    beside = Path(sys.executable).with_name("dbt")
    if beside.exists():
        return str(beside)
    found = shutil.which("dbt")
    if found is None:
        raise SystemExit("dbt not found: run with the project venv's python")
    return found


def run_dbt(data_dir: Path, run_dir: Path, build: str) -> tuple[Measurement, Path, bool]:
    """Measure one ``dbt build`` on the parquet in ``data_dir``, into ``run_dir/<build>/``.

    ``build`` is 'cold' (fresh target directory: full parse, as on a first run), 'warm'
    (an untimed ``dbt parse`` first, with the same profile, vars and target directory, so
    the build reuses the saved manifest) or 'verdicts' (warm, and only
    ``--select +fct_challenge_verdicts`` with dbt's default indirect selection, on its own
    fresh database). Returns the measurement, the DuckDB file and whether the build parsed
    partially.
    """
    build_dir = run_dir / build
    build_dir.mkdir(parents=True)
    database = build_dir / "bench.duckdb"
    dbt_vars = json.dumps({"raw_parquet_dir": str(data_dir), "fairness_gate_severity": "warn"})
    options = [
        "--profiles-dir", ".",
        "--project-dir", ".",
        "--target-path", str(build_dir / "target"),
        "--log-path", str(build_dir / "logs"),
        "--vars", dbt_vars,
    ]  # fmt: skip
    env = {
        **os.environ,
        "CHALLENGE_FAIRNESS_DUCKDB": str(database),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }
    if build != "cold":
        parse_log = build_dir / "dbt_parse.log"
        print("parsing (untimed) ...", flush=True)
        with parse_log.open("w") as log:
            parsed = subprocess.run(
                [dbt_executable(), "parse", *options],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        if parsed.returncode != 0:
            fail(f"dbt parse exited with {parsed.returncode}", parse_log)
    selection = ["--select", VERDICT_SELECTION] if build == "verdicts" else []
    measurement = measure(
        f"dbt_build_{build}", [dbt_executable(), "build", *selection, *options], build_dir, env
    )
    partial = FULL_PARSE_MARKER not in (ROOT / measurement.log).read_text(errors="replace")
    return measurement, database, partial


def run_pandas(data_dir: Path, run_dir: Path) -> tuple[Measurement, dict[str, Any]]:
    """Measure the pandas + scipy implementation; return it and its summary JSON."""
    summary_path = run_dir / "pandas_result.json"
    command = [sys.executable, str(BENCH / "_pandas_run.py"), str(data_dir), str(summary_path)]
    measurement = measure("pandas", command, run_dir, dict(os.environ))
    return measurement, json.loads(summary_path.read_text())


def read_marts(database: Path) -> tuple[dict[str, int], list[list[str]]]:
    """Row counts of the core marts and the flagged (challenge, family) pairs from DuckDB."""
    with duckdb.connect(str(database), read_only=True) as con:
        counts = {}
        for mart in MARTS:
            row = con.execute(f"select count(*) from main.{mart}").fetchone()
            counts[mart] = int(row[0]) if row else 0
        flagged = con.execute(
            "select challenge_id, model_family from main.fct_family_deviation "
            "where is_flagged order by all"
        ).fetchall()
    return counts, [[str(c), str(f)] for c, f in flagged]


def dbt_timing(target: Path) -> dict[str, Any]:
    """Run-phase elapsed time and the slowest nodes from dbt's run_results.json."""
    run_results = json.loads((target / "run_results.json").read_text())
    nodes = []
    for result in run_results["results"]:
        phases = {
            phase["name"]: (
                datetime.fromisoformat(phase["completed_at"].replace("Z", "+00:00"))
                - datetime.fromisoformat(phase["started_at"].replace("Z", "+00:00"))
            ).total_seconds()
            for phase in result.get("timing", [])
            if phase.get("started_at") and phase.get("completed_at")
        }
        nodes.append(
            {
                "unique_id": result["unique_id"],
                "status": result["status"],
                "execution_time": result["execution_time"],
                "compile_seconds": phases.get("compile"),
                "execute_seconds": phases.get("execute"),
            }
        )
    nodes.sort(key=lambda node: node["execution_time"], reverse=True)
    return {
        "run_elapsed_seconds": run_results.get("elapsed_time"),
        "node_count": len(nodes),
        "sum_node_execution_seconds": sum(node["execution_time"] for node in nodes),
        "statuses": {s: sum(n["status"] == s for n in nodes) for s in {n["status"] for n in nodes}},
        "top_nodes": nodes[:TOP_NODES],
    }


def verdict(ratio: float, target: float) -> str:
    """'met' when the dbt/pandas ratio is at or below its target."""
    return "met" if ratio <= target else "NOT met"


def print_report(results: dict[str, Any]) -> None:
    """Print the measurements, ratios, sanity checks and slowest dbt nodes."""
    dbt, pandas = results["dbt"], results.get("pandas")
    print()
    print(f"attempts: {results['attempts']:,}   seed: {results['seed']}")
    print(f"{'':<22}{'seconds':>10}{'peak MiB':>12}{'CPU s':>10}{'load 1m':>14}")
    sides = [(f"dbt build ({build})", dbt[build]) for build in BUILDS]
    if pandas is not None:
        sides.append(("pandas + scipy", pandas))
    for label, side in sides:
        load = side["load_average_1min"]
        print(
            f"{label:<22}{side['seconds']:>10.1f}{side['peak_mib']:>12.0f}"
            f"{side['cpu_seconds']:>10.1f}{load['start']:>7.2f}{load['end']:>7.2f}"
        )
    if pandas is not None:
        for build in BUILDS:
            ratios = results["ratios"][build]
            label = f"{build} / pandas"
            print(
                f"{label:<22}{ratios['time']:>10.3f}{ratios['memory']:>12.3f}"
                f"   target <= {TIME_RATIO_TARGET[build]:.2f} time: {ratios['time_target']},"
                f" <= {MEMORY_RATIO_TARGET:.2f} memory: {ratios['memory_target']}"
            )
    print(
        "cold: fresh target directory, full parse; warm: after an untimed `dbt parse`, "
        f"partial parse {'used' if results['dbt_warm_partial_parse'] else 'NOT used'}"
    )
    for name, side in sides:
        sampled = side["tree_rss_sampled_peak_mib"]
        if sampled is not None and sampled > 1.05 * side["peak_mib"]:
            print(
                f"note: {name}'s sampled process-tree RSS sum peaked at {sampled:.0f} MiB, above "
                "the largest single process: concurrent children held memory"
            )

    print("\nmart row counts (dbt from DuckDB" + (", pandas" if pandas else "") + "):")
    for mart in MARTS:
        line = f"  {mart:<30}{results['dbt_mart_rows'][mart]:>10,}"
        if pandas is not None:
            line += f"{results['pandas_summary']['mart_rows'][mart]:>10,}"
        print(line)
    same = "the same" if results["dbt_builds_agree"] else "DIFFERENT"
    print(f"cold and warm dbt builds give {same} mart row counts and flagged pairs")
    print(f"flagged in fct_family_deviation (dbt): {len(results['dbt_flagged'])}")
    if pandas is not None:
        agree = "agree" if results["flagged_sets_agree"] else "DISAGREE"
        print(f"flagged sets of dbt and pandas {agree}")

    for build in BUILDS:
        timing = results["dbt_timing"][build]
        print(
            f"\ndbt build ({build}): run phase {timing['run_elapsed_seconds']:.1f} s of "
            f"{dbt[build]['seconds']:.1f} s wall, {timing['node_count']} nodes "
            f"{timing['statuses']}, sum of node times "
            f"{timing['sum_node_execution_seconds']:.1f} s; slowest nodes:"
        )
        for node in timing["top_nodes"]:
            print(f"  {node['execution_time']:>8.2f} s  {node['unique_id']}")


def main(argv: list[str] | None = None) -> int:
    """Generate or reuse the data, measure both implementations, report and save."""
    args = parse_args(argv)
    if args.memory_limit:
        os.environ["CHALLENGE_FAIRNESS_MEMORY_LIMIT"] = args.memory_limit
    OUT.mkdir(parents=True, exist_ok=True)
    data_dir = ensure_data(args.attempts, args.seed, args.test_cases, args.agents_per_model)
    run_dir = OUT / f"core_run_{args.attempts}_{args.seed}{shape_suffix(args.agents_per_model)}"
    shutil.rmtree(run_dir, ignore_errors=True)
    run_dir.mkdir(parents=True)

    measured: dict[str, Measurement] = {}
    marts: dict[str, tuple[dict[str, int], list[list[str]]]] = {}
    partial_parse: dict[str, bool] = {}
    for build in BUILDS:
        measured[build], database, partial_parse[build] = run_dbt(data_dir, run_dir, build)
        if build in FULL_BUILDS:
            marts[build] = read_marts(database)
    dbt_rows, dbt_flagged = marts["warm"]
    results: dict[str, Any] = {
        "timestamp": datetime.now(UTC).isoformat(timespec="seconds"),
        "attempts": args.attempts,
        "seed": args.seed,
        "n_standalone_challenges": N_STANDALONE_CHALLENGES,
        "agents_per_model": args.agents_per_model,
        "data_dir": str(data_dir.relative_to(ROOT)),
        "data_rows": json.loads((data_dir / DATA_MARKER).read_text())["rows"],
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "duckdb": duckdb.__version__,
            "dbt_threads": os.environ.get("CHALLENGE_FAIRNESS_THREADS", "profile default"),
            "duckdb_memory_limit": os.environ.get(
                "CHALLENGE_FAIRNESS_MEMORY_LIMIT", "profile default"
            ),
        },
        "targets": {"time_ratio_max": TIME_RATIO_TARGET, "memory_ratio_max": MEMORY_RATIO_TARGET},
        "dbt": {build: asdict(measured[build]) for build in BUILDS},
        "dbt_warm_partial_parse": partial_parse["warm"],
        "dbt_builds_agree": marts["cold"] == marts["warm"],
        "dbt_mart_rows": dbt_rows,
        "dbt_flagged": dbt_flagged,
        "dbt_timing": {build: dbt_timing(run_dir / build / "target") for build in BUILDS},
    }

    if not args.skip_pandas:
        pandas, summary = run_pandas(data_dir, run_dir)
        results["pandas"] = asdict(pandas)
        results["pandas_summary"] = {
            k: v for k, v in summary.items() if k != "flagged_family_deviation"
        }
        results["ratios"] = {}
        for build in BUILDS:
            time_ratio = measured[build].seconds / pandas.seconds
            memory_ratio = measured[build].peak_mib / pandas.peak_mib
            results["ratios"][build] = {
                "time": time_ratio,
                "memory": memory_ratio,
                "time_target": verdict(time_ratio, TIME_RATIO_TARGET[build]),
                "memory_target": verdict(memory_ratio, MEMORY_RATIO_TARGET),
            }
        pandas_flagged = summary["flagged_family_deviation"]
        results["flagged_sets_agree"] = pandas_flagged == dbt_flagged
        results["flagged_only_in_dbt"] = [p for p in dbt_flagged if p not in pandas_flagged]
        results["flagged_only_in_pandas"] = [p for p in pandas_flagged if p not in dbt_flagged]

    print_report(results)
    results_path = OUT / "core_results.json"
    results_path.write_text(json.dumps(results, indent=2) + "\n")
    print(f"\nwrote {results_path.relative_to(ROOT)}")
    if not results["dbt_warm_partial_parse"]:
        print("BENCHMARK FAILED: the warm dbt build did not parse partially", file=sys.stderr)
        return 1
    if not results["dbt_builds_agree"]:
        print("BENCHMARK FAILED: the cold and warm dbt builds differ", file=sys.stderr)
        return 1
    if results.get("flagged_sets_agree") is False:
        print(
            "BENCHMARK FAILED: flagged (challenge, family) sets differ: "
            f"only dbt {results['flagged_only_in_dbt']}, "
            f"only pandas {results['flagged_only_in_pandas']}",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
