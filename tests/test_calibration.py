"""Calibration of the verdict on simulated platforms (many seeds, one dbt build per regime).

Fair platforms have a genuine family skill gap and no challenge-specific bias: the share of
flagged challenges must stay at or below alpha (the target is none). Planted platforms
carry challenge-specific shifts of 15-20 points with 100+ attempts per family: at least 95%
must be flagged in the right direction, and at least 90% of flags must be planted ones.
The longer version lives in bench/calibration.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from challenge_fairness.demo import PlatformSpec, generate_platform
from challenge_fairness.simulation import combine_platforms, random_biases
from conftest import read_table, run_dbt

pytestmark = pytest.mark.dbt
ALPHA = 0.05
ATTEMPTS = 50_000  # 62 challenges x 6 families: about 130 attempts per family cell


def build(platform_specs: list[PlatformSpec], work: Path):
    tables, truth = combine_platforms([generate_platform(spec) for spec in platform_specs])
    raw = work / "raw"
    raw.mkdir()
    for name, table in tables.items():
        pq.write_table(table, raw / f"{name}.parquet")
    database = work / "calibration.duckdb"
    run = run_dbt(
        [
            "build",
            "--select",
            "+fct_challenge_verdicts",
            "+fct_family_adjusted_effects",
            "--exclude",
            "test_type:data",
        ],
        database=database,
        work_dir=work,
        dbt_vars={"raw_parquet_dir": str(raw)},
    )
    assert run.success, run.output
    verdicts = read_table(database, "select * from main.fct_challenge_verdicts")
    effects = read_table(database, "select * from main.fct_family_adjusted_effects")
    return verdicts, effects, truth.to_pandas()


def test_fair_platforms_with_a_skill_gap_are_not_flagged(tmp_path: Path) -> None:
    specs = [
        PlatformSpec(
            seed=100 + seed,
            n_attempts=ATTEMPTS,
            family_skill=tuple(np.linspace(-gap / 2, gap / 2, 6)),
            planted_family_biases=(),
            planted_hard_combinations=(
                (
                    "tpl-01",
                    '{"database":"Postgres","domain":"bookings","framework":"Express"}',
                    -30.0,
                ),
            ),
            family_routing={"llama": ("tpl-01", 16.0)} if seed % 2 == 0 else None,
        )
        for seed, gap in enumerate([2.0, 3.0, 4.0, 5.0, 5.0, 3.0])
    ]
    verdicts, effects, _ = build(specs, tmp_path)
    judged = verdicts[verdicts.verdict.isin(["pass", "flagged", "insufficient_evidence"])]
    flagged_share = (verdicts.verdict == "flagged").sum() / len(judged)
    assert len(judged) >= 0.9 * len(verdicts)
    assert flagged_share <= ALPHA, verdicts[verdicts.verdict == "flagged"].reason.tolist()
    # A family routed 16x more often to the template's hardest combinations is not flagged.
    routed = effects[
        effects.model_family.str.endswith("-llama") & effects.challenge_id.str.contains("ch-t01")
    ]
    assert len(routed) > 0 and not routed.is_flagged.any()
    # The raw rule, by contrast, finds the skill gap "significant" on many challenges.
    assert (verdicts.raw_kruskal_wallis_p < ALPHA).mean() > 0.3


def test_planted_shifts_of_15_points_are_found(tmp_path: Path) -> None:
    base = PlatformSpec(n_attempts=ATTEMPTS)
    specs = [
        PlatformSpec(
            seed=200 + seed,
            n_attempts=ATTEMPTS,
            planted_family_biases=random_biases(base, 6, (15.0, 20.0), seed=seed),
            planted_hard_combinations=(),
        )
        for seed in range(6)
    ]
    verdicts, effects, truth = build(specs, tmp_path)
    planted = truth.merge(effects, on=["challenge_id", "model_family"], how="left")
    assert (planted.attempts >= 100).mean() > 0.9
    found = planted.is_flagged & (np.sign(planted.adjusted_deviation) == np.sign(planted["shift"]))
    assert found.mean() >= 0.95, planted[~found][
        ["challenge_id", "model_family", "shift", "adjusted_deviation"]
    ]
    flags = effects[effects.is_flagged]
    precision = flags.merge(truth, on=["challenge_id", "model_family"]).shape[0] / len(flags)
    assert precision >= 0.9
    flagged_challenges = set(verdicts.challenge_id[verdicts.verdict == "flagged"])
    assert flagged_challenges <= set(truth.challenge_id)
