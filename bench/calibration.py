"""Calibration of the verdict at platform scale (the long version of tests/test_calibration.py).

Scenarios (each one dbt build over the union of its simulated platforms):
  fair_1m      one platform, 281 challenges, 1,000,000 attempts, a 5-point family skill gap,
               a hard variable combination, and one family routed 16x more often to it
  planted_1m   the same platform shape with 30 planted (challenge, family) shifts of 15-20
  fair_many    --platforms fair platforms of 62 challenges and 50,000 attempts each
  planted_many --platforms such platforms with 6 planted shifts of 15-20 points each
  planted_small --seeds small platforms (62 challenges, 30-70 attempts per family cell on
               average, one platform per seed from 30 to 70) with 6 planted shifts of
               11-14 points each: the power target (recall >= 0.65, precision >= 0.9),
               with an oracle's recall next to the verdict's (simulation.oracle_estimates)
  fair_small   --seeds such small fair platforms with a 2-5 point family skill gap, a hard
               combination, and one family routed 16x more often to it on every other one

    .venv/bin/python bench/calibration.py [--platforms 30] [--only fair_1m,planted_1m]
    .venv/bin/python bench/calibration.py --only planted_small,fair_small --seeds 20

Reports, per scenario: challenges judged, flagged, flagged share; for planted scenarios
recall (planted shifts flagged in the right direction) and precision (flags that are
planted). Results also go to bench/out/calibration_results.json; planted_small also writes
the recall curve by attempts per family cell, the verdict's next to the oracle's, to
bench/out/power_curve.csv and bench/out/power_curve.md.
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
import pandas as pd
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python_udfs"))

from challenge_fairness.demo import PlatformSpec, generate_platform  # noqa: E402
from challenge_fairness.simulation import (  # noqa: E402
    combine_platforms,
    oracle_estimates,
    random_biases,
)

OUT = REPO / "bench" / "out"
HARD = ("tpl-01", '{"database":"Postgres","domain":"bookings","framework":"Express"}', -30.0)
LARGE = {"n_attempts": 1_000_000, "n_standalone_challenges": 231}


TAG = [""]  # output file suffix (--tag)
CELLS = 62 * 6  # challenges x families of a default-sized platform
THRESHOLD = 10.0  # family_deviation_threshold's default


def small_attempts(seed: int, seeds: int) -> int:
    """Attempts of small platform `seed`: 30 to 70 per family cell on average."""
    return int(CELLS * (30 + 40 * seed / max(seeds - 1, 1)))


def scenarios(platforms: int, seeds: int = 20) -> dict[str, list[PlatformSpec]]:
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
        "planted_small": [
            PlatformSpec(
                seed=3000 + k,
                n_attempts=small_attempts(k, seeds),
                planted_family_biases=random_biases(PlatformSpec(), 6, (11.0, 14.0), seed=100 + k),
                planted_hard_combinations=(),
            )
            for k in range(seeds)
        ],
        "fair_small": [
            PlatformSpec(
                seed=4000 + k,
                n_attempts=small_attempts(k, seeds),
                family_skill=tuple(np.linspace(-(2 + k % 4) / 2, (2 + k % 4) / 2, 6)),
                planted_family_biases=(),
                planted_hard_combinations=(HARD,),
                family_routing={"llama": ("tpl-01", 16.0)} if k % 2 == 0 else None,
            )
            for k in range(seeds)
        ],
    }


def run_scenario(
    name: str, specs: list[PlatformSpec], dbt_vars: dict[str, object] | None = None
) -> dict[str, object]:
    work = OUT / f"calibration_{name}"
    raw = work / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    platforms = [generate_platform(spec) for spec in specs]
    tables, truth = combine_platforms(platforms)
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
            json.dumps({"raw_parquet_dir": str(raw), **(dbt_vars or {})}),
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
        if name == "planted_small":
            oracle = combine_platforms_oracle(platforms)
            planted = planted.merge(oracle, on=["challenge_id", "model_family"])
            planted["is_found"] = found.to_numpy()
            result |= {
                "oracle_recall": float(planted.is_oracle_found.mean()),
                "recall_by_seed_mean": float(
                    planted.assign(platform=planted.challenge_id.str.split("-").str[0])
                    .groupby("platform")
                    .is_found.mean()
                    .mean()
                ),
            }
            write_power_curve(planted, TAG[0])
    else:
        routed = effects[
            effects.model_family.str.endswith("llama") & effects.challenge_id.str.contains("ch-t01")
        ]
        result["routed_family_flagged"] = int(routed.is_flagged.sum())
    return result


def combine_platforms_oracle(platforms: list) -> pd.DataFrame:
    """The oracle's estimates of every planted shift, ids prefixed like combine_platforms."""
    frames = []
    for index, platform in enumerate(platforms):
        frame = oracle_estimates(platform, THRESHOLD).to_pandas()
        frame["challenge_id"] = f"p{index}-" + frame.challenge_id
        frame["model_family"] = f"p{index}-" + frame.model_family
        frames.append(frame.drop(columns="shift"))
    return pd.concat(frames, ignore_index=True)


def write_power_curve(planted: pd.DataFrame, tag: str) -> None:
    """Recall of the verdict and of the oracle by attempts of the planted family cell."""
    bins = [0, 30, 40, 50, 60, 70, 10**9]
    labels = ["<30", "30-39", "40-49", "50-59", "60-69", ">=70"]
    binned = planted.assign(
        family_attempts=planted.attempts.fillna(0).astype(int),
        bin=lambda f: pd.cut(f.family_attempts, bins=bins, labels=labels, right=False),
    )
    curve = (
        binned.groupby("bin", observed=True)
        .agg(
            planted=("is_found", "size"),
            verdict_recall=("is_found", "mean"),
            oracle_recall=("is_oracle_found", "mean"),
        )
        .reset_index()
        .rename(columns={"bin": "family_attempts"})
    )
    OUT.mkdir(parents=True, exist_ok=True)
    curve.to_csv(OUT / f"power_curve{tag}.csv", index=False)
    lines = [
        "| attempts of the family on the challenge | planted | verdict recall | oracle recall |"
    ]
    lines.append("|---|---|---|---|")
    for row in curve.itertuples():
        lines.append(
            f"| {row.family_attempts} | {row.planted} | {row.verdict_recall:.2f} "
            f"| {row.oracle_recall:.2f} |"
        )
    (OUT / f"power_curve{tag}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--platforms", type=int, default=30)
    parser.add_argument("--seeds", type=int, default=20, help="platforms of the small scenarios")
    parser.add_argument("--only", default="", help="comma-separated scenario names")
    parser.add_argument("--tag", default="", help="suffix of the output files (a variant's name)")
    parser.add_argument(
        "--vars", default="{}", help="extra dbt vars (JSON), e.g. a verdict variant to compare"
    )
    args = parser.parse_args()
    chosen = set(filter(None, args.only.split(",")))
    TAG[0] = f"_{args.tag}" if args.tag else ""
    results = {}
    for name, specs in scenarios(args.platforms, args.seeds).items():
        if chosen and name not in chosen:
            continue
        results[name] = run_scenario(name, specs, json.loads(args.vars))
        print(name, json.dumps(results[name], indent=None, default=str), flush=True)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"calibration_results{TAG[0]}.json").write_text(
        json.dumps(results, indent=2, default=str) + "\n"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
