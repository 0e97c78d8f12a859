"""Implementation-specific test cases (Mantel-Haenszel DIF): statistics and UDF.

The detector's statistics are checked against computations written differently here
(explicit loops over strata, the reduced (K-1)-row Landis-Heyman-Koch form solved with
numpy), against scipy on single-stratum special cases, and against R's documented
`mantelhaen.test` results for two textbook data sets.
"""

from __future__ import annotations

import math

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from challenge_fairness.detectors import test_case_bias as dif
from challenge_fairness.registry import all_udfs, register_udfs
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.stats.contingency import odds_ratio

RTOL = 1e-9
Z95 = stats.norm.ppf(0.975)


# --- independent implementations (loops over strata, reduced LHK form) ---------------------


def reference_gcmh(passes: np.ndarray, totals: np.ndarray) -> tuple[float, int] | None:
    """Landis-Heyman-Koch Q, stratum by stratum: the K - 1 row form solved directly, or (when
    that V is singular) the full K x K form with a least-squares minimum-norm solution."""
    present = totals.sum(axis=1) > 0
    passes, totals = passes[present], totals[present]
    k = passes.shape[0]
    if k < 2:
        return None
    difference = np.zeros(k)
    covariance = np.zeros((k, k))
    for s in range(passes.shape[1]):
        n = totals[:, s].sum()
        m = passes[:, s].sum()
        if n < 2:
            continue
        for i in range(k):
            difference[i] += passes[i, s] - totals[i, s] * m / n
            for j in range(k):
                kronecker = 1.0 if i == j else 0.0
                covariance[i, j] += (
                    m * (n - m) * totals[i, s] * (n * kronecker - totals[j, s]) / (n**2 * (n - 1))
                )
    reduced = covariance[: k - 1, : k - 1]
    if np.linalg.cond(reduced) < 1e8:
        head = difference[: k - 1]
        return float(head @ np.linalg.solve(reduced, head)), k - 1
    rank = int(np.linalg.matrix_rank(covariance, tol=1e-9 * max(1.0, np.abs(covariance).max())))
    if rank == 0:
        return None
    solution = np.linalg.lstsq(covariance, difference, rcond=1e-10)[0]
    return float(difference @ solution), rank


def reference_mh(
    reference_pass: list[float],
    reference_fail: list[float],
    focal_pass: list[float],
    focal_fail: list[float],
) -> dict[str, float | bool] | None:
    """Mantel-Haenszel estimate, RBG variance and corrected chi-square by explicit loops;
    None without an informative stratum."""
    strata = [
        (a, b, c, d)
        for a, b, c, d in zip(reference_pass, reference_fail, focal_pass, focal_fail, strict=True)
        if (a + b) > 0 and (c + d) > 0 and (a + c) > 0 and (b + d) > 0
    ]
    if not strata:
        return None
    sum_a = sum_expected = sum_variance = 0.0
    for a, b, c, d in strata:
        t = a + b + c + d
        sum_a += a
        sum_expected += (a + b) * (a + c) / t
        sum_variance += (a + b) * (c + d) * (a + c) * (b + d) / (t * t * (t - 1))
    chi_square = max(abs(sum_a - sum_expected) - 0.5, 0.0) ** 2 / sum_variance
    numerator = sum(a * d / (a + b + c + d) for a, b, c, d in strata)
    denominator = sum(b * c / (a + b + c + d) for a, b, c, d in strata)
    corrected = numerator == 0 or denominator == 0
    if corrected:
        strata = [(a + 0.5, b + 0.5, c + 0.5, d + 0.5) for a, b, c, d in strata]
    r_total = s_total = pr = ps_qr = qs = 0.0
    for a, b, c, d in strata:
        t = a + b + c + d
        p, q, r, s = (a + d) / t, (b + c) / t, a * d / t, b * c / t
        r_total += r
        s_total += s
        pr += p * r
        ps_qr += p * s + q * r
        qs += q * s
    variance = pr / (2 * r_total**2) + ps_qr / (2 * r_total * s_total) + qs / (2 * s_total**2)
    odds = r_total / s_total
    return {
        "odds_ratio": odds,
        "d_dif": -2.35 * math.log(odds),
        "d_dif_se": 2.35 * math.sqrt(variance),
        "chi_square": chi_square,
        "p_value": float(stats.chi2.sf(chi_square, 1)),
        "corrected": corrected,
    }


def table_of(passes: np.ndarray, failures: np.ndarray) -> dif.StratifiedTable:
    """A K x S StratifiedTable from pass and failure count matrices."""
    return dif.StratifiedTable(passes.astype(float), (passes + failures).astype(float))


@st.composite
def stratified_counts(
    draw: st.DrawFn, min_families: int = 2, max_families: int = 6, max_strata: int = 8
) -> tuple[np.ndarray, np.ndarray]:
    k = draw(st.integers(min_families, max_families))
    s = draw(st.integers(1, max_strata))
    high = draw(st.sampled_from([1, 3, 30]))
    counts = st.integers(0, high)
    passes = np.array(draw(st.lists(counts, min_size=k * s, max_size=k * s))).reshape(k, s)
    failures = np.array(draw(st.lists(counts, min_size=k * s, max_size=k * s))).reshape(k, s)
    return passes, failures


# --- generalised CMH --------------------------------------------------------------------------


@given(stratified_counts())
@settings(max_examples=120, deadline=None)
def test_gcmh_matches_reduced_landis_heyman_koch_form(
    counts: tuple[np.ndarray, np.ndarray],
) -> None:
    passes, failures = counts
    result = dif.generalized_cmh(table_of(passes, failures))
    expected = reference_gcmh(passes.astype(float), (passes + failures).astype(float))
    if result.status != dif.STATUS_OK:
        assert result.statistic is None and result.p_value is None and result.reason
        assert expected is None or expected[0] == pytest.approx(0.0, abs=1e-9)
        return
    assert result.statistic is not None and result.p_value is not None
    assert 0.0 <= result.p_value <= 1.0
    assert expected is not None
    statistic, df = expected
    assert result.degrees_of_freedom == df
    assert result.statistic == pytest.approx(statistic, rel=1e-7, abs=1e-9)
    assert result.p_value == pytest.approx(stats.chi2.sf(statistic, df), rel=1e-6, abs=1e-12)


@given(stratified_counts(max_strata=1, max_families=6))
@settings(max_examples=120, deadline=None)
def test_gcmh_of_one_stratum_is_scaled_pearson_chi_square(
    counts: tuple[np.ndarray, np.ndarray],
) -> None:
    passes, failures = counts
    observed = np.column_stack([passes[:, 0], failures[:, 0]])
    observed = observed[observed.sum(axis=1) > 0]
    assume(observed.shape[0] >= 2 and np.all(observed.sum(axis=0) > 0))
    n = observed.sum()
    pearson = stats.chi2_contingency(observed, correction=False)
    result = dif.generalized_cmh(table_of(passes, failures))
    assert result.status == dif.STATUS_OK
    assert result.degrees_of_freedom == observed.shape[0] - 1 == pearson.dof
    assert result.statistic == pytest.approx(pearson.statistic * (n - 1) / n, rel=1e-9, abs=1e-12)


@given(stratified_counts(), st.integers(0, 2**32 - 1))
@settings(max_examples=80, deadline=None)
def test_gcmh_is_invariant_to_order_and_to_swapping_outcomes(
    counts: tuple[np.ndarray, np.ndarray], seed: int
) -> None:
    passes, failures = counts
    base = dif.generalized_cmh(table_of(passes, failures))
    rng = np.random.default_rng(seed)
    rows = rng.permutation(passes.shape[0])
    columns = rng.permutation(passes.shape[1])
    for other in (
        dif.generalized_cmh(table_of(passes[rows][:, columns], failures[rows][:, columns])),
        dif.generalized_cmh(table_of(failures, passes)),
    ):
        assert other.status == base.status
        assert other.degrees_of_freedom == base.degrees_of_freedom
        if base.statistic is not None:
            assert other.statistic == pytest.approx(base.statistic, rel=1e-7, abs=1e-9)


def test_gcmh_degenerate_inputs_are_not_computable_with_reasons() -> None:
    one_family = dif.generalized_cmh(table_of(np.array([[3, 4]]), np.array([[2, 1]])))
    assert one_family.status == dif.STATUS_NOT_COMPUTABLE
    assert "fewer than two families" in (one_family.reason or "")
    all_pass = dif.generalized_cmh(table_of(np.array([[3, 4], [5, 1]]), np.zeros((2, 2), int)))
    assert all_pass.status == dif.STATUS_NOT_COMPUTABLE and all_pass.statistic is None
    assert "both passed and failed" in (all_pass.reason or "")
    # families never in the same band: nothing to compare
    apart = dif.generalized_cmh(table_of(np.array([[3, 0], [0, 4]]), np.array([[2, 0], [0, 1]])))
    assert apart.status == dif.STATUS_NOT_COMPUTABLE
    empty = dif.generalized_cmh(table_of(np.zeros((0, 0), int), np.zeros((0, 0), int)))
    assert empty.status == dif.STATUS_NOT_COMPUTABLE
    singletons = dif.generalized_cmh(
        table_of(np.array([[1, 0], [0, 0]]), np.array([[0, 0], [0, 1]]))
    )
    assert singletons.status == dif.STATUS_NOT_COMPUTABLE  # each band holds a single result


def test_gcmh_drops_a_family_without_shared_bands_from_the_degrees_of_freedom() -> None:
    passes = np.array([[10, 12, 0], [6, 9, 0], [0, 0, 7]])
    failures = np.array([[5, 3, 0], [9, 6, 0], [0, 0, 3]])
    result = dif.generalized_cmh(table_of(passes, failures))
    expected = reference_gcmh(passes[:2].astype(float), (passes + failures)[:2].astype(float))
    assert expected is not None
    assert result.degrees_of_freedom == 1
    assert result.statistic == pytest.approx(expected[0], rel=1e-9)


# --- Mantel-Haenszel DIF ----------------------------------------------------------------------


@given(stratified_counts(), st.sampled_from([0.01, 0.05, 0.1]))
@settings(max_examples=120, deadline=None)
def test_mh_dif_matches_explicit_loops_for_every_focal_family(
    counts: tuple[np.ndarray, np.ndarray], alpha: float
) -> None:
    passes, failures = counts
    result = dif.mantel_haenszel_dif(table_of(passes, failures), alpha, purify=False)
    for k in range(passes.shape[0]):
        others = np.arange(passes.shape[0]) != k
        reference_pass = passes[others].sum(axis=0).astype(float).tolist()
        reference_fail = failures[others].sum(axis=0).astype(float).tolist()
        informative = [
            (a + b) > 0 and (c + d) > 0 and (a + c) > 0 and (b + d) > 0
            for a, b, c, d in zip(
                reference_pass, reference_fail, passes[k], failures[k], strict=True
            )
        ]
        assert result.informative_strata[k] == sum(informative)
        if not any(informative):
            assert result.status[k] == dif.STATUS_NOT_COMPUTABLE and result.reason[k]
            assert np.isnan(result.d_dif[k]) and result.ets_class[k] is None
            continue
        expected = reference_mh(
            reference_pass, reference_fail, passes[k].tolist(), failures[k].tolist()
        )
        assert expected is not None
        assert result.status[k] == dif.STATUS_OK
        assert bool(result.is_continuity_corrected[k]) == expected["corrected"]
        for name, actual in (
            ("odds_ratio", result.common_odds_ratio[k]),
            ("d_dif", result.d_dif[k]),
            ("d_dif_se", result.d_dif_se[k]),
            ("chi_square", result.chi_square[k]),
            ("p_value", result.p_value[k]),
        ):
            assert actual == pytest.approx(expected[name], rel=1e-8, abs=1e-12), name
        half_width = stats.norm.ppf(1 - alpha / 2) * result.d_dif_se[k]
        assert result.d_dif_ci_low[k] == pytest.approx(result.d_dif[k] - half_width, rel=1e-9)
        assert result.direction[k] == (
            "disadvantage"
            if result.d_dif[k] < 0
            else "advantage"
            if result.d_dif[k] > 0
            else "none"
        )


@given(st.lists(st.integers(1, 60), min_size=4, max_size=4))
@settings(max_examples=120, deadline=None)
def test_mh_on_one_stratum_equals_scipy_sample_odds_ratio_woolf_and_yates(cells: list[int]) -> None:
    a, b, c, d = cells  # reference pass/fail, focal pass/fail
    result = dif.mantel_haenszel_dif(table_of(np.array([[a], [c]]), np.array([[b], [d]])), 0.05)
    focal = 1
    sample = odds_ratio(np.array([[a, b], [c, d]]), kind="sample")
    assert result.common_odds_ratio[focal] == pytest.approx(sample.statistic, rel=RTOL)
    woolf_se = math.sqrt(1 / a + 1 / b + 1 / c + 1 / d)
    assert result.d_dif_se[focal] == pytest.approx(2.35 * woolf_se, rel=1e-9)
    low, high = sample.confidence_interval(0.95)
    assert math.exp(-result.d_dif_ci_high[focal] / 2.35) == pytest.approx(low, rel=1e-7)
    assert math.exp(-result.d_dif_ci_low[focal] / 2.35) == pytest.approx(high, rel=1e-7)
    n = a + b + c + d
    yates = stats.chi2_contingency(np.array([[a, b], [c, d]]), correction=True).statistic
    assert result.chi_square[focal] == pytest.approx(yates * (n - 1) / n, rel=1e-9, abs=1e-12)
    # the reference's view is the mirror image
    assert result.d_dif[0] == pytest.approx(-result.d_dif[focal], rel=1e-9, abs=1e-12)


def test_mantel_haenszel_reproduces_r_documented_ucb_admissions() -> None:
    # R: mantelhaen.test(UCBAdmissions) -> X-squared = 1.4269, p = 0.2323, common odds ratio
    # 0.9046968, 95% CI 0.7719074 .. 1.0603298; correct = FALSE -> 1.5246, p = 0.2169.
    departments = [
        (512, 313, 89, 19),
        (353, 207, 17, 8),
        (120, 205, 202, 391),
        (138, 279, 131, 244),
        (53, 138, 94, 299),
        (22, 351, 24, 317),
    ]  # male admitted, male rejected, female admitted, female rejected
    passes = np.array([[m, f] for m, _, f, _ in departments]).T
    failures = np.array([[m, f] for _, m, _, f in departments]).T
    table = table_of(passes, failures)
    result = dif.mantel_haenszel_dif(table, 0.05)
    female = 1
    assert result.common_odds_ratio[female] == pytest.approx(0.9046968, abs=5e-8)
    assert result.chi_square[female] == pytest.approx(1.4269, abs=5e-5)
    assert result.p_value[female] == pytest.approx(0.2323, abs=5e-5)
    low = math.exp(-result.d_dif_ci_high[female] / 2.35)
    high = math.exp(-result.d_dif_ci_low[female] / 2.35)
    assert (low, high) == (pytest.approx(0.7719074, abs=5e-8), pytest.approx(1.0603298, abs=5e-8))
    association = dif.generalized_cmh(table)
    assert association.statistic == pytest.approx(1.5246, abs=5e-5)
    assert association.p_value == pytest.approx(0.2169, abs=5e-5)


def test_mantel_haenszel_reproduces_r_documented_penicillin_rabbits() -> None:
    # R: mantelhaen.test(Rabbits) (Agresti 1990) -> X-squared = 3.9286, p = 0.04747,
    # 95% CI 1.026713 .. 47.725133, common odds ratio 7.
    cured_immediate = [0, 3, 6, 5, 2]
    died_immediate = [6, 3, 0, 1, 0]
    cured_delayed = [0, 0, 2, 6, 5]
    died_delayed = [5, 6, 4, 0, 0]
    passes = np.array([cured_immediate, cured_delayed])
    failures = np.array([died_immediate, died_delayed])
    result = dif.mantel_haenszel_dif(table_of(passes, failures), 0.05)
    delayed = 1
    assert result.common_odds_ratio[delayed] == pytest.approx(7.0, rel=1e-12)
    assert result.chi_square[delayed] == pytest.approx(3.9286, abs=5e-5)
    assert result.p_value[delayed] == pytest.approx(0.04747, abs=5e-6)
    low = math.exp(-result.d_dif_ci_high[delayed] / 2.35)
    high = math.exp(-result.d_dif_ci_low[delayed] / 2.35)
    assert (low, high) == (pytest.approx(1.026713, abs=5e-7), pytest.approx(47.725133, abs=5e-6))


def test_a_family_that_never_passes_gets_a_corrected_finite_large_negative_d_dif() -> None:
    passes = np.array([[20, 30, 40], [0, 0, 0]])
    failures = np.array([[20, 10, 5], [15, 15, 15]])
    result = dif.mantel_haenszel_dif(table_of(passes, failures), 0.05)
    assert result.is_continuity_corrected[1]
    assert np.isfinite(result.d_dif[1]) and result.d_dif[1] < -1.5
    assert result.ets_class[1] == "C" and result.direction[1] == "disadvantage"
    assert "Haldane" in result.reason[1]


def reference_purified_dif(
    passes: np.ndarray, failures: np.ndarray, alpha: float
) -> list[dict[str, float | bool] | None]:
    """Per family, reference_mh against the other families minus the excluded ones; the
    C family with the largest |D-DIF| outside the excluded set joins it, by loops, until
    there is none."""
    k = passes.shape[0]
    excluded: set[int] = set()
    while True:
        results: list[dict[str, float | bool] | None] = []
        for focal in range(k):
            others = [j for j in range(k) if j != focal and j not in excluded]
            if not any((passes[j] + failures[j]).sum() > 0 for j in others):
                others = [j for j in range(k) if j != focal]
            results.append(
                reference_mh(
                    passes[others].sum(axis=0).astype(float).tolist(),
                    failures[others].sum(axis=0).astype(float).tolist(),
                    passes[focal].astype(float).tolist(),
                    failures[focal].astype(float).tolist(),
                )
                if others
                else None
            )
        candidates = [
            (abs(float(r["d_dif"])), j)
            for j, r in enumerate(results)
            if r is not None
            and j not in excluded
            and reference_ets(
                float(r["d_dif"]), float(r["d_dif_se"]), float(r["p_value"]), alpha, 1.0, 1.5
            )
            == "C"
        ]
        if not candidates:
            return results
        excluded.add(max(candidates, key=lambda item: (item[0], -item[1]))[1])


@given(stratified_counts(max_families=5), st.sampled_from([0.05, 0.2]))
@settings(max_examples=120, deadline=None)
def test_purified_dif_matches_an_iterated_loop_computation(
    counts: tuple[np.ndarray, np.ndarray], alpha: float
) -> None:
    passes, failures = counts
    result = dif.mantel_haenszel_dif(table_of(passes, failures), alpha)
    for k, expected in enumerate(reference_purified_dif(passes, failures, alpha)):
        if expected is None:
            assert np.isnan(result.d_dif[k])
            continue
        assert result.d_dif[k] == pytest.approx(expected["d_dif"], rel=1e-8, abs=1e-12)
        assert result.d_dif_se[k] == pytest.approx(expected["d_dif_se"], rel=1e-8)


def test_purification_removes_the_mirror_image_of_one_large_dif() -> None:
    # per band: two fair families pass half the time, one family a tenth of the time
    passes = np.array([[100, 100, 100], [100, 100, 100], [20, 20, 20]])
    failures = np.array([[100, 100, 100], [100, 100, 100], [180, 180, 180]])
    pooled = dif.mantel_haenszel_dif(table_of(passes, failures), 0.05, purify=False)
    assert pooled.ets_class.tolist() == ["C", "C", "C"]  # the fair ones look advantaged
    assert pooled.d_dif[0] == pytest.approx(-2.35 * math.log(120 * 100 / (280 * 100)))
    purified = dif.mantel_haenszel_dif(table_of(passes, failures), 0.05)
    assert purified.ets_class.tolist() == ["A", "A", "C"]
    assert purified.d_dif[0] == pytest.approx(0.0, abs=1e-12)
    assert purified.is_excluded_from_reference.tolist() == [False, False, True]
    assert purified.reference_results.tolist() == [600, 600, 1200]
    assert purified.direction[2] == "disadvantage"


# --- ETS classification -----------------------------------------------------------------------


def reference_ets(d: float, se: float, p: float, alpha: float, low: float, high: float) -> str:
    """ETS rule with the interval-null p written as two normal tails (Paek & Holland 2015)."""
    beyond = stats.norm.cdf((low - abs(d)) / se) + stats.norm.cdf((-low - abs(d)) / se)
    if abs(d) < low or p >= alpha:
        return "A"
    if abs(d) >= high and beyond < alpha:
        return "C"
    return "B"


@given(
    st.floats(-8, 8, allow_nan=False),
    st.floats(0.05, 3, allow_nan=False),
    st.floats(0, 1, allow_nan=False),
    st.sampled_from([0.01, 0.05]),
)
@settings(max_examples=300, deadline=None)
def test_ets_classification_matches_the_published_rule(
    d: float, se: float, p: float, alpha: float
) -> None:
    beyond = dif.p_value_beyond_negligible(np.array([d]), np.array([se]), 1.0)[0]
    if (1.0 / se) ** 2 < 100:  # scipy's ncx2 overflows for large noncentrality
        noncentral = stats.ncx2.sf((d / se) ** 2, 1, (1.0 / se) ** 2)
        assert beyond == pytest.approx(noncentral, rel=1e-6, abs=1e-12)
    got = dif.ets_classification(np.array([d]), np.array([p]), np.array([beyond]), alpha)[0]
    assert got == reference_ets(d, se, p, alpha, 1.0, 1.5)


def test_ets_classification_boundaries_and_missing_values() -> None:
    classes = dif.ets_classification(
        np.array([0.99, -1.2, 1.6, -2.0, 1.6, np.nan]),
        np.array([0.0, 0.001, 0.001, 0.2, 0.001, 0.001]),
        np.array([0.0, 0.001, 0.2, 0.0, 0.001, 0.001]),
        0.05,
    )
    assert classes.tolist() == ["A", "B", "B", "A", "C", None]


# --- arrow adapter and registration -----------------------------------------------------------


def test_udf_row_equals_pure_functions_and_null_rows_stay_null() -> None:
    families = pa.chunked_array(
        [[["b", "a", "a", "b", "c", "c"], None, ["x"]]], type=pa.list_(pa.string())
    )
    bands = pa.chunked_array([[[0, 0, 1, 1, 0, 1], [1], [0]]], type=pa.list_(pa.int64()))
    passes = pa.chunked_array([[[5, 7, 8, 3, 4, 9], [1], [3]]], type=pa.list_(pa.int64()))
    failures = pa.chunked_array([[[6, 2, 3, 9, 5, 1], [1], [2]]], type=pa.list_(pa.int64()))
    constants = [pa.chunked_array([[v, v, v]], type=pa.float64()) for v in (0.05, 1.0, 1.5)]
    rows = dif.dif_by_test_case(families, bands, passes, failures, *constants).to_pylist()
    assert rows[1] is None
    assert rows[2]["status"] == dif.STATUS_NOT_COMPUTABLE and rows[2]["gcmh_statistic"] is None
    table = table_of(np.array([[7, 8], [5, 3], [4, 9]]), np.array([[2, 3], [6, 9], [5, 1]]))
    association = dif.generalized_cmh(table)
    by_family = dif.mantel_haenszel_dif(table, 0.05)
    assert rows[0]["gcmh_statistic"] == pytest.approx(association.statistic, rel=RTOL)
    assert rows[0]["gcmh_df"] == 2
    assert [f["model_family"] for f in rows[0]["families"]] == ["a", "b", "c"]
    for k, family in enumerate(rows[0]["families"]):
        assert family["d_dif"] == pytest.approx(by_family.d_dif[k], rel=RTOL)
        assert family["ets_class"] == by_family.ets_class[k]


def test_udf_is_registered_and_callable_from_sql() -> None:
    assert "cf_test_case_dif" in {spec.name for spec in all_udfs()}
    connection = duckdb.connect()
    register_udfs(connection)
    row = connection.sql(
        "select cf_test_case_dif(['a', 'a', 'b', 'b'], [0, 1, 0, 1], [10, 20, 2, 5],"
        " [10, 5, 18, 20], 0.05, 1.0, 1.5) as r"
    ).fetchall()[0][0]
    assert row["status"] == "ok" and row["gcmh_df"] == 1
    families = {f["model_family"]: f for f in row["families"]}
    assert families["b"]["direction"] == "disadvantage" and families["b"]["ets_class"] == "C"
    assert families["a"]["d_dif"] == pytest.approx(-families["b"]["d_dif"], rel=1e-9)
