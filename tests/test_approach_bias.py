"""Approach bias: the stratified difference against scipy and an independent computation,
the confounding it removes, the UDF from SQL, the staging model and mart end to end
(planted / fair / absent column), and its GX suite."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest
from challenge_fairness.detectors.approach_bias import stratified_mean_difference
from challenge_fairness.gate import validate_suite
from challenge_fairness.plugin import Plugin
from challenge_fairness.stats import STATUS_NOT_COMPUTABLE, STATUS_OK
from conftest import read_table
from cutoff_approach_clustering_fixtures import (
    ABSENT,
    APPROACH_CHALLENGES,
    CONFOUNDED_CHALLENGE,
    FAIR,
    PLANTED,
    THREE_APPROACH_CHALLENGE,
    built,
)
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats as scipy_stats

RTOL = 1e-9
scores = st.integers(0, 100).map(float)
samples = hnp.arrays(np.float64, st.integers(2, 30), elements=scores)


def moments(sample: np.ndarray) -> tuple[float, float, float]:
    return float(sample.size), float(sample.mean()), float(sample.var(ddof=1))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@given(samples, samples)
@settings(max_examples=120, deadline=None)
def test_one_stratum_is_welchs_t_test(a: np.ndarray, b: np.ndarray) -> None:
    (n_a, mean_a, var_a), (n_b, mean_b, var_b) = moments(a), moments(b)
    result = stratified_mean_difference([n_a], [mean_a], [var_a], [n_b], [mean_b], [var_b], 0.05)
    if a.var() == 0 and b.var() == 0:
        assert result.status == STATUS_NOT_COMPUTABLE
        assert result.difference == pytest.approx(a.mean() - b.mean())
        return
    expected = scipy_stats.ttest_ind(a, b, equal_var=False)
    interval = expected.confidence_interval(0.95)
    assert result.status == STATUS_OK
    assert result.difference == pytest.approx(a.mean() - b.mean(), rel=RTOL, abs=1e-9)
    assert result.t_statistic == pytest.approx(expected.statistic, rel=1e-7)
    assert result.p_value == pytest.approx(expected.pvalue, rel=1e-7, abs=1e-300)
    assert result.degrees_of_freedom == pytest.approx(expected.df, rel=1e-7)
    assert result.ci_low == pytest.approx(interval.low, rel=1e-7, abs=1e-7)
    assert result.ci_high == pytest.approx(interval.high, rel=1e-7, abs=1e-7)


@st.composite
def strata(draw: st.DrawFn) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(draw(samples), draw(samples)) for _ in range(draw(st.integers(1, 6)))]


def independent_combination(pairs: list[tuple[np.ndarray, np.ndarray]]) -> dict[str, float]:
    """The same estimator written from the raw samples with explicit loops."""
    numerator = total_weight = 0.0
    parts: list[tuple[float, float, float]] = []  # (weight, variance term, df)
    for a, b in pairs:
        weight = len(a) * len(b) / (len(a) + len(b))
        numerator += weight * (np.mean(a) - np.mean(b))
        total_weight += weight
        parts.append((weight, np.var(a, ddof=1) / len(a), len(a) - 1))
        parts.append((weight, np.var(b, ddof=1) / len(b), len(b) - 1))
    terms = [(w / total_weight) ** 2 * v for w, v, _ in parts]
    variance = sum(terms)
    df = variance**2 / sum(t**2 / d for t, (_, _, d) in zip(terms, parts, strict=True) if t > 0)
    return {"difference": numerator / total_weight, "se": np.sqrt(variance), "df": df}


@given(strata())
@settings(max_examples=120, deadline=None)
def test_several_strata_match_an_independent_loop(
    pairs: list[tuple[np.ndarray, np.ndarray]],
) -> None:
    assume(any(a.var() > 0 or b.var() > 0 for a, b in pairs))
    columns = [moments(a) + moments(b) for a, b in pairs]
    result = stratified_mean_difference(*np.asarray(columns).T, alpha=0.05)
    expected = independent_combination(pairs)
    assert result.strata == len(pairs)
    assert result.difference == pytest.approx(expected["difference"], rel=RTOL, abs=1e-9)
    assert result.standard_error == pytest.approx(expected["se"], rel=1e-9)
    assert result.degrees_of_freedom == pytest.approx(expected["df"], rel=1e-9)
    t = expected["difference"] / expected["se"]
    assert result.p_value == pytest.approx(
        2 * scipy_stats.t.sf(abs(t), expected["df"]), rel=1e-7, abs=1e-300
    )


def test_equal_sized_strata_average_their_differences() -> None:
    """Mantel-Haenszel weights n_a n_b / (n_a + n_b) are equal for equal-sized strata."""
    result = stratified_mean_difference(
        [10, 10, 10], [50, 70, 40], [100, 90, 80], [10, 10, 10], [45, 50, 46], [110, 70, 60], 0.05
    )
    assert result.difference == pytest.approx(np.mean([5, 20, -6]))


def test_strata_without_two_attempts_per_side_are_left_out() -> None:
    result = stratified_mean_difference(
        [1, 12, 5], [90, 50, 60], [np.nan, 100, 80], [20, 1, 5], [10, 40, 58], [90, np.nan, 70],
        0.05,
    )  # fmt: skip
    assert result.strata == 1 and result.attempts_a == 5 and result.attempts_b == 5
    assert result.difference == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        (([], [], [], [], [], []), "no model family has two or more"),
        (([1], [50], [np.nan], [9], [40], [30]), "no model family has two or more"),
        (([5, 4], [50, 20], [0, 0], [3, 6], [40, 20], [0, 0]), "constant"),
    ],
)
def test_degenerate_comparisons_are_not_computable(arguments: tuple, reason: str) -> None:
    result = stratified_mean_difference(*arguments, 0.05)
    assert result.status == STATUS_NOT_COMPUTABLE and reason in result.reason
    assert result.p_value is None and result.standard_error is None


def test_stratification_removes_the_family_confound() -> None:
    """Skilled families prefer approach a; the approaches score the same within a family."""
    rng = np.random.default_rng(12)
    naive, stratified = [], []
    for _ in range(200):
        columns, all_a, all_b = [], [], []
        for skill, share_a in ((20.0, 0.9), (20.0, 0.9), (0.0, 0.1), (0.0, 0.1)):
            n_a = rng.binomial(120, share_a)
            a = rng.normal(50 + skill, 15, n_a)
            b = rng.normal(50 + skill, 15, 120 - n_a)
            columns.append(moments(a) + moments(b))
            all_a.append(a)
            all_b.append(b)
        naive.append(np.concatenate(all_a).mean() - np.concatenate(all_b).mean())
        result = stratified_mean_difference(*np.asarray(columns).T, alpha=0.05)
        stratified.append((result.difference, result.p_value))
    assert np.mean(naive) > 14  # the confounded gap: about 20 * (0.9 - 0.1)
    assert abs(np.mean([d for d, _ in stratified])) < 0.5
    assert np.mean([p < 0.05 for _, p in stratified]) < 0.1  # about alpha


def test_udf_matches_the_pure_function() -> None:
    connection = duckdb.connect()
    Plugin(name="challenge_fairness", plugin_config={}).configure_connection(connection)
    rows = connection.sql(
        """
        select cf_stratified_mean_difference(
            [10.0, 20.0], [50.0, 60.0], [100.0, null], [12.0, 8.0], [40.0, 55.0], [120.0, 80.0],
            0.05
        ), cf_stratified_mean_difference(null, [1.0], [1.0], [1.0], [1.0], [1.0], 0.05)
        """
    ).fetchall()[0]
    expected = stratified_mean_difference([10, 20], [50, 60], [100, np.nan], [12, 8],
                                          [40, 55], [120, 80], 0.05)  # fmt: skip
    assert rows[0]["difference"] == pytest.approx(expected.difference, rel=RTOL)
    assert rows[0]["strata"] == 1 and rows[0]["p_value"] == pytest.approx(expected.p_value)
    assert rows[1] is None


# --- end to end ------------------------------------------------------------------------------


def approach_bias(build: dict) -> pd.DataFrame:
    assert build["run"].success, build["run"].output
    return read_table(build["database"], "select * from main.fct_approach_bias")


@pytest.mark.dbt
def test_planted_gap_is_flagged_and_the_confounded_challenge_is_not() -> None:
    marts = approach_bias(built(PLANTED)).set_index("challenge_id")
    planted = marts.loc["ch-s07"]
    assert (planted["approach_a"], planted["approach_b"]) == ("app-router", "pages-router")
    assert planted["is_flagged"] and planted["families_compared"] == 6
    assert planted["ci_low"] <= 15.0 <= planted["ci_high"]  # pages-router planted -15
    confounded = marts.loc[CONFOUNDED_CHALLENGE]
    assert confounded["naive_gap"] > confounded["gap_threshold"]  # a naive rule would flag
    assert not confounded["is_flagged"] and abs(confounded["stratified_gap"]) < 5
    assert not marts.loc["ch-s08"]["is_flagged"]
    three = marts.loc[[THREE_APPROACH_CHALLENGE]]
    assert sorted(zip(three["approach_a"], three["approach_b"], strict=True)) == [
        ("a", "b"), ("a", "c"), ("b", "c"),
    ]  # fmt: skip
    assert not three["is_flagged"].any()
    assert marts["is_flagged"].sum() == 1


@pytest.mark.dbt
def test_fair_platform_is_quiet() -> None:
    marts = approach_bias(built(FAIR))
    assert len(marts) == len(APPROACH_CHALLENGES) + 3
    assert not marts["is_flagged"].any()
    assert (marts["status"] == "tested").all()


@pytest.mark.dbt
def test_mart_equals_an_independent_pandas_computation() -> None:
    build = built(PLANTED)
    marts = approach_bias(build)
    tables = {name: t.to_pandas() for name, t in build["platform"].tables.items()}
    attempts = (
        tables["attempts"]
        .dropna(subset=["score", "approach"])
        .merge(tables["agents"], on="agent_id")
        .merge(tables["models"], on="model_id")
    )
    for row in marts.itertuples():
        on = attempts[attempts["challenge_id"] == row.challenge_id]
        pairs = []
        for _, family in on.groupby("model_family"):
            a = family.loc[family["approach"] == row.approach_a, "score"].to_numpy()
            b = family.loc[family["approach"] == row.approach_b, "score"].to_numpy()
            if len(a) >= 2 and len(b) >= 2:
                pairs.append((a, b))
        expected = independent_combination(pairs)
        naive = (
            on.loc[on["approach"] == row.approach_a, "score"].mean()
            - on.loc[on["approach"] == row.approach_b, "score"].mean()
        )
        assert row.naive_gap == pytest.approx(naive, rel=RTOL)
        assert row.stratified_gap == pytest.approx(expected["difference"], rel=RTOL)
        assert row.standard_error == pytest.approx(expected["se"], rel=RTOL)
        assert row.families_compared == len(pairs)
    labelled = read_table(
        build["database"], "select count(*) as n from intermediate.int_keyed__attempt_approaches"
    )
    assert labelled["n"].iloc[0] == tables["attempts"]["approach"].notna().sum()


@pytest.mark.dbt
def test_without_the_column_the_mart_is_empty_and_coverage_says_so() -> None:
    build = built(ABSENT)
    assert approach_bias(build).empty
    coverage = read_table(
        build["database"],
        "select * exclude (mart) from main.fct_detector_coverage where detector = 'approach_bias'",
    ).iloc[0]
    assert not coverage["is_available"]
    assert coverage["missing_inputs"] == "optional source column absent: attempts.approach"
    assert coverage["rows_analysed"] == 0
    present = read_table(
        built(FAIR)["database"],
        "select * exclude (mart) from main.fct_detector_coverage where detector = 'approach_bias'",
    ).iloc[0]
    assert present["is_available"] and present["missing_inputs"] is None
    assert present["rows_analysed"] > 0


# --- the GX suite ---------------------------------------------------------------------------


def suite_rows(flagged_gap: float | None) -> pd.DataFrame:
    rows = [
        ("ch-s08", "graphql", "rest", 0.6, False),
        ("ch-s12", "x", "y", 14.0, False),  # large but not significant: not a violation
        ("ch-s05", "a", "b", -3.0, True),
    ]
    if flagged_gap is not None:
        rows.append(("ch-s07", "app-router", "pages-router", flagged_gap, True))
    frame = pd.DataFrame(
        rows, columns=["challenge_id", "approach_a", "approach_b", "stratified_gap",
                       "is_significant"],
    )  # fmt: skip
    return frame.assign(
        naive_gap=frame["stratified_gap"] + 1, ci_low=frame["stratified_gap"] - 4,
        ci_high=frame["stratified_gap"] + 4, interval_level=0.95, q_value=0.001,
    )  # fmt: skip


@pytest.mark.parametrize("gap", [15.36, -12.5])
def test_gx_suite_passes_on_fair_pairs_and_names_a_biased_one(gap: float) -> None:
    thresholds = {"approach_gap_threshold": 10.0}
    passing = validate_suite(
        "approach_bias_within_threshold", suite_rows(None), thresholds, "error"
    )
    assert all(row["success"] for row in passing)
    failing = validate_suite("approach_bias_within_threshold", suite_rows(gap), thresholds, "error")
    assert not failing[0]["success"] and failing[0]["failing_rows"] == 1
    message = failing[0]["failure_message"]
    assert "challenge 'ch-s07': approach 'app-router'" in message
    assert f"{gap:+.2f} points against 'pages-router'" in message
    assert "threshold of 10 (approach_gap_threshold)" in message
