"""Contamination benchmark (F5): the dbt build of the near-duplicate code models at scale.

One run

1. generates (or reuses) a seeded synthetic platform whose challenges ship
   ``--challenge-files`` code files (``--files-per-challenge`` each) and a reference corpus
   of ``--corpus-documents`` documents (``contamination_fixtures.make_code_tables``:
   Python-like code from a grammar), with planted copies (every copy kind) and shared
   instance pairs, as parquet in ``bench/out/contamination_data_<files>_<documents>_<seed>/``
   (not timed);
2. runs ``dbt build`` of the contamination models and everything upstream of them
   (staging, and the fairness chain the evidence mart reads) into a fresh DuckDB file, in
   its own process tree, measuring wall-clock time and peak RSS (``bench/_measure.py``);
3. checks recall on the plants (flagged challenges and instance pairs against the truth)
   and prints the time, peak memory, candidate pair counts (by pair kind: 'contamination',
   'instance', and since issue 17 'instance_file'; with the pairs proposed only by the
   containment bands), the flag rules of the flagged rows and the slowest nodes;
4. runs the same build again on that database with nothing new (a daily run: the stored
   scans of ``int_code_documents_scanned`` are kept) and checks that its flags are the
   same;
5. writes everything to ``bench/out/contamination_results.json``.

Usage::

    .venv/bin/python bench/bench_contamination.py                       # 10,000 x 100,000
    .venv/bin/python bench/bench_contamination.py --challenge-files 1000 --corpus-documents 10000

Exit code 0 only when the build succeeded, every plant was found with nothing else, and the
build with nothing new flagged the same.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
OUT = BENCH / "out"
sys.path.insert(0, str(ROOT / "python_udfs"))
sys.path.insert(0, str(BENCH))

from bench_core import dbt_executable, dbt_timing, measure  # noqa: E402
from challenge_fairness.demo import PlatformSpec, generate_platform, write_parquet  # noqa: E402
from challenge_fairness.detectors.contamination_fixtures import (  # noqa: E402
    COPY_KINDS,
    make_code_tables,
)

N_TEMPLATED_CHALLENGES = 50  # the demo's fixed catalogue
PLANTS_PER_KIND = 5
SHARED_PAIRS = 10
DATA_MARKER = "_complete.json"
SELECT = [
    "--indirect-selection", "cautious",
    "--select",
    "+fct_challenge_contamination",
    "+fct_contamination_family_evidence",
    "+fct_contamination_publication_effect",
    "+fct_challenge_instance_overlap",
    "+int_contamination_coverage",
    "+int_instance_overlap_coverage",
]  # fmt: skip


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--challenge-files", type=int, default=10_000)
    parser.add_argument("--corpus-documents", type=int, default=100_000)
    parser.add_argument("--files-per-challenge", type=int, default=5)
    parser.add_argument("--attempts", type=int, default=100_000, help="platform attempts")
    parser.add_argument("--seed", type=int, default=7)
    return parser.parse_args(argv)


def ensure_data(arguments: argparse.Namespace) -> Path:
    """Parquet directory of the platform and code tables, generated when not cached."""
    sizes = f"{arguments.challenge_files}_{arguments.corpus_documents}_{arguments.seed}"
    directory = OUT / f"contamination_data_{sizes}"
    marker = directory / DATA_MARKER
    if marker.exists():
        print(f"reusing data in {directory.relative_to(ROOT)}")
        return directory
    challenges = max(arguments.challenge_files // arguments.files_per_challenge, 4 * SHARED_PAIRS)
    spec = PlatformSpec(
        seed=arguments.seed,
        n_attempts=arguments.attempts,
        n_standalone_challenges=max(challenges - N_TEMPLATED_CHALLENGES, 12),
    )
    started = time.perf_counter()
    platform_data = generate_platform(spec)
    shutil.rmtree(directory, ignore_errors=True)
    write_parquet(platform_data, str(directory))
    table = platform_data.tables["challenges"].to_pandas()
    ids = list(table.challenge_id)
    # plants on standalone challenges, shared pairs among templated ones (same template)
    standalone = [c for c in ids if c.startswith("ch-s")]
    templated = [c for c in ids if c.startswith("ch-t")]
    planted = {
        challenge: COPY_KINDS[index % len(COPY_KINDS)]
        for index, challenge in enumerate(standalone[: PLANTS_PER_KIND * len(COPY_KINDS)])
    }
    shared = [(templated[2 * i], templated[2 * i + 1]) for i in range(SHARED_PAIRS)]
    print(
        f"generating {len(ids) * arguments.files_per_challenge:,} challenge files and "
        f"{arguments.corpus_documents:,} reference documents (seed {arguments.seed}) ...",
        flush=True,
    )
    code = make_code_tables(
        ids,
        seed=arguments.seed,
        planted=planted,
        shared_instances=shared,
        files_per_challenge=arguments.files_per_challenge,
        reference_documents=arguments.corpus_documents - len(planted),
    )
    for name, code_table in code.items():
        pq.write_table(code_table, directory / f"{name}.parquet")
    rows = {name: code_table.num_rows for name, code_table in code.items()}
    marker.write_text(json.dumps({"seed": arguments.seed, "rows": rows}) + "\n")
    print(f"  wrote {rows} in {time.perf_counter() - started:.1f} s")
    return directory


def check_plants(database: Path, data_dir: Path) -> dict[str, Any]:
    """Flagged challenges and instance pairs against the planted truth."""
    planted = pq.read_table(data_dir / "planted_contamination.parquet").to_pandas()
    pairs = pq.read_table(data_dir / "planted_instance_overlap.parquet").to_pandas()
    with duckdb.connect(str(database), read_only=True) as connection:
        flagged = {
            row[0]
            for row in connection.execute(
                "select challenge_id from main.fct_challenge_contamination where is_flagged"
            ).fetchall()
        }
        overlapping = {
            (a, b)
            for a, b in connection.execute(
                "select challenge_a, challenge_b from main.fct_challenge_instance_overlap"
            ).fetchall()
        }
        counts = dict(
            connection.execute(
                "select pair_kind || case when is_compared_exactly then '_exact' else '' end, "
                "count(*) from intermediate.int_code_pairs_compared group by all"
            ).fetchall()
        )
        candidates = dict(
            connection.execute(
                "select pair_kind, count(*) from intermediate.int_code_candidate_pairs_banded "
                "group by all"
            ).fetchall()
        )
        columns = {
            row[0]
            for row in connection.execute(
                "select column_name from information_schema.columns "
                "where table_name = 'int_code_candidate_pairs_banded'"
            ).fetchall()
        }
        containment_only = (
            dict(
                connection.execute(
                    "select pair_kind, count(*) from intermediate.int_code_candidate_pairs_banded"
                    " where raw_shared_bands + normalised_shared_bands = 0 group by all"
                ).fetchall()
            )
            if "containment_shared_bands" in columns
            else {}
        )
        rules = (
            dict(
                connection.execute(
                    "select 'contamination_' || flag_rule, count(*) "
                    "from main.fct_challenge_contamination where is_flagged group by all "
                    "union all select 'instance_' || flag_rule, count(*) "
                    "from main.fct_challenge_instance_overlap group by all"
                ).fetchall()
            )
            if "containment_shared_bands" in columns
            else {}
        )
    truth = set(planted.challenge_id)
    truth_pairs = set(zip(pairs.challenge_a, pairs.challenge_b, strict=True))
    return {
        "planted_challenges": len(truth),
        "flagged_challenges": len(flagged),
        "planted_found": len(truth & flagged),
        "flagged_not_planted": sorted(flagged - truth),
        "planted_missed": sorted(truth - flagged),
        "planted_instance_pairs": len(truth_pairs),
        "instance_pairs_found": len(truth_pairs & overlapping),
        "instance_pairs_not_planted": sorted(f"{a}|{b}" for a, b in overlapping - truth_pairs),
        "candidate_pairs": candidates,
        "candidate_pairs_by_containment_bands_only": containment_only,
        "pairs_compared": counts,
        "flag_rules": rules,
    }


def main(argv: list[str] | None = None) -> int:
    """Generate, build, check and report."""
    arguments = parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    data_dir = ensure_data(arguments)
    run_dir = OUT / f"contamination_run_{data_dir.name.removeprefix('contamination_data_')}"
    shutil.rmtree(run_dir, ignore_errors=True)
    run_dir.mkdir(parents=True)
    database = run_dir / "bench.duckdb"
    dbt_vars = json.dumps({"raw_parquet_dir": str(data_dir), "fairness_gate_severity": "warn"})
    command = [
        dbt_executable(), "build", *SELECT,
        "--profiles-dir", ".", "--project-dir", ".",
        "--target-path", str(run_dir / "target"), "--log-path", str(run_dir / "logs"),
        "--vars", dbt_vars,
    ]  # fmt: skip
    env = {
        **os.environ,
        "CHALLENGE_FAIRNESS_DUCKDB": str(database),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }
    measurement = measure("dbt_build", command, run_dir, env)
    checks = check_plants(database, data_dir)
    timing = dbt_timing(run_dir / "target")
    rerun = measure("dbt_build_nothing_new", command, run_dir, env)
    rerun_checks = check_plants(database, data_dir)
    rerun_timing = dbt_timing(run_dir / "target")
    results = {
        "challenge_files": arguments.challenge_files,
        "corpus_documents": arguments.corpus_documents,
        "seed": arguments.seed,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "dbt": {
            "seconds": measurement.seconds,
            "cpu_seconds": measurement.cpu_seconds,
            "load_average_1min": measurement.load_average_1min,
            "peak_mib": measurement.peak_mib,
            "tree_rss_sampled_peak_mib": measurement.tree_rss_sampled_peak_mib,
            "log": measurement.log,
        },
        "checks": checks,
        "timing": timing,
        "nothing_new": {
            "seconds": rerun.seconds,
            "cpu_seconds": rerun.cpu_seconds,
            "peak_mib": rerun.peak_mib,
            "log": rerun.log,
            "same_checks": rerun_checks == checks,
            "timing": rerun_timing,
        },
    }
    (OUT / "contamination_results.json").write_text(json.dumps(results, indent=2) + "\n")
    print()
    print(
        f"{arguments.challenge_files:,} challenge files x {arguments.corpus_documents:,} "
        f"reference documents: dbt build {measurement.seconds:.1f} s "
        f"({measurement.cpu_seconds:.1f} CPU s, load {measurement.load_average_1min}), "
        f"peak {measurement.peak_mib:.0f} MiB"
    )
    print(f"candidate pairs (LSH): {checks['candidate_pairs']}")
    print(
        "  of which proposed only by the containment bands: "
        f"{checks['candidate_pairs_by_containment_bands_only']}"
    )
    print(f"flag rules: {checks['flag_rules']}")
    print(f"pairs compared: {checks['pairs_compared']}")
    print(
        f"planted challenges found {checks['planted_found']}/{checks['planted_challenges']}, "
        f"flagged but not planted {checks['flagged_not_planted']}; instance pairs found "
        f"{checks['instance_pairs_found']}/{checks['planted_instance_pairs']}, not planted "
        f"{checks['instance_pairs_not_planted']}"
    )
    print("slowest nodes:")
    for node in timing["top_nodes"]:
        print(f"  {node['execution_time']:8.1f} s  {node['unique_id']}")
    print(
        f"the same build again, nothing new: {rerun.seconds:.1f} s ({rerun.cpu_seconds:.1f} "
        f"CPU s), peak {rerun.peak_mib:.0f} MiB; flags and pairs "
        f"{'the same' if rerun_checks == checks else 'DIFFERENT'}; slowest nodes:"
    )
    for node in rerun_timing["top_nodes"]:
        print(f"  {node['execution_time']:8.1f} s  {node['unique_id']}")
    ok = (
        rerun_checks == checks
        and not checks["planted_missed"]
        and not checks["flagged_not_planted"]
        and checks["instance_pairs_found"] == checks["planted_instance_pairs"]
        and not checks["instance_pairs_not_planted"]
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
