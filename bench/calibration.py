"""Calibration of the verdict at platform scale (the long version of tests/test_calibration.py).

Scenarios (each one dbt build over the union of its simulated platforms):
  fair_1m      one platform, 281 challenges, 1,000,000 attempts, a 5-point family skill gap,
               a hard variable combination, and one family routed 16x more often to it
  planted_1m   the same platform shape with 30 planted (challenge, family) shifts of 15-20
  fair_many    --platforms fair platforms of 62 challenges and 50,000 attempts each
  planted_many --platforms such platforms with 6 planted shifts of 15-20 points each

    .venv/bin/python bench/calibration.py [--platforms 30] [--only fair_1m,planted_1m]

Reports, per scenario: challenges judged, flagged, flagged share; for planted scenarios
recall (planted shifts flagged in the right direction) and precision (flags that are
planted). Results also go to bench/out/calibration_results.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import numpy as np
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python_udfs"))

from challenge_fairness.demo import PlatformSpec, generate_platform  # noqa: E402
from challenge_fairness.simulation import combine_platforms, random_biases  # noqa: E402

OUT = REPO / "bench" / "out"
HARD = ("tpl-01", '{"database":"Postgres","domain":"bookings","framework":"Express"}', -30.0)
LARGE = {"n_attempts": 1_000_000, "n_standalone_challenges": 231}


def scenarios(platforms: int) -> dict[str, list[PlatformSpec]]:
    large_base = PlatformSpec(**LARGE)
    return {
        "fair_1m": [
            PlatformSpec(
                seed=1,
                **LARGE,
                family_skill=tuple(np.linspace(-2.5, 2.5, 6)),
                planted_family_biases=(),
                planted_hard_combinations=(HARD,),
                family_routing={"llama": ("tpl-01", 16.0)},
            )
        ],
        "planted_1m": [
            PlatformSpec(
                seed=2,
                **LARGE,
                family_skill=tuple(np.linspace(-2.5, 2.5, 6)),
                planted_family_biases=random_biases(large_base, 30, (15.0, 20.0), seed=2),
                planted_hard_combinations=(),
            )
        ],
        "fair_many": [
            PlatformSpec(
                seed=1000 + k,
                n_attempts=50_000,
                family_skill=tuple(np.linspace(-(2 + k % 4) / 2, (2 + k % 4) / 2, 6)),
                planted_family_biases=(),
                planted_hard_combinations=(HARD,),
                family_routing={"llama": ("tpl-01", 16.0)} if k % 3 == 0 else None,
            )
            for k in range(platforms)
        ],
        "planted_many": [
            PlatformSpec(
                seed=2000 + k,
                n_attempts=50_000,
                planted_family_biases=random_biases(PlatformSpec(), 6, (15.0, 20.0), seed=k),
                planted_hard_combinations=(),
            )
            for k in range(platforms)
        ],
    }


def run_scenario(name: str, specs: list[PlatformSpec]) -> dict[str, object]:
    work = OUT / f"calibration_{name}"
    raw = work / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    tables, truth = combine_platforms([generate_platform(spec) for spec in specs])
    for table_name, table in tables.items():
        pq.write_table(table, raw / f"{table_name}.parquet")
    database = work / "calibration.duckdb"
    database.unlink(missing_ok=True)
    started = time.perf_counter()
    completed = subprocess.run(
        [
            str(REPO / ".venv" / "bin" / "dbt"),
            "build",
            "--profiles-dir",
            str(REPO),
            "--project-dir",
            str(REPO),
            "--target-path",
            str(work / "target"),
            "--log-path",
            str(work / "logs"),
            "--select",
            "+fct_challenge_verdicts",
            "+fct_family_adjusted_effects",
            "--exclude",
            "test_type:data",
            "--vars",
            json.dumps({"raw_parquet_dir": str(raw)}),
        ],
        cwd=REPO,
        env={**os.environ, "CHALLENGE_FAIRNESS_DUCKDB": str(database)},
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    if completed.returncode != 0:
        print(completed.stdout[-4000:])
        raise SystemExit(f"dbt build failed for {name}")
    with duckdb.connect(str(database), read_only=True) as connection:
        verdicts = connection.sql("select * from main.fct_challenge_verdicts").df()
        effects = connection.sql("select * from main.fct_family_adjusted_effects").df()
    counts = verdicts.verdict.value_counts().to_dict()
    result: dict[str, object] = {
        "platforms": len(specs),
        "attempts": int(tables["attempts"].num_rows),
        "challenges": len(verdicts),
        "verdicts": counts,
        "flagged_share": counts.get("flagged", 0) / len(verdicts),
        "raw_kruskal_wallis_p_below_alpha_share": float(
            (verdicts.raw_kruskal_wallis_p < 0.05).mean()
        ),
        "raw_deviation_flagged_share": float(verdicts.is_raw_deviation_flagged.mean()),
        "raw_cohens_d_flagged_share": float(verdicts.is_raw_effect_size_flagged.mean()),
        "build_seconds": round(seconds, 1),
    }
    truth_frame = truth.to_pandas()
    if len(truth_frame):
        planted = truth_frame.merge(effects, on=["challenge_id", "model_family"], how="left")
        found = planted.is_flagged.fillna(False) & (
            np.sign(planted.adjusted_deviation) == np.sign(planted["shift"])
        )
        flags = effects[effects.is_flagged]
        hits = flags.merge(truth_frame, on=["challenge_id", "model_family"]).shape[0]
        result |= {
            "planted": len(planted),
            "median_family_attempts_on_planted": float(planted.attempts.median()),
            "recall": float(found.mean()),
            "flags": len(flags),
            "precision": hits / len(flags) if len(flags) else None,
        }
    else:
        routed = effects[
            effects.model_family.str.endswith("llama") & effects.challenge_id.str.contains("ch-t01")
        ]
        result["routed_family_flagged"] = int(routed.is_flagged.sum())
    return result


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--platforms", type=int, default=30)
    parser.add_argument("--only", default="", help="comma-separated scenario names")
    args = parser.parse_args()
    chosen = set(filter(None, args.only.split(",")))
    results = {}
    for name, specs in scenarios(args.platforms).items():
        if chosen and name not in chosen:
            continue
        results[name] = run_scenario(name, specs)
        print(name, json.dumps(results[name], indent=None, default=str), flush=True)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "calibration_results.json").write_text(json.dumps(results, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
