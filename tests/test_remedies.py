"""Remedies for variable combinations: the greedy pools and the TOST against independent
computations, the UDFs from SQL, and the three marts end to end on a platform with a planted
hard combination and a weak family routed to the hardest combinations (the raw means are
confounded, the measured difficulty is not), degenerate templates, and a platform without
templated challenges."""

from __future__ import annotations

import atexit
import dataclasses
import shutil
import tempfile
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from challenge_fairness import demo
from challenge_fairness.demo import PlatformSpec, generate_platform, write_parquet
from challenge_fairness.detectors.remedies import (
    NOT_POOLED,
    equivalence_to_centre,
    greedy_pools,
)
from challenge_fairness.registry import register_udfs
from conftest import read_table, run_dbt
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats as scipy_stats

# ---------------------------------------------------------------------------------------
# Pure functions
# ---------------------------------------------------------------------------------------

difficulty_values = st.floats(-40, 40, allow_nan=False).map(lambda x: round(x, 1))
difficulty_arrays = hnp.arrays(np.float64, st.integers(0, 9), elements=difficulty_values)
tolerances = st.sampled_from([0.0, 0.5, 2.5, 5.0, 10.0, 100.0])


def minimum_pool_count(values: np.ndarray, tolerance: float) -> int:
    """Fewest groups of span <= tolerance: dynamic programming over sorted prefixes."""
    ordered = np.sort(values)
    best = [0] + [len(ordered) + 1] * len(ordered)
    for end in range(1, len(ordered) + 1):
        for start in range(end):
            if ordered[end - 1] - ordered[start] <= tolerance:
                best[end] = min(best[end], best[start] + 1)
    return best[len(ordered)]


@given(difficulty_arrays, tolerances)
@settings(max_examples=300, deadline=None)
def test_pools_never_exceed_the_tolerance_and_are_fewest(
    values: np.ndarray, tolerance: float
) -> None:
    pools = greedy_pools(values, tolerance)
    assert pools.shape == values.shape
    if values.size == 0:
        return
    assert set(pools) == set(range(1, pools.max() + 1))  # numbered 1..P, none skipped
    for pool in set(pools):
        members = values[pools == pool]
        assert members.max() - members.min() <= tolerance
    # pool 1 holds the easiest, and pools do not interleave along the difficulty line
    assert pools[np.argmax(values)] == 1
    order = np.argsort(-values, kind="stable")
    assert np.all(np.diff(pools[order]) >= 0)
    assert pools.max() == minimum_pool_count(values, tolerance)


def test_pools_of_degenerate_input() -> None:
    assert greedy_pools([], 5.0).size == 0
    assert list(greedy_pools([np.nan, 1.0, np.nan], 5.0)) == [NOT_POOLED, 1, NOT_POOLED]
    assert list(greedy_pools([1.0, 2.0], -1.0)) == [NOT_POOLED, NOT_POOLED]
    assert list(greedy_pools([1.0, 2.0], np.nan)) == [NOT_POOLED, NOT_POOLED]
    assert list(greedy_pools([3.0, 3.0, 3.0], 0.0)) == [1, 1, 1]  # ties share a pool
    assert list(greedy_pools([7.0], 5.0)) == [1]
    # worked example, tolerance 5, greedy from the easiest: 10, 6 | 4, 0, -1 | -30
    assert list(greedy_pools([0.0, 10.0, -30.0, 6.0, 4.0, -1.0], 5.0)) == [2, 1, 3, 1, 2, 2]


samples = hnp.arrays(np.float64, st.integers(2, 40), elements=st.integers(-20, 20).map(float))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@given(samples, st.sampled_from([0.5, 2.0, 5.0]), st.sampled_from([0.05, 0.1]))
@settings(max_examples=150, deadline=None)
def test_equivalence_is_two_one_sided_t_tests(
    sample: np.ndarray, margin: float, alpha: float
) -> None:
    n = sample.size
    result = equivalence_to_centre(
        sample.mean(), sample.std(ddof=1) / np.sqrt(n), n - 1, margin, alpha
    )
    if sample.std() == 0:
        assert np.isnan(result.p_value) and np.isnan(result.ci_low)
        return
    lower = scipy_stats.ttest_1samp(sample, -margin, alternative="greater")
    upper = scipy_stats.ttest_1samp(sample, margin, alternative="less")
    interval = scipy_stats.ttest_1samp(sample, 0.0).confidence_interval(1 - 2 * alpha)
    assert result.p_value_lower == pytest.approx(lower.pvalue, rel=1e-8, abs=1e-300)
    assert result.p_value_upper == pytest.approx(upper.pvalue, rel=1e-8, abs=1e-300)
    assert result.p_value == pytest.approx(max(lower.pvalue, upper.pvalue), rel=1e-8)
    assert result.ci_low == pytest.approx(interval.low, rel=1e-8, abs=1e-9)
    assert result.ci_high == pytest.approx(interval.high, rel=1e-8, abs=1e-9)
    # the TOST decision at alpha is the (1 - 2 alpha) interval inside (-margin, margin)
    inside = -margin < result.ci_low and result.ci_high < margin
    assert (result.p_value < alpha) == inside


def test_equivalence_of_degenerate_input_is_nan() -> None:
    result = equivalence_to_centre(
        [1.0, 1.0, np.nan, 1.0, 1.0], [0.0, 1.0, 1.0, 1.0, np.nan], [5, 0, 5, np.nan, 5], 2.0, 0.05
    )
    assert np.all(np.isnan(result.p_value))
    assert np.all(np.isnan(result.ci_low))
    # a textbook value: estimate 0, SE 1, df 10, margin 2: each one-sided p = t_10 sf(2)
    known = equivalence_to_centre(0.0, 1.0, 10.0, 2.0, 0.05)
    assert known.p_value == pytest.approx(0.036694, abs=1e-6)
    assert known.ci_high == pytest.approx(1.812, abs=5e-4)  # t table: t(0.95; 10) = 1.812


def test_udfs_from_sql() -> None:
    connection = duckdb.connect()
    register_udfs(connection)
    pools = connection.sql(
        "select cf_equivalence_pools([0.0, 10.0, -30.0, 6.0, 4.0, -1.0, null], 5.0)"
    ).fetchall()[0]
    assert list(pools) == [[2, 1, 3, 1, 2, 2, None]]
    test = connection.sql(
        "select cf_equivalence_to_centre(0.0, 1.0, 10.0, 2.0, 0.05).p_value,"
        " cf_equivalence_to_centre(0.0, 0.0, 10.0, 2.0, 0.05).p_value"
    ).fetchall()[0]
    assert test[0] == pytest.approx(0.036694, abs=1e-6)
    assert test[1] is None or np.isnan(test[1])


# ---------------------------------------------------------------------------------------
# End to end
# ---------------------------------------------------------------------------------------

SELECTOR = [
    "+fct_combination_tiers",
    "+fct_equivalent_combination_pools",
    "+fct_difficulty_adjusted_scores",
    "+fct_detector_coverage",
]
PLANTED_TEMPLATE = "tpl-01"
PLANTED_COMBINATION = '{"database":"Postgres","domain":"bookings","framework":"Express"}'
PLANTED_SHIFT = -25.0
ROUTED_FAMILY = "llama"
FAMILY_SKILL = (0.0, 0.0, 0.0, -12.0, 0.0, 0.0)  # llama, the routed family, is weak
PLANTED_SPEC = PlatformSpec(
    seed=11,
    n_attempts=30_000,
    n_templates=2,
    n_standalone_challenges=4,
    family_skill=FAMILY_SKILL,
    planted_family_biases=(),
    planted_hard_combinations=((PLANTED_TEMPLATE, PLANTED_COMBINATION, PLANTED_SHIFT),),
    family_routing={ROUTED_FAMILY: (PLANTED_TEMPLATE, 16.0)},
)
ABSENT_SPEC = PlatformSpec(
    seed=5,
    n_attempts=3_000,
    n_templates=0,
    n_standalone_challenges=6,
    planted_family_biases=(),
    planted_hard_combinations=(),
)
SINGLE_TEMPLATE = "tpl-single"
CONSTANT_TEMPLATE = "tpl-constant"
UNSCORED_COMBINATION = '{"database":"Oracle","domain":"bookings","framework":"Express"}'
_BUILDS: dict[str, dict[str, Any]] = {}


def true_difficulties(spec: PlatformSpec) -> pd.DataFrame:
    """Each templated combination's simulated difficulty relative to its template's mean."""
    structure_rng, _ = (
        np.random.default_rng(s) for s in np.random.SeedSequence(spec.seed).spawn(2)
    )
    challenges = demo._build_challenges(spec)
    demo._build_population(spec, structure_rng)
    difficulty = demo._difficulty(challenges, structure_rng)
    hard, *_ = demo._planted_shifts(spec, challenges)
    frame = pd.DataFrame(
        {
            "template_id": challenges.template_ids,
            "variable_combination": challenges.canonical_variables,
            "true_offset": difficulty + hard,
        }
    )
    frame = frame[frame["variable_combination"] != "{}"]
    frame["true_difficulty"] = frame["true_offset"] - frame.groupby("template_id")[
        "true_offset"
    ].transform("mean")
    return frame.set_index(["template_id", "variable_combination"])


def with_degenerate_templates(platform: demo.Platform) -> demo.Platform:
    """Add a one-combination template, a constant-score template and an unscored combination."""
    tables = dict(platform.tables)
    agents = tables["agents"].column("agent_id").to_pylist()
    extra_challenges = [
        ("ch-single", SINGLE_TEMPLATE, '{"x":1}'),
        ("ch-constant-1", CONSTANT_TEMPLATE, '{"y":1}'),
        ("ch-constant-2", CONSTANT_TEMPLATE, '{"y":2}'),
        ("ch-unscored", PLANTED_TEMPLATE, UNSCORED_COMBINATION),
    ]
    challenge_rows = [
        {
            "challenge_id": challenge_id,
            "template_id": template_id,
            "variables": variables,
            "briefing_style": None,
            "experiment_id": None,
            "experiment_arm": None,
            "tags": [],
        }
        for challenge_id, template_id, variables in extra_challenges
    ]
    tables["challenges"] = pa.concat_tables(
        [tables["challenges"], pa.Table.from_pylist(challenge_rows, schema=demo.CHALLENGES_SCHEMA)]
    )
    rng = np.random.default_rng(3)
    attempt_rows = []
    for challenge_id, _, _ in extra_challenges:
        for k in range(120):
            score: float | None
            if challenge_id == "ch-single":
                score = float(np.clip(np.rint(rng.normal(55, 15)), 0, 100))
            elif challenge_id == "ch-unscored":
                score = None
            else:
                score = 50.0
            attempt_rows.append(
                {
                    "attempt_id": f"att-x-{challenge_id}-{k:03d}",
                    "challenge_id": challenge_id,
                    "agent_id": agents[k % len(agents)],
                    "score": score,
                    "submitted_at": pd.Timestamp("2026-03-01 12:00:00"),
                }
            )
    tables["attempts"] = pa.concat_tables(
        [tables["attempts"], pa.Table.from_pylist(attempt_rows, schema=demo.ATTEMPTS_SCHEMA)]
    )
    return dataclasses.replace(platform, tables=tables)


def built(name: str) -> dict[str, Any]:
    """Write a fixture platform as parquet and dbt-build the remedies, once per session."""
    if name not in _BUILDS:
        work = Path(tempfile.mkdtemp(prefix=f"cf-remedies-{name}-"))
        atexit.register(shutil.rmtree, work, ignore_errors=True)
        if name == "planted":
            platform = with_degenerate_templates(generate_platform(PLANTED_SPEC))
        else:
            platform = generate_platform(ABSENT_SPEC)
        write_parquet(platform, str(work / "raw"))
        database = work / "marts.duckdb"
        run = run_dbt(
            ["build", "--indirect-selection", "cautious", "--select", *SELECTOR],
            database=database,
            work_dir=work,
            dbt_vars={"raw_parquet_dir": str(work / "raw"), "fairness_gate_severity": "warn"},
        )
        _BUILDS[name] = {"run": run, "database": database, "platform": platform}
    return _BUILDS[name]


@pytest.fixture(scope="module")
def planted() -> dict[str, Any]:
    build = built("planted")
    assert build["run"].success, build["run"].output[-4000:]
    database = build["database"]
    tiers = read_table(database, "select * from main.fct_combination_tiers")
    return {
        **build,
        "tiers": tiers.set_index(["template_id", "variable_combination"]),
        "pools": read_table(database, "select * from main.fct_equivalent_combination_pools"),
        "truth": true_difficulties(PLANTED_SPEC),
    }


@pytest.mark.dbt
def test_measured_difficulty_recovers_the_truth_where_raw_means_do_not(
    planted: dict[str, Any],
) -> None:
    measured = planted["tiers"].join(planted["truth"], how="inner")
    assert len(measured) == 18 + 6  # tpl-01 and tpl-02 combinations
    assert (measured["status"] == "measured").all()
    error = measured["combination_difficulty"] - measured["true_difficulty"]
    covered = (measured["difficulty_ci_low"] <= measured["true_difficulty"]) & (
        measured["true_difficulty"] <= measured["difficulty_ci_high"]
    )
    planted_row = measured.loc[(PLANTED_TEMPLATE, PLANTED_COMBINATION)]
    assert planted_row["difficulty_ci_low"] <= planted_row["true_difficulty"]
    assert planted_row["true_difficulty"] <= planted_row["difficulty_ci_high"]
    assert planted_row["combination_difficulty"] < -20
    assert covered.mean() >= 0.8  # 95% intervals
    assert error.abs().max() < 4
    # routing: the weak family attempts the hardest third of tpl-01 16x more often, which
    # drags those combinations' raw means down; the adjusted difficulty is not fooled
    raw_error = (measured["raw_deviation"] - measured["true_difficulty"]).loc[PLANTED_TEMPLATE]
    adjusted_error = error.loc[PLANTED_TEMPLATE]
    hardest = measured.loc[PLANTED_TEMPLATE]["true_difficulty"].nsmallest(6).index
    assert raw_error.loc[hardest].mean() < -2.0
    assert abs(adjusted_error.loc[hardest].mean()) < 1.0
    assert (raw_error.loc[hardest].abs().mean()) > 2 * adjusted_error.loc[hardest].abs().mean()


@pytest.mark.dbt
def test_standard_errors_match_an_independent_computation(planted: dict[str, Any]) -> None:
    database = planted["database"]
    cells = read_table(
        database,
        "select cells.challenge_id, cells.trimmed_mean_variance as v, cells.effective_n as h,"
        " challenges.template_id, challenges.variable_combination"
        " from intermediate.int_challenge_family_cells_trimmed as cells"
        " join staging.stg_platform__challenges as challenges using (challenge_id)"
        " join intermediate.int_family_abilities_estimated as abilities"
        " using (verdict_window, challenge_id, model_family)"
        f" where challenges.template_id = '{PLANTED_TEMPLATE}' and cells.trimmed_mean is not null"
        " and cells.verdict_window = 'all' and abilities.is_in_challenge_reference",
    )
    tiers = planted["tiers"].loc[PLANTED_TEMPLATE]
    measured = tiers[tiers["status"] == "measured"].index
    m = len(measured)
    families = cells.groupby("challenge_id")["v"].transform("size")
    for combination in measured[:5]:
        # coefficient of each cell's trimmed mean in d_v = r_v - mean_u r_u
        own = cells["variable_combination"] == combination
        coefficient = np.where(own, 1 - 1 / m, -1 / m) / families
        variance = float(np.sum(coefficient**2 * cells["v"]))
        df = variance**2 / float(np.sum((coefficient**2 * cells["v"]) ** 2 / (cells["h"] - 1)))
        row = tiers.loc[combination]
        assert row["difficulty_standard_error"] == pytest.approx(np.sqrt(variance), rel=1e-9)
        assert row["difficulty_degrees_of_freedom"] == pytest.approx(df, rel=1e-9)
        half = scipy_stats.t.ppf(0.975, df) * np.sqrt(variance)
        assert row["difficulty_ci_high"] == pytest.approx(
            row["combination_difficulty"] + half, rel=1e-9
        )


@pytest.mark.dbt
def test_tiers_label_the_planted_combination_hardest(planted: dict[str, Any]) -> None:
    tiers = planted["tiers"].loc[PLANTED_TEMPLATE]
    tiers = tiers[tiers["status"] == "measured"]
    planted_row = tiers.loc[PLANTED_COMBINATION]
    assert planted_row["tier"] == tiers["tier"].max()
    # true difficulty -31.4: the planted -25 plus the combination's own simulated offset,
    # relative to the template mean; every other combination is within -2..+7.3
    true_difficulty = planted["truth"].loc[(PLANTED_TEMPLATE, PLANTED_COMBINATION)]
    assert true_difficulty["true_difficulty"] == pytest.approx(-31.43, abs=0.01)
    assert planted_row["tier_label"] == "harder by about 30 points"
    assert planted_row["difficulty_band"] == -3
    assert planted_row["is_tier_certain"]
    assert (tiers.drop(PLANTED_COMBINATION)["difficulty_band"] >= 0).all()
    assert tiers.loc[tiers["combination_difficulty"].idxmax(), "tier"] == 1
    # the tier width is 10: bands are round(difficulty / 10), certainty from the interval
    expected_band = np.round(tiers["combination_difficulty"] / 10).astype(int)
    assert (tiers["difficulty_band"] == expected_band).all()
    straddles = np.round(tiers["difficulty_ci_low"] / 10) != np.round(
        tiers["difficulty_ci_high"] / 10
    )
    assert (tiers["is_tier_certain"] == ~straddles).all()


@pytest.mark.dbt
def test_pools_group_within_tolerance_and_isolate_the_planted_combination(
    planted: dict[str, Any],
) -> None:
    pools = planted["pools"]
    assert (pools["pool_range"] <= 5 + 1e-9).all()
    for template_id, members in pools.groupby("template_id"):
        expected = greedy_pools(members["combination_difficulty"].to_numpy(), 5.0)
        assert (members["pool_number"].to_numpy() == expected).all(), template_id
    planted_row = pools.set_index("variable_combination").loc[PLANTED_COMBINATION]
    assert planted_row["pool_size"] == 1
    assert planted_row["equivalence_status"] == "single_member"
    assert not planted_row["is_recommended_pool"]
    # with about 1,000 attempts per combination the recommended pool is demonstrated
    recommended = pools[pools["is_recommended_pool"]]
    assert set(recommended["template_id"]) == {"tpl-01", "tpl-02"}
    assert recommended.groupby("template_id")["pool_id"].nunique().eq(1).all()
    assert recommended["is_member_equivalent"].all()
    largest = pools[pools["is_pool_equivalent"]].groupby("template_id")["pool_size"].max()
    assert (recommended.groupby("template_id")["pool_size"].first() == largest).all()
    # an independent TOST of one member against its pool centre
    member = recommended.iloc[0]
    lower = scipy_stats.t.sf(
        (member["difference_from_centre"] + 5) / member["difference_standard_error"],
        member["difference_degrees_of_freedom"],
    )
    upper = scipy_stats.t.cdf(
        (member["difference_from_centre"] - 5) / member["difference_standard_error"],
        member["difference_degrees_of_freedom"],
    )
    assert member["tost_p_value"] == pytest.approx(max(lower, upper), rel=1e-9, abs=1e-300)


@pytest.mark.dbt
def test_adjusted_scores_remove_the_combination_effect(planted: dict[str, Any]) -> None:
    database = planted["database"]
    # family-balanced means (mean over families of the family mean), so routing cancels
    means = read_table(
        database,
        "with family_means as ("
        " select template_id, variable_combination, model_family,"
        " avg(score) as raw, avg(adjusted_score) as adjusted"
        " from main.fct_difficulty_adjusted_scores"
        f" where template_id = '{PLANTED_TEMPLATE}' and is_adjusted"
        " group by all)"
        " select variable_combination, avg(raw) as raw, avg(adjusted) as adjusted"
        " from family_means group by all",
    )
    assert means["raw"].max() - means["raw"].min() > 25
    assert means["adjusted"].max() - means["adjusted"].min() < 5
    assert means["adjusted"].std() < 1.5
    counts = read_table(
        database,
        "select count(*) as n, count(distinct attempt_id) as ids,"
        " count(*) filter (where is_adjusted) as adjusted"
        " from main.fct_difficulty_adjusted_scores",
    ).iloc[0]
    attempts = planted["platform"].tables["attempts"].to_pandas()
    challenges = planted["platform"].tables["challenges"].to_pandas()
    templated = set(challenges.loc[challenges["variables"] != "{}", "challenge_id"])
    expected = attempts["score"].notna() & attempts["challenge_id"].isin(templated)
    assert counts["n"] == counts["ids"] == expected.sum()
    # every scored attempt is adjusted but those of the one-combination template (120) and
    # the constant template (2 x 120)
    assert counts["adjusted"] == expected.sum() - 3 * 120


@pytest.mark.dbt
def test_degenerate_templates_are_null_with_a_status(planted: dict[str, Any]) -> None:
    tiers = planted["tiers"]
    single = tiers.loc[(SINGLE_TEMPLATE, '{"x":1}')]
    assert single["status"] == "single_combination"
    assert pd.isna(single["combination_difficulty"]) and pd.isna(single["tier"])
    assert single["tier_label"] == "unmeasured"
    constant = tiers.loc[CONSTANT_TEMPLATE]
    assert (constant["status"] == "no_variation").all()
    assert constant["combination_difficulty"].isna().all()
    unscored = tiers.loc[(PLANTED_TEMPLATE, UNSCORED_COMBINATION)]
    assert unscored["status"] == "no_scored_attempts"
    assert unscored["scored_attempts"] == 0 and isinstance(unscored["reason"], str)
    assert tiers.loc[PLANTED_TEMPLATE, "measured_combinations"].iloc[0] == 18
    pools = planted["pools"]
    assert not pools["template_id"].isin([SINGLE_TEMPLATE, CONSTANT_TEMPLATE]).any()
    assert UNSCORED_COMBINATION not in set(pools["variable_combination"])
    statuses = read_table(
        planted["database"],
        "select template_id, adjustment_status, count(*) as n,"
        " count(adjusted_score) as with_score"
        " from main.fct_difficulty_adjusted_scores"
        f" where template_id in ('{SINGLE_TEMPLATE}', '{CONSTANT_TEMPLATE}') group by all",
    ).set_index("template_id")
    assert statuses.loc[SINGLE_TEMPLATE, "adjustment_status"] == "single_combination"
    assert statuses.loc[CONSTANT_TEMPLATE, "adjustment_status"] == "no_variation"
    assert (statuses["with_score"] == 0).all()
    coverage = read_table(
        planted["database"],
        "select * exclude (mart) from main.fct_detector_coverage"
        " where detector = 'combination_remedies'",
    ).iloc[0]
    assert coverage["is_available"] and coverage["missing_inputs"] is None


@pytest.mark.dbt
def test_platform_without_templated_challenges_builds_empty_marts() -> None:
    build = built("absent")
    assert build["run"].success, build["run"].output[-4000:]
    database = build["database"]
    for mart in (
        "fct_combination_tiers",
        "fct_equivalent_combination_pools",
        "fct_difficulty_adjusted_scores",
    ):
        assert read_table(database, f"select count(*) as n from main.{mart}").iloc[0]["n"] == 0
    coverage = read_table(
        database,
        "select * exclude (mart) from main.fct_detector_coverage"
        " where detector = 'combination_remedies'",
    )
    assert len(coverage) == 1
    row = coverage.iloc[0]
    assert row["detector"] == "combination_remedies"
    assert not row["is_available"]
    assert "no templated challenge" in row["missing_inputs"]
    assert row["rows_analysed"] == 0


def test_worked_example_of_the_variance_formula() -> None:
    """Var(d_v) with the shortcut (1 - 1/m)^2 V_v + (sum V - V_v)/m^2 equals the sum over
    explicit coefficients, for unequal variances."""
    variances = np.array([1.0, 2.0, 4.0, 0.5])
    m = len(variances)
    for v in range(m):
        coefficients = np.full(m, -1 / m)
        coefficients[v] += 1
        explicit = float(np.sum(coefficients**2 * variances))
        shortcut = (1 - 1 / m) ** 2 * variances[v] + (variances.sum() - variances[v]) / m**2
        assert shortcut == pytest.approx(explicit, rel=1e-12)
