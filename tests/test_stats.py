"""Tier 1: the pure statistics against scipy/numpy on random and degenerate input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from challenge_fairness import stats
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats as scipy_stats

RTOL = 1e-9

integer_scores = st.integers(min_value=0, max_value=100).map(float)
float_scores = st.floats(min_value=0, max_value=100, allow_nan=False, allow_subnormal=False)


def compress(samples: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(group code, distinct value, count) triples, as SQL hands them to the UDF."""
    codes, values, counts = [], [], []
    for code, sample in enumerate(samples):
        distinct, count = np.unique(sample, return_counts=True)
        codes.append(np.full(distinct.size, code))
        values.append(distinct)
        counts.append(count)
    return np.concatenate(codes), np.concatenate(values), np.concatenate(counts)


@st.composite
def grouped_samples(draw: st.DrawFn, min_groups: int = 2) -> list[np.ndarray]:
    element = draw(st.sampled_from([integer_scores, float_scores]))
    n_groups = draw(st.integers(min_value=min_groups, max_value=6))
    return [
        draw(hnp.arrays(np.float64, st.integers(min_value=1, max_value=40), elements=element))
        for _ in range(n_groups)
    ]


@given(grouped_samples())
@settings(max_examples=300, deadline=None)
def test_kruskal_wallis_matches_scipy(samples: list[np.ndarray]) -> None:
    result = stats.kruskal_wallis(*compress(samples))
    pooled = np.concatenate(samples)
    if np.all(pooled == pooled[0]):
        assert result.status == stats.STATUS_NOT_COMPUTABLE
        assert result.h_statistic is None and result.p_value is None
        return
    expected = scipy_stats.kruskal(*samples)
    assert result.status == stats.STATUS_OK
    if -1e-9 < expected.statistic < 0:  # scipy's rounding below an exact H = 0 (p NaN)
        assert (result.h_statistic, result.p_value) == (0.0, 1.0)
        return
    assert result.groups == len(samples)
    assert result.observations == pooled.size
    assert result.h_statistic == pytest.approx(expected.statistic, rel=RTOL, abs=1e-12)
    assert result.p_value == pytest.approx(expected.pvalue, rel=RTOL, abs=1e-300)


@given(
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=3),
            st.integers(min_value=0, max_value=100).map(float),
            st.integers(min_value=1, max_value=200_000),
        ),
        min_size=2,
        max_size=30,
    )
)
@settings(max_examples=40, deadline=None)
def test_kruskal_wallis_from_large_counts_matches_scipy_on_the_expanded_sample(
    triples: list[tuple[int, float, int]],
) -> None:
    # A platform's challenge: few distinct scores, hundreds of thousands of attempts, so the
    # rank sums reach 1e11 and the tie term 1e16: still scipy's H on the expanded sample.
    codes, values, counts = (np.array(column) for column in zip(*triples, strict=True))
    samples = [np.repeat(values[codes == g], counts[codes == g]) for g in np.unique(codes)]
    result = stats.kruskal_wallis(codes, values, counts)
    pooled = np.concatenate(samples)
    if len(samples) < 2 or np.all(pooled == pooled[0]):
        assert result.status == stats.STATUS_NOT_COMPUTABLE
        return
    expected = scipy_stats.kruskal(*samples)
    assert result.observations == pooled.size
    assert result.h_statistic == pytest.approx(expected.statistic, rel=1e-7, abs=1e-6)
    assert result.p_value == pytest.approx(expected.pvalue, rel=1e-6, abs=1e-12)


def test_kruskal_wallis_textbook_value() -> None:
    # Hollander & Wolfe's example as used by scipy's docs: H = 0.7714, p = 0.6800.
    x = np.array([2.9, 3.0, 2.5, 2.6, 3.2])
    y = np.array([3.8, 2.7, 4.0, 2.4])
    z = np.array([2.8, 3.4, 3.7, 2.2, 2.0])
    result = stats.kruskal_wallis(*compress([x, y, z]))
    assert result.h_statistic == pytest.approx(0.7714285714285722, rel=1e-12)
    assert result.p_value == pytest.approx(0.6799647735788936, rel=1e-12)


def test_kruskal_wallis_ignores_zero_counts_and_order() -> None:
    codes = np.array([1, 0, 1, 0, 2])
    values = np.array([3.0, 1.0, 4.0, 2.0, 9.0])
    counts = np.array([2, 3, 1, 1, 0])
    result = stats.kruskal_wallis(codes, values, counts)
    expected = scipy_stats.kruskal([1, 1, 1, 2], [3, 3, 4])
    assert result.groups == 2
    assert result.h_statistic == pytest.approx(expected.statistic, rel=RTOL)


@pytest.mark.parametrize(
    ("codes", "values", "counts", "reason"),
    [
        ([], [], [], "fewer than two families"),
        ([0, 0], [1.0, 2.0], [3, 4], "fewer than two families"),
        ([0, 1], [5.0, 5.0], [3, 4], "identical"),
        ([0, 1], [1.0, 5.0], [0, 4], "fewer than two families"),
        ([0, 1], [np.nan, 5.0], [1, 4], "NaN"),
        ([0, 1], [1.0, 5.0], [-1, 4], "negative"),
    ],
)
def test_kruskal_wallis_degenerate_is_null_with_reason(
    codes: list[int], values: list[float], counts: list[int], reason: str
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # must not even warn
        result = stats.kruskal_wallis(np.array(codes), np.array(values), np.array(counts))
    assert result.status == stats.STATUS_NOT_COMPUTABLE
    assert result.h_statistic is None and result.p_value is None
    assert reason in result.reason


def test_kruskal_wallis_identical_groups_give_h_zero_and_p_one() -> None:
    sample = np.array([1.0] + [0.0] * 32)
    result = stats.kruskal_wallis(*compress([sample, sample]))
    assert (result.h_statistic, result.p_value, result.status) == (0.0, 1.0, "ok")


def test_kruskal_wallis_group_of_one_is_computed_like_scipy() -> None:
    samples = [np.array([7.0]), np.array([1.0, 2.0, 3.0])]
    result = stats.kruskal_wallis(*compress(samples))
    assert result.h_statistic == pytest.approx(scipy_stats.kruskal(*samples).statistic, rel=RTOL)


def straightforward_cohens_d(a: np.ndarray, b: np.ndarray) -> float:
    pooled = np.sqrt(
        ((a.size - 1) * np.var(a, ddof=1) + (b.size - 1) * np.var(b, ddof=1))
        / (a.size + b.size - 2)
    )
    return float((np.mean(a) - np.mean(b)) / pooled)


def moments(sample: np.ndarray) -> tuple[int, float, float]:
    """n, mean and ddof=1 variance the way SQL computes them: two-pass over counts."""
    distinct, counts = np.unique(sample, return_counts=True)
    n = int(counts.sum())
    mean = float((distinct * counts).sum() / n)
    variance = float((counts * (distinct - mean) ** 2).sum() / (n - 1)) if n > 1 else np.nan
    return n, mean, variance


@given(
    st.lists(
        st.tuples(
            hnp.arrays(np.float64, st.integers(2, 60), elements=integer_scores),
            hnp.arrays(np.float64, st.integers(2, 60), elements=float_scores),
        ),
        min_size=1,
        max_size=8,
    )
)
@example(  # as CI found: a constant group's mean an ulp off its value leaves an SD of 4e-15
    pairs=[(np.zeros(2), np.zeros(2)), (np.zeros(2), np.full(15, 30.03))]
)
@settings(max_examples=200, deadline=None)
def test_cohens_d_matches_numpy_vectorised(pairs: list[tuple[np.ndarray, np.ndarray]]) -> None:
    columns = np.array([[*moments(a), *moments(b)] for a, b in pairs]).T
    result = stats.cohens_d(*columns)
    for row, (a, b) in enumerate(pairs):
        pooled_var = ((a.size - 1) * np.var(a, ddof=1) + (b.size - 1) * np.var(b, ddof=1)) / (
            a.size + b.size - 2
        )
        if pooled_var == 0 or (np.ptp(a) == 0 and np.ptp(b) == 0):
            # constant groups: numpy's var may leave rounding dust (1e-33) where it is 0
            assert np.isnan(result.cohens_d[row])
            assert result.status[row] == stats.STATUS_NOT_COMPUTABLE
            continue
        expected = straightforward_cohens_d(a, b)
        assert result.status[row] == stats.STATUS_OK
        # Relative to the scale of the means: d near 0 is a difference of nearly equal means.
        scale = max(abs(expected), (abs(np.mean(a)) + abs(np.mean(b))) / np.sqrt(pooled_var))
        assert abs(result.cohens_d[row] - expected) <= RTOL * scale
        assert result.pooled_sd[row] == pytest.approx(np.sqrt(pooled_var), rel=RTOL)


def test_cohens_d_textbook_value() -> None:
    a = np.array([2.0, 4.0, 6.0, 8.0])  # mean 5, var 20/3
    b = np.array([1.0, 2.0, 3.0, 4.0, 5.0])  # mean 3, var 2.5
    pooled = np.sqrt((3 * 20 / 3 + 4 * 2.5) / 7)
    result = stats.cohens_d(*moments(a), *moments(b))
    assert result.cohens_d[()] == pytest.approx(2 / pooled, rel=1e-12)


@pytest.mark.parametrize(
    ("row", "reason"),
    [
        ((1, 5.0, np.nan, 10, 4.0, 2.0), "fewer than two"),
        ((10, 5.0, 2.0, 1, 4.0, np.nan), "fewer than two"),
        ((0, np.nan, np.nan, 10, 4.0, 2.0), "fewer than two"),
        ((5, 3.0, 0.0, 5, 4.0, 0.0), "pooled standard deviation is zero"),
        ((5, 3.0, 0.0, 5, 3.0, 0.0), "pooled standard deviation is zero"),
        ((5, np.inf, 1.0, 5, 3.0, 1.0), "not finite"),
        ((5, 3.0, -1.0, 5, 3.0, 1.0), "negative"),
    ],
)
def test_cohens_d_degenerate_is_null_with_reason(row: tuple[float, ...], reason: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = stats.cohens_d(*[np.array([value]) for value in row])
    assert np.isnan(result.cohens_d[0])
    assert result.status[0] == stats.STATUS_NOT_COMPUTABLE
    assert reason in result.reason[0]
