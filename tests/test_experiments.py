"""A/B experiments: TOST against scipy's t tests on the attempts, the bootstrap against
scipy.stats.bootstrap, the non-inferiority test, degenerate inputs, and
fct_experiment_results end to end."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest
from challenge_fairness.detectors import experiments
from challenge_fairness.plugin import Plugin
from conftest import read_table
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats as scipy_stats

scores = hnp.arrays(np.float64, st.integers(2, 60), elements=st.integers(0, 100).map(float))


@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")
@given(scores, scores, st.sampled_from([0.0, 2.5, 5.0, 10.0]), st.sampled_from([0.05, 0.1]))
@settings(max_examples=200, deadline=None)
def test_tost_equals_two_one_sided_welch_tests_on_shifted_attempts(
    a: np.ndarray, b: np.ndarray, margin: float, alpha: float
) -> None:
    result = experiments.equivalence_test(
        a.size, a.mean(), a.var(ddof=1), b.size, b.mean(), b.var(ddof=1), margin, alpha
    )
    if a.var() == 0 and b.var() == 0:  # no spread: no t test
        assert np.isnan(result.p_value) and np.isnan(result.ci_low)
        return
    lower = scipy_stats.ttest_ind(b + margin, a, equal_var=False, alternative="greater")
    upper = scipy_stats.ttest_ind(b - margin, a, equal_var=False, alternative="less")
    assert result.p_value_lower == pytest.approx(lower.pvalue, rel=1e-9, abs=1e-15)
    assert result.p_value_upper == pytest.approx(upper.pvalue, rel=1e-9, abs=1e-15)
    assert result.p_value == pytest.approx(max(lower.pvalue, upper.pvalue), rel=1e-9, abs=1e-15)
    interval = scipy_stats.ttest_ind(b, a, equal_var=False).confidence_interval(1 - 2 * alpha)
    assert result.ci_low == pytest.approx(interval.low, rel=1e-9, abs=1e-9)
    assert result.ci_high == pytest.approx(interval.high, rel=1e-9, abs=1e-9)
    assert result.difference == pytest.approx(b.mean() - a.mean())
    # TOST p < alpha exactly when the (1 - 2 alpha) interval lies inside (-margin, margin).
    inside = result.ci_low > -margin and result.ci_high < margin
    if abs(result.p_value - alpha) > 1e-9:
        assert (result.p_value < alpha) == inside


def test_tost_is_vectorised_and_nan_for_degenerate_rows() -> None:
    result = experiments.equivalence_test(
        [100, 1, 50], [50.0, 50.0, 50.0], [100.0, 10.0, 0.0],
        [120, 30, 50], [52.0, 50.0, 50.0], [90.0, 10.0, 0.0],
        5.0, 0.05,
    )  # fmt: skip
    assert np.isfinite(result.p_value[0])
    assert np.isnan(result.p_value[1:]).all()  # n < 2 / no variance in either arm


def test_tost_of_constant_arms_is_nan_whatever_the_rounding_of_their_moments() -> None:
    """Two arms of one score each are not testable even when their moments come from counts
    as SQL computes them: 15 scores of 30.03 give a mean an ulp off 30.03 and a variance of
    about 1e-29 instead of 0 (a finite t near 1e15 before)."""
    n = 15.0
    mean = 30.03 * n / n  # the sum of the counts, then the mean: 30.030000000000005
    variance = n * (30.03 - mean) ** 2 / (n - 1)
    assert 0 < variance < 1e-27
    result = experiments.equivalence_test(
        [n, n], [mean, mean], [variance, variance], [n, n], [mean, 40.0], [variance, 0.0], 5.0, 0.05
    )
    for field in ("p_value", "p_value_lower", "p_value_upper", "ci_low", "ci_high", "difference"):
        assert np.isnan(getattr(result, field)).all(), field


def test_noninferiority_test_formula() -> None:
    result = experiments.noninferiority_test([-0.05, 0.3, 0.1], [0.05, 0.1, 0.0], 0.2, 0.05)
    z = scipy_stats.norm.ppf(0.95)
    assert result.ci_low[0] == pytest.approx(-0.05 - z * 0.05)
    assert result.ci_high[1] == pytest.approx(0.3 + z * 0.1)
    assert result.p_value[0] == pytest.approx(1 - scipy_stats.norm.cdf((-0.05 + 0.2) / 0.05))
    assert np.isnan(result.p_value[2])  # zero standard error


def compressed_cells(
    rng: np.random.Generator, means: dict[tuple[int, int], float], size: int
) -> tuple[dict[tuple[int, int], np.ndarray], pd.DataFrame]:
    """Integer scores per (arm, family) cell and their compressed (arm, family, score, count)."""
    samples = {
        cell: np.clip(np.rint(rng.normal(mean, 15, size=size)), 0, 100)
        for cell, mean in means.items()
    }
    rows = []
    for (arm, family), sample in samples.items():
        values, counts = np.unique(sample, return_counts=True)
        rows += [(arm, family, v, c) for v, c in zip(values, counts, strict=True)]
    return samples, pd.DataFrame(rows, columns=["arm", "family", "score", "count"])


def reduction_statistic(*cells: np.ndarray, axis: int = -1) -> np.ndarray:
    """1 - var_B / var_A of family means; cells = A's families then B's families."""
    means = np.stack([np.mean(cell, axis=axis) for cell in cells], axis=-1)
    half = len(cells) // 2
    return 1 - np.var(means[..., half:], axis=-1, ddof=1) / np.var(
        means[..., :half], axis=-1, ddof=1
    )


def test_variance_reduction_matches_scipy_bootstrap_resampling_within_cells() -> None:
    rng = np.random.default_rng(1)
    shifts = [0, 0, 15, 0, -4]  # family 2 favoured in arm A only
    means = {(0, f): 55.0 + s for f, s in enumerate(shifts)}
    means |= {(1, f): 55.0 + (s if f != 2 else 0) for f, s in enumerate(shifts)}
    samples, compressed = compressed_cells(rng, means, size=120)
    result = experiments.variance_reduction(
        compressed["arm"], compressed["family"], compressed["score"], compressed["count"],
        n_resamples=4000, alpha=0.05, seed=9,
    )  # fmt: skip
    cells = [samples[(0, f)] for f in range(5)] + [samples[(1, f)] for f in range(5)]
    assert result.status == "ok" and result.families == 5
    point_a = np.var([c.mean() for c in cells[:5]], ddof=1)
    point_b = np.var([c.mean() for c in cells[5:]], ddof=1)
    assert result.variance_a == pytest.approx(point_a)
    assert result.variance_b == pytest.approx(point_b)
    assert result.reduction == pytest.approx(float(reduction_statistic(*cells)))
    reference = scipy_stats.bootstrap(
        cells,
        reduction_statistic,
        n_resamples=4000,
        confidence_level=0.90,
        method="percentile",
        vectorized=True,
        rng=np.random.default_rng(2),
    )
    # Two independent Monte Carlo runs of the same bootstrap distribution.
    assert result.ci_low == pytest.approx(reference.confidence_interval.low, abs=0.03)
    assert result.ci_high == pytest.approx(reference.confidence_interval.high, abs=0.03)


def test_variance_reduction_is_seeded_per_experiment() -> None:
    rng = np.random.default_rng(4)
    _, compressed = compressed_cells(
        rng, {(a, f): 50.0 + 3 * f for a in (0, 1) for f in range(4)}, 40
    )
    args = (compressed["arm"], compressed["family"], compressed["score"], compressed["count"])

    def run(key: str) -> experiments.VarianceReduction:
        seed = experiments.bootstrap_seed(20260101, key)
        return experiments.variance_reduction(*args, n_resamples=500, alpha=0.05, seed=seed)

    assert run("exp-1") == run("exp-1")
    assert run("exp-1").ci_low != run("exp-2").ci_low
    assert run("exp-1").reduction == run("exp-2").reduction


@pytest.mark.parametrize(
    ("arms", "families", "values", "reason"),
    [
        ([0, 0, 1], [0, 1, 0], [50.0, 60.0, 55.0], "fewer than two families"),
        ([0, 0, 1, 1], [0, 1, 0, 1], [50.0, 50.0, 40.0, 60.0], "arm A are identical"),
        ([], [], [], "fewer than two families"),
    ],
)
def test_variance_reduction_degenerate(
    arms: list[int], families: list[int], values: list[float], reason: str
) -> None:
    result = experiments.variance_reduction(
        arms, families, values, [5] * len(values), n_resamples=100, alpha=0.05, seed=1
    )
    assert result.status == "not_computable" and result.reduction is None
    assert reason in (result.reason or "")


def test_variance_reduction_of_constant_families_is_not_computable() -> None:
    """Every family of both arms scored 30.03, from 15, 7 and 11 attempts: the family means
    are an ulp apart, which gave a reduction of 1 - 0 / 1e-30 = 1 (a 'pass')."""
    result = experiments.variance_reduction(
        [0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2], [30.03] * 6, [15, 7, 11, 15, 7, 11],
        n_resamples=100, alpha=0.05, seed=1,
    )  # fmt: skip
    assert result.status == "not_computable" and result.reduction is None
    assert "arm A are identical" in (result.reason or "")


def test_udfs_on_duckdb_match_the_pure_functions() -> None:
    connection = duckdb.connect()
    Plugin(name="challenge_fairness", plugin_config={}).configure_connection(connection)
    row = connection.sql(
        """
        select
            cf_variance_reduction(
                'exp-x', ['A', 'A', 'B', 'B'], ['f1', 'f2', 'f1', 'f2'], [40.0, 60.0, 49.0, 51.0],
                [10, 10, 10, 10]::bigint[], 200, 0.05, 7
            ) as reduction,
            cf_equivalence_test(100, 50, 100, 100, 52, 100, 5, 0.05) as tost,
            cf_noninferiority_test(-0.1, 0.05, 0.2, 0.05) as noninferiority,
            cf_equivalence_test(null, 50, 100, 100, 52, 100, 5, 0.05) as tost_null
        """
    ).fetchall()[0]
    assert row[0]["reduction"] == pytest.approx(1 - 2 / 200)
    assert row[0]["status"] == "ok"
    expected = experiments.equivalence_test(100, 50, 100, 100, 52, 100, 5, 0.05)
    assert row[1]["p_value"] == pytest.approx(float(expected.p_value))
    assert row[2]["ci_low"] == pytest.approx(-0.1 - scipy_stats.norm.ppf(0.95) * 0.05)
    assert row[3]["p_value"] is None


# --- dbt end to end ---------------------------------------------------------------------


@pytest.mark.dbt
def test_experiment_verdicts_on_the_fixture_platform() -> None:
    from f3_platform import build

    built = build("planted")
    results = read_table(built.database, "select * from main.fct_experiment_results").set_index(
        "experiment_id"
    )
    verdicts = results["verdict"].to_dict()
    assert verdicts["exp-good"] == "success", results.loc["exp-good", "reason"]
    assert verdicts["exp-harder"] == "failure"
    assert results.loc["exp-harder", "mean_change_status"] == "fail"
    assert verdicts["exp-noise"] == "failure"
    assert results.loc["exp-noise", "discrimination_status"] == "fail"
    assert results.loc["exp-noise", "mean_change_status"] == "pass"
    assert verdicts["exp-same"] != "success"
    assert results.loc["exp-same", "variance_reduction_status"] in ("fail", "inconclusive")
    assert verdicts["exp-solo"] == "not_testable"
    assert results.loc["exp-solo", "reason"] == "no challenge in arm B"
    assert results.loc["exp-multi", "arm_b_challenges"] == "ab-multi-b1, ab-multi-b2"
    assert "exp-001" not in verdicts  # ch-s01 is not in an experiment in this fixture

    attempts = built.tables["attempts"].merge(
        built.tables["challenges"][["challenge_id", "experiment_id", "experiment_arm"]],
        on="challenge_id",
    )
    attempts["arm"] = attempts["experiment_arm"].str.upper()
    for experiment_id in ("exp-good", "exp-harder", "exp-noise", "exp-same", "exp-multi"):
        rows = attempts[attempts.experiment_id == experiment_id]
        a = rows[rows.arm == "A"].score.to_numpy()
        b = rows[rows.arm == "B"].score.to_numpy()
        got = results.loc[experiment_id]
        assert (got.arm_a_attempts, got.arm_b_attempts) == (a.size, b.size)
        assert got.mean_change == pytest.approx(b.mean() - a.mean(), rel=1e-9)
        lower = scipy_stats.ttest_ind(b + 5, a, equal_var=False, alternative="greater").pvalue
        upper = scipy_stats.ttest_ind(b - 5, a, equal_var=False, alternative="less").pvalue
        assert got.mean_change_tost_p_value == pytest.approx(max(lower, upper), rel=1e-6, abs=1e-15)
        assert got.interval_level == pytest.approx(0.9)
        assert (
            got.variance_reduction_ci_low
            <= got.variance_reduction
            <= (got.variance_reduction_ci_high)
        )

    irt_rows = read_table(built.database, "select * from main.fct_challenge_irt").set_index(
        "challenge_id"
    )
    good = results.loc["exp-good"]
    assert good.discrimination_change == pytest.approx(
        irt_rows.loc["ab-good-b", "discrimination"] - irt_rows.loc["ab-good-a", "discrimination"]
    )
    # The contrast's standard error is well below the independent combination: the two
    # challenges' a share the uncertainty of the ability scale.
    independent = np.hypot(
        irt_rows.loc["ab-good-a", "discrimination_se"],
        irt_rows.loc["ab-good-b", "discrimination_se"],
    )
    assert good.discrimination_change_se < independent

    coverage = read_table(
        built.database,
        "select * exclude (mart) from main.fct_detector_coverage"
        " where detector = 'experiment_results'",
    )
    assert coverage.loc[0, "is_available"]
    testable = results[results.verdict != "not_testable"]
    assert coverage.loc[0, "rows_analysed"] == (
        testable.arm_a_attempts.sum() + testable.arm_b_attempts.sum()
    )


@pytest.mark.dbt
def test_no_experiment_builds_an_empty_mart() -> None:
    from f3_platform import build

    built = build("absent")
    mart = read_table(built.database, "select * from main.fct_experiment_results")
    assert mart.empty and "verdict" in mart.columns
    coverage = read_table(
        built.database,
        "select * exclude (mart) from main.fct_detector_coverage"
        " where detector = 'experiment_results'",
    )
    assert not coverage.loc[0, "is_available"]
    assert "no challenge with experiment_id and both arms" in coverage.loc[0, "missing_inputs"]
    assert coverage.loc[0, "rows_analysed"] == 0
