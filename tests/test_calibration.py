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


THIN = 62 * 6 * 30  # attempts of a thin platform: about 30 per family cell


def build_tables(tables: dict, work: Path, select: list[str]) -> Path:
    """One dbt build of `select` (no data tests) on these raw tables; the DuckDB file."""
    raw = work / "raw"
    raw.mkdir(parents=True)
    for name, table in tables.items():
        pq.write_table(table, raw / f"{name}.parquet")
    database = work / "calibration.duckdb"
    run = run_dbt(
        ["build", "--select", *select, "--exclude", "test_type:data"],
        database=database,
        work_dir=work,
        dbt_vars={"raw_parquet_dir": str(raw)},
    )
    assert run.success, run.output
    return database


def test_recommended_attempts_give_the_promised_power(tmp_path: Path) -> None:
    """Thin platforms with shifts of exactly family_deviation_threshold: take each planted
    cell left undecided, redraw it (fresh attempts, same true shift) with the attempts
    fct_challenge_attempts_needed recommends (the family alone on even plants, the
    challenge plan on odd ones, the other families topped up with fair attempts), rebuild:
    the share of those contrasts now significant must be about target_power. The plan is
    conservative in its FDR level (alpha x max(R, 1) / m with today's R), so the observed
    rate may exceed 0.8; it must not fall below 0.8 by more than 2 standard errors, nor be
    so high (> 0.95) that the plan is grossly oversized."""
    from challenge_fairness.simulation import platform_with_tables, redraw_cells

    base = PlatformSpec(n_attempts=THIN)
    platforms = []
    for seed in range(10):
        plants = random_biases(base, 12, (10.0, 10.0), seed=500 + seed)
        platforms.append(
            generate_platform(
                PlatformSpec(
                    seed=600 + seed,
                    n_attempts=THIN,
                    planted_family_biases=plants,
                    planted_hard_combinations=(),
                )
            )
        )
    tables, truth = combine_platforms(platforms)
    database = build_tables(tables, tmp_path / "before", ["+fct_challenge_attempts_needed"])
    plans = read_table(
        database,
        "select * from main.fct_challenge_attempts_needed where verdict_window = 'all'",
    )
    planted = truth.to_pandas().merge(plans, on=["challenge_id", "model_family"])
    redrawn_platforms = []
    checked = []
    for index, platform in enumerate(platforms):
        prefix = f"p{index}-"
        cells = []
        mine = planted[planted.challenge_id.str.startswith(prefix)]
        for number, plant in enumerate(mine.itertuples()):
            challenge = plant.challenge_id.removeprefix(prefix)
            family = plant.model_family.removeprefix(prefix)
            if number % 2 == 0 and plant.family_plan_status in ("ok", "already_powered"):
                cells.append(
                    (
                        challenge,
                        family,
                        plant.scored_attempts + plant.additional_family_attempts,
                        plant.shift,
                    )
                )
            elif number % 2 == 1 and plant.challenge_plan_status in ("ok", "already_powered"):
                target = int(plant.challenge_plan_family_attempts)
                rest = plans[
                    (plans.challenge_id == plant.challenge_id) & (plans.verdict_window == "all")
                ]
                for other in rest.itertuples():
                    if other.model_family != plant.model_family:
                        cells.append(
                            (challenge, other.model_family.removeprefix(prefix), target, 0.0)
                        )
                cells.append((challenge, family, max(plant.scored_attempts, target), plant.shift))
            else:
                continue
            checked.append((plant.challenge_id, plant.model_family))
        redrawn_platforms.append(
            platform_with_tables(platform, redraw_cells(platform, cells, seed=700 + index))
        )
    redrawn, _ = combine_platforms(redrawn_platforms)
    after = build_tables(redrawn, tmp_path / "after", ["+fct_family_adjusted_effects"])
    effects = read_table(after, "select * from main.fct_family_adjusted_effects")
    outcome = effects.set_index(["challenge_id", "model_family"]).loc[checked]
    detected = outcome.is_significant.to_numpy()
    rate, n = detected.mean(), detected.size
    standard_error = np.sqrt(0.8 * 0.2 / n)
    print(
        f"topped-up contrasts significant: {rate:.3f} of {n} (target 0.8, SE {standard_error:.3f})"
    )
    assert n >= 60
    assert rate >= 0.8 - 2 * standard_error
    assert rate <= 0.95


THIN_WINDOW_PLATFORMS = 10  # x 6 monthly windows = 60 windows


def test_thin_monthly_windows_flag_no_more_than_alpha(tmp_path: Path) -> None:
    """Fair thin platforms (26 challenges, about 25 attempts per family cell per month, a
    2-5 point skill gap, a hard combination with one family routed 16x to it on every
    other platform): in each monthly window the verdict is judged on the window's
    attempts alone. No challenge is biased, so every flag is false and Benjamini-Hochberg
    bounds the chance that a window flags anything at alpha. Over 60 windows the count of
    windows with a flag must stay within the binomial 99% quantile at alpha (7 of 60; a
    false alarm of the test itself 1% of the time): a true rate of 0.15 (three times
    nominal) would exceed it with probability 0.70, a rate of 0.20 with 0.93."""
    from scipy import stats as scipy_stats

    small = {"n_templates": 1, "n_standalone_challenges": 8}
    per_month = 26 * 6 * 25
    specs = [
        PlatformSpec(
            seed=800 + seed,
            n_attempts=per_month * 6,
            **small,
            family_skill=tuple(np.linspace(-(2 + seed % 4) / 2, (2 + seed % 4) / 2, 6)),
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
        for seed in range(THIN_WINDOW_PLATFORMS)
    ]
    tables, _ = combine_platforms([generate_platform(spec) for spec in specs])
    database = build_tables(tables, tmp_path, ["+int_family_effects_flagged"])
    windows = read_table(
        database,
        """
        select
            split_part(tested.challenge_id, '-', 1) as platform,
            tested.verdict_window,
            count(*) filter (where tested.eligibility = 'tested') as judged,
            count(distinct flagged.challenge_id) as flagged
        from intermediate.int_challenges_tested as tested
        left join intermediate.int_family_effects_flagged as flagged
            on tested.challenge_id = flagged.challenge_id
            and tested.verdict_window = flagged.verdict_window
            and flagged.is_flagged
        where tested.verdict_window <> 'all'
        group by 1, 2
        """,
    )
    assert len(windows) == 6 * THIN_WINDOW_PLATFORMS
    # thin, but judged: most challenge-windows are tested on their ~25 attempts per cell
    # (fewer on routed platforms, where the routed family is thin off its template)
    assert windows.judged.sum() >= 0.5 * 26 * len(windows)
    windows_with_flags = int((windows.flagged > 0).sum())
    limit = int(scipy_stats.binom.ppf(0.99, len(windows), ALPHA))
    print(f"windows with a false flag: {windows_with_flags} of {len(windows)} (limit {limit})")
    assert windows_with_flags <= limit
