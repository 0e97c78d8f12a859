"""Tier 1 for the verdict's statistics: against scipy, or an independent computation."""

from __future__ import annotations

import itertools
import math
import random
import warnings

import numpy as np
import pyarrow as pa
import pytest
from challenge_fairness import stats
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats as scipy_stats
from test_stats import compress, grouped_samples, integer_scores

RTOL = 1e-9

samples_strategy = hnp.arrays(
    np.float64,
    st.integers(2, 80),
    elements=st.sampled_from([0.0, 1.0, 3.0, 50.0, 51.0, 99.5, 100.0]),
) | hnp.arrays(np.float64, st.integers(2, 80), elements=integer_scores)


def cell(sample: np.ndarray, trim: float = 0.2) -> stats.TrimmedCell:
    values, counts = np.unique(sample, return_counts=True)
    return stats.trimmed_cell(values, counts, trim)


@given(samples_strategy, samples_strategy, st.sampled_from([0.0, 0.1, 0.2, 0.25]))
@settings(max_examples=300, deadline=None)
def test_trimmed_cells_reproduce_scipy_yuen_t_test(
    a: np.ndarray, b: np.ndarray, trim: float
) -> None:
    cell_a, cell_b = cell(a, trim), cell(b, trim)
    assert cell_a.trimmed_mean == pytest.approx(scipy_stats.trim_mean(a, trim), rel=RTOL)
    assume(cell_a.status == "ok" and cell_b.status == "ok")
    variance = cell_a.trimmed_mean_variance + cell_b.trimmed_mean_variance
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = scipy_stats.ttest_ind(a, b, trim=trim, equal_var=False)
    if variance == 0:
        assert not np.isfinite(expected.statistic) or np.isnan(expected.statistic)
        return
    t = (cell_a.trimmed_mean - cell_b.trimmed_mean) / math.sqrt(variance)
    df = variance**2 / (
        cell_a.trimmed_mean_variance**2 / (cell_a.effective_n - 1)
        + cell_b.trimmed_mean_variance**2 / (cell_b.effective_n - 1)
    )
    assert t == pytest.approx(expected.statistic, rel=1e-7, abs=1e-9)
    assert df == pytest.approx(expected.df, rel=1e-7)


@given(
    st.lists(
        st.tuples(
            hnp.arrays(np.float64, st.integers(0, 60), elements=integer_scores),
            st.sampled_from([0.0, 0.1, 0.2, 0.25, 0.49]),
        ),
        min_size=1,
        max_size=12,
    ),
    st.randoms(use_true_random=False),
)
@settings(max_examples=200, deadline=None)
def test_trimmed_cells_equal_scipy_cell_by_cell(
    samples: list[tuple[np.ndarray, float]], shuffler: random.Random
) -> None:
    """Many compressed cells at once (values in any order, zero counts mixed in) give
    scipy's trimmed mean and winsorized sum of squares of each expanded sample."""
    values, counts, offsets, trims = [], [], [0], []
    for sample, trim in samples:
        distinct, times = np.unique(sample, return_counts=True)
        pairs = [*zip(distinct.tolist(), times.tolist(), strict=True), (-1.0, 0)]
        shuffler.shuffle(pairs)
        values += [value for value, _ in pairs]
        counts += [count for _, count in pairs]
        offsets.append(len(values))
        trims.append(trim)
    cells = stats.trimmed_cells(
        np.array(values), np.array(counts), np.array(offsets), np.array(trims)
    )
    for i, (sample, trim) in enumerate(samples):
        n, g = sample.size, int(trim * sample.size)
        h = n - 2 * g
        assert cells.observations[i] == n
        if n == 0:
            assert cells.status[i] == "not_computable" and np.isnan(cells.trimmed_mean[i])
            assert not cells.trims_ties[i]
            continue
        assert cells.effective_n[i] == h
        ordered = np.sort(sample)
        low, high = ordered[g], ordered[n - g - 1]
        assert cells.trims_ties[i] == (
            g >= 1
            and ordered[0] < ordered[-1]
            and ((ordered[0] == low and ordered[-1] == high) or low == high)
        )
        assert cells.trimmed_mean[i] == pytest.approx(
            scipy_stats.trim_mean(sample, trim), rel=RTOL, abs=1e-12
        )
        if h < 2:
            assert cells.status[i] == "not_computable" and np.isnan(cells.trimmed_mean_variance[i])
            continue
        winsorized = np.asarray(scipy_stats.mstats.winsorize(np.sort(sample), limits=(trim, trim)))
        expected = np.sum((winsorized - winsorized.mean()) ** 2) / (h * (h - 1))
        assert cells.status[i] == "ok"
        assert cells.trimmed_mean_variance[i] == pytest.approx(expected, rel=RTOL, abs=1e-12)


def test_trimmed_cells_flag_non_finite_scores_per_cell() -> None:
    cells = stats.trimmed_cells(
        np.array([1.0, np.nan, 2.0, 3.0, 4.0, 5.0]),
        np.array([2, 1, 1, 3, 1, 1]),
        np.array([0, 3, 6]),
        np.array([0.2, 0.2]),
    )
    assert list(cells.status) == ["not_computable", "ok"]
    assert "NaN" in cells.reason[0] and np.isnan(cells.trimmed_mean[0])
    assert not cells.trims_ties.any()
    assert cells.trimmed_mean[1] == pytest.approx(scipy_stats.trim_mean([3, 3, 3, 4, 5], 0.2))


@pytest.mark.parametrize(
    ("sample", "status", "reason"),
    [
        (np.array([]), "not_computable", "no scored attempts"),
        (np.array([5.0]), "not_computable", "fewer than two"),
        (np.array([1.0, 2.0, np.nan]), "not_computable", "NaN"),
        (np.array([7.0, 7.0, 7.0, 7.0]), "ok", None),
        # a mean from counts an ulp off the value (30.03 * 15 / 15) still has no spread
        (np.full(15, 30.03), "ok", None),
        (np.array([30.03] * 14 + [99.0]), "ok", None),  # winsorized to one value
    ],
)
def test_trimmed_cell_degenerate(sample: np.ndarray, status: str, reason: str | None) -> None:
    values, counts = np.unique(sample, return_counts=True) if sample.size else (sample, sample)
    result = stats.trimmed_cell(values, counts.astype(int), 0.2)
    assert result.status == status
    if reason:
        assert reason in result.reason
    else:
        assert result.trimmed_mean_variance == 0


@pytest.mark.parametrize(
    ("sample", "trims_ties"),
    [
        # pass/fail: 27 of 144 failed, so the values kept (positions 28 to 115) are all
        # 100: trimmed mean 100 with variance 0 while the scores vary
        (np.array([0.0] * 27 + [100.0] * 117), True),
        (np.array([0.0] * 30 + [100.0] * 30), True),  # both tails ties of the kept values
        (np.array([0.0] * 2 + [100.0] * 3), True),  # g = 1: both tails tied
        (np.array([0.0, 5.0, 6.0, 7.0, 100.0]), False),  # g = 1: outliers, not ties
        (np.arange(100, dtype=np.float64), False),  # no ties at all
        (np.full(20, 100.0), False),  # constant: the same trimmed or not
        # one tied tail beside varied scores is trimmed: 11 of 51 at the ceiling (g = 10)
        (np.array([0.0, 1.0, 2.0, *range(10, 47), *[100.0] * 11]), False),
        # ... but a floor and a ceiling of a fifth each are both ties
        (np.array([*[0.0] * 11, *range(10, 39), *[100.0] * 11]), True),
        (np.array([*[0.0] * 10, *range(10, 40), *[100.0] * 11]), False),
    ],
)
def test_trimmed_cell_says_when_the_scores_are_too_discrete_to_trim(
    sample: np.ndarray, trims_ties: bool
) -> None:
    result = cell(sample)
    assert result.trims_ties == trims_ties
    if sample.size == 144:
        assert result.trimmed_mean == 100 and result.trimmed_mean_variance == 0
        assert sample.var() > 0


def test_trimmed_cell_rejects_an_impossible_trim() -> None:
    with pytest.raises(ValueError):
        stats.trimmed_cell(np.array([1.0]), np.array([1]), 0.5)


@given(
    st.lists(
        st.tuples(st.floats(-50, 50), st.floats(0.01, 20), st.floats(1.5, 5000), st.integers(1, 8)),
        min_size=1,
        max_size=20,
    ),
    st.sampled_from([0.01, 0.05, 0.1]),
)
@settings(max_examples=200, deadline=None)
def test_contrast_test_matches_scipy_t(
    rows: list[tuple[float, float, float, int]], alpha: float
) -> None:
    estimate, se, df, k = (np.array(column) for column in zip(*rows, strict=True))
    result = stats.contrast_test(estimate, se, df, alpha, k)
    for i in range(len(rows)):
        t = estimate[i] / se[i]
        p = 2 * scipy_stats.t.sf(abs(t), df[i])
        assert result.t_statistic[i] == pytest.approx(t, rel=RTOL)
        assert result.p_value[i] == pytest.approx(p, rel=RTOL, abs=1e-300)
        assert result.p_value_sidak[i] == pytest.approx(1 - (1 - p) ** k[i], rel=1e-6, abs=1e-12)
        low, high = scipy_stats.t.interval(1 - alpha, df[i], loc=estimate[i], scale=se[i])
        assert result.ci_low[i] == pytest.approx(low, rel=RTOL, abs=1e-12)
        assert result.ci_high[i] == pytest.approx(high, rel=RTOL, abs=1e-12)


def test_contrast_test_degenerate_rows_are_nan() -> None:
    result = stats.contrast_test(
        [1.0, 1.0, np.nan, 1.0, 1.0],
        [0.0, 1.0, 1.0, np.nan, 1.0],
        [5, 0, 5, 5, 5],
        0.05,
        [2, 2, 2, 2, 0],
    )
    for field in ("t_statistic", "p_value", "p_value_sidak", "ci_low", "ci_high"):
        assert np.isnan(getattr(result, field)).all()


@given(st.lists(st.floats(0, 1) | st.none(), min_size=0, max_size=60))
@settings(max_examples=200, deadline=None)
def test_benjamini_hochberg_matches_scipy_ignoring_missing(p: list[float | None]) -> None:
    values = np.array([np.nan if x is None else x for x in p], dtype=float)
    q = stats.benjamini_hochberg(values)
    present = ~np.isnan(values)
    assert np.isnan(q[~present]).all()
    if present.any():
        expected = scipy_stats.false_discovery_control(values[present], method="bh")
        np.testing.assert_allclose(q[present], expected, rtol=RTOL)


def holm_by_definition(p: np.ndarray) -> np.ndarray:
    """Holm's step-down, written from its definition."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[index]))
        adjusted[index] = running
    return np.array(adjusted)


@given(hnp.arrays(np.float64, st.integers(1, 30), elements=st.floats(0, 1)))
def test_holm_matches_its_definition(p: np.ndarray) -> None:
    np.testing.assert_allclose(stats.holm(p), holm_by_definition(p), rtol=1e-12)


def dunn_by_hand(samples: list[np.ndarray]) -> dict[tuple[int, int], tuple[float, float]]:
    """Dunn (1964) from its formula with scipy ranks: {(a, b): (z, p)}."""
    pooled = np.concatenate(samples)
    ranks = scipy_stats.rankdata(pooled)
    n = pooled.size
    ties = np.unique(pooled, return_counts=True)[1]
    sigma2 = n * (n + 1) / 12 - (ties**3 - ties).sum() / (12 * (n - 1))
    bounds = np.cumsum([0] + [s.size for s in samples])
    mean_ranks = [ranks[bounds[i] : bounds[i + 1]].mean() for i in range(len(samples))]
    out = {}
    for a, b in itertools.combinations(range(len(samples)), 2):
        z = (mean_ranks[a] - mean_ranks[b]) / math.sqrt(
            sigma2 * (1 / samples[a].size + 1 / samples[b].size)
        )
        out[(a, b)] = (z, 2 * scipy_stats.norm.sf(abs(z)))
    return out


@given(grouped_samples())
@settings(max_examples=200, deadline=None)
def test_dunn_matches_its_formula_with_holm_within_the_challenge(samples: list[np.ndarray]) -> None:
    pooled = np.concatenate(samples)
    pairs = stats.dunn(*compress(samples))
    if np.all(pooled == pooled[0]):
        assert pairs == []
        return
    expected = dunn_by_hand(samples)
    assert {(p.group_a, p.group_b) for p in pairs} == set(expected)
    holm_expected = holm_by_definition(
        np.array([expected[(p.group_a, p.group_b)][1] for p in pairs])
    )
    for pair, want_holm in zip(pairs, holm_expected, strict=True):
        z, p = expected[(pair.group_a, pair.group_b)]
        assert pair.z_statistic == pytest.approx(z, rel=RTOL, abs=1e-12)
        assert pair.p_value == pytest.approx(p, rel=RTOL, abs=1e-300)
        assert pair.p_value_holm == pytest.approx(want_holm, rel=RTOL, abs=1e-300)


@given(
    st.lists(
        st.tuples(
            st.integers(0, 4),
            st.sampled_from([0.0, 12.5, 50.0, 99.0, 100.0]),
            st.integers(0, 200_000),
        ),
        min_size=2,
        max_size=25,
    )
)
@settings(max_examples=100, deadline=None)
def test_dunn_on_platform_scale_counts_matches_the_expanded_sample(
    cells: list[tuple[int, float, int]],
) -> None:
    """Large tied counts, zero counts and repeated (group, value) cells, as SQL can hand them."""
    codes = np.array([c for c, _, _ in cells])
    values = np.array([v for _, v, _ in cells])
    counts = np.array([n for _, _, n in cells])
    samples = [
        np.repeat(values[codes == g], counts[codes == g]) for g in np.unique(codes[counts > 0])
    ]
    pooled = np.concatenate(samples) if samples else np.array([])
    pairs = stats.dunn(codes, values, counts)
    if len(samples) < 2 or np.all(pooled == pooled[0]):
        assert pairs == []
        return
    expected = dunn_by_hand(samples)
    assert len(pairs) == len(expected)
    for pair, (z, p) in zip(pairs, expected.values(), strict=True):
        assert pair.z_statistic == pytest.approx(z, rel=RTOL, abs=1e-9)
        assert pair.p_value == pytest.approx(p, rel=1e-7, abs=1e-300)


def test_dunn_degenerate_inputs_give_no_pairs() -> None:
    assert stats.dunn(np.array([0, 0]), np.array([1.0, 2.0]), np.array([2, 3])) == []
    assert stats.dunn(np.array([0, 1]), np.array([4.0, 4.0]), np.array([2, 3])) == []


@given(
    st.integers(2, 500), st.integers(2, 500), st.floats(-3, 3), st.sampled_from([0.01, 0.05, 0.1])
)
def test_hedges_g_matches_the_gamma_correction(n_a: int, n_b: int, d: float, alpha: float) -> None:
    assume(n_a + n_b - 2 >= 2)
    result = stats.hedges_g(n_a, n_b, d, alpha)
    m = n_a + n_b - 2
    j = math.exp(math.lgamma(m / 2) - math.lgamma((m - 1) / 2)) / math.sqrt(m / 2)
    g = j * d
    se = math.sqrt((n_a + n_b) / (n_a * n_b) + g * g / (2 * (n_a + n_b)))
    z = scipy_stats.norm.ppf(1 - alpha / 2)
    assert float(result.hedges_g) == pytest.approx(g, rel=RTOL, abs=1e-15)
    assert float(result.ci_low) == pytest.approx(g - z * se, rel=RTOL, abs=1e-12)
    assert float(result.ci_high) == pytest.approx(g + z * se, rel=RTOL, abs=1e-12)
    if m >= 10:  # J is close to Hedges' approximation 1 - 3 / (4m - 1).
        assert j == pytest.approx(1 - 3 / (4 * m - 1), abs=1e-3)


def test_hedges_g_degenerate_is_nan() -> None:
    result = stats.hedges_g([1, 10, 2], [1, 10, 1], [0.5, np.nan, 0.3], 0.05)
    assert np.isnan(result.hedges_g).all() and np.isnan(result.ci_low).all()


def contrast_power_by_hand(
    n: np.ndarray,
    unit: np.ndarray,
    ability: np.ndarray,
    f: int,
    shift: float,
    level: float,
    prior_df: float = 0.0,
) -> float:
    """The verdict's contrast for family f, written out for one design (trim 0.2)."""
    k = n.size
    cell = unit / n
    h = n - 2 * np.floor(0.2 * n)
    v = cell + ability
    others = [g for g in range(k) if g != f]
    variance = v[f] + sum(v[g] for g in others) / (k - 1) ** 2
    welch = cell**2 / np.minimum(h - 1 + prior_df, np.sum(h - 1))
    df = variance**2 / (welch[f] + sum(welch[g] for g in others) / (k - 1) ** 4)
    per_contrast = 1 - (1 - level) ** (1 / k)
    critical = scipy_stats.t.ppf(1 - per_contrast / 2, df)
    nc = shift / math.sqrt(variance)
    lower = scipy_stats.nct.cdf(-critical, df, nc)  # NaN far in the tail: then ~0
    if not np.isfinite(lower):
        assert abs(nc) > 2 or scipy_stats.t.cdf(-critical, df) < 1e-6
        lower = 0.0
    return float(scipy_stats.nct.sf(critical, df, nc) + lower)


design_strategy = st.lists(
    st.tuples(st.integers(12, 400), st.floats(60.0, 600.0), st.floats(0.0, 2.0)),
    min_size=2,
    max_size=7,
)


@given(
    design_strategy,
    st.floats(0.0, 15.0),
    st.sampled_from([0.05, 0.01, 0.001]),
    st.sampled_from([0.0, 30.0]),
)
@settings(max_examples=150, deadline=None)
def test_contrast_power_matches_the_noncentral_t_of_the_verdicts_contrast(
    design: list[tuple[int, float, float]], shift: float, level: float, prior_df: float
) -> None:
    n, unit, ability = (np.array(column, dtype=float) for column in zip(*design, strict=True))
    k = n.size
    power = stats.contrast_power(
        np.tile(n, (k, 1)), np.tile(unit, (k, 1)), np.tile(ability, (k, 1)),
        np.arange(k), shift, np.full(k, level), 0.2, prior_df,
    )  # fmt: skip
    expected = [
        contrast_power_by_hand(n, unit, ability, f, shift, level, prior_df) for f in range(k)
    ]
    np.testing.assert_allclose(power, expected, rtol=1e-7, atol=1e-12)
    if shift == 0:  # no shift: the power is the per-contrast size of the test
        np.testing.assert_allclose(power, 1 - (1 - level) ** (1 / k), rtol=1e-7)


@given(design_strategy, st.sampled_from([0.05, 0.005, 0.0005]), st.sampled_from([0.0, 30.0]))
@settings(max_examples=60, deadline=None)
def test_attempts_needed_is_the_smallest_count_reaching_the_power(
    design: list[tuple[int, float, float]], level: float, prior_df: float
) -> None:
    n, unit, ability = (np.array(column, dtype=float) for column in zip(*design, strict=True))
    k = n.size
    needed = stats.attempts_needed(
        n[None], (unit / n)[None], ability[None], [level], shift=10.0, target_power=0.8,
        trim=0.2, min_family_attempts=10, min_attempts=100, max_family_attempts=5000,
        prior_df=prior_df,
    )  # fmt: skip

    def power(design_n: np.ndarray, f: int) -> float:
        return contrast_power_by_hand(design_n, unit, ability, f, 10.0, level, prior_df)

    for f in range(k):
        extra = needed.family_additional[0, f]
        if np.isnan(extra):
            assert needed.family_status[0, f] == "unreachable"
            grown = n.copy()
            grown[f] = 5000
            assert power(grown, f) < 0.8
            continue
        grown = n.copy()
        grown[f] += extra
        assert power(grown, f) >= 0.8 and grown.sum() >= 100
        if extra > 0 and grown.sum() - 1 >= 100 and grown[f] - 1 >= 10:
            grown[f] -= 1
            assert power(grown, f) < 0.8
        assert needed.current_power[0, f] == pytest.approx(power(n, f), rel=1e-7)
    common = needed.plan_family_attempts[0]
    if np.isnan(common):
        assert needed.plan_status[0] == "unreachable"
        return
    planned = np.maximum(n, common)
    assert min(power(planned, f) for f in range(k)) >= 0.8
    np.testing.assert_array_equal(needed.plan_additional[0], planned - n)
    if common > n.min() and np.maximum(n, common - 1).sum() >= 100 and common - 1 >= 10:
        assert min(power(np.maximum(n, common - 1), f) for f in range(k)) < 0.8


def test_attempts_needed_takes_each_challenges_own_trim() -> None:
    """A trim per challenge (0 where the verdict judged plain means) gives each row what a
    call with that trim alone gives; the trim changes the cells' df, so the rows differ."""
    n = np.array([[12.0, 15.0, 11.0]] * 2)
    unit = np.array([[200.0, 260.0, 230.0]] * 2)
    ability = np.array([[0.5, 0.8, 0.6]] * 2)
    settings_ = {
        "shift": 10.0, "target_power": 0.8, "min_family_attempts": 10, "min_attempts": 30,
        "max_family_attempts": 5000,
    }  # fmt: skip
    both = stats.attempts_needed(n, unit / n, ability, [0.05, 0.05], trim=[0.2, 0.0], **settings_)
    for row, trim in enumerate((0.2, 0.0)):
        alone = stats.attempts_needed(
            n[row : row + 1], unit[row : row + 1] / n[row : row + 1], ability[row : row + 1],
            [0.05], trim=trim, **settings_,
        )  # fmt: skip
        np.testing.assert_array_equal(both.current_power[row], alone.current_power[0])
        np.testing.assert_array_equal(both.family_additional[row], alone.family_additional[0])
    assert not np.array_equal(both.current_power[0], both.current_power[1])


def test_attempts_needed_degenerate_challenges() -> None:
    nan = np.nan
    needed = stats.attempts_needed(
        np.array([[40.0, nan], [40.0, 30.0], [40.0, 3.0], [40.0, 30.0]]),
        np.array([[5.0, nan], [5.0, 6.0], [5.0, nan], [nan, nan]]),
        np.array([[0.1, nan], [0.1, nan], [0.1, 0.1], [0.1, 0.1]]),
        [0.01, 0.01, 0.01, 0.01],
        shift=10.0, target_power=0.8, trim=0.2, min_family_attempts=10, min_attempts=100,
        max_family_attempts=100_000,
    )  # fmt: skip
    assert list(needed.plan_status) == [
        "not_computable",  # one family
        "not_computable",  # a family without an ability
        "variance_borrowed",  # 3 attempts: no Yuen variance, the other family's is used
        "not_computable",  # no cell variance at all
    ]
    assert needed.family_status[2, 1] in ("variance_borrowed", "unreachable")
    assert np.isnan(needed.plan_family_attempts[[0, 1, 3]]).all()
    assert needed.plan_family_attempts[2] >= 50  # min_attempts 100 over two families


# --- the families' mean and variance in SQL (macro fairness_families_summarised) --------


@pytest.fixture(scope="module")
def families_summarised_sql(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The compiled SQL of fairness_families_summarised over a relation
    `score_counts(challenge_id, model_family, score, attempts)`."""
    from conftest import compile_inline

    return compile_inline(
        "{{ challenge_fairness.fairness_families_summarised('score_counts') }}",
        tmp_path_factory.mktemp("families_macro"),
    )


family_scores = st.lists(
    st.none() | st.sampled_from([0.1, 7.0, 30.03, 66.6, 100.0]) | integer_scores,
    min_size=1,
    max_size=40,
)


@pytest.mark.dbt
@settings(max_examples=60, deadline=None)
@given(
    families=st.lists(
        family_scores | st.builds(lambda n: [30.03] * n, st.integers(1, 40)), min_size=1, max_size=4
    )
)
@example(families=[[30.03] * 15, [0.1] * 3 + [None]])
def test_families_summarised_macro_matches_numpy(
    families_summarised_sql: str, families: list[list[float | None]]
) -> None:
    """Counts, mean and sample variance (ddof=1) per family from the compressed counts, as
    numpy computes them from the attempts; a family of one distinct score has exactly that
    mean and a variance of exactly 0 (30.03 is not a binary fraction: from the counts its
    mean is an ulp off, which left a variance of about 1e-29)."""
    import duckdb

    rows: dict[str, list[object]] = {
        "challenge_id": [],
        "model_family": [],
        "score": [],
        "attempts": [],
    }
    for index, scores in enumerate(families):
        distinct: dict[float | None, int] = {}
        for score in scores:
            distinct[score] = distinct.get(score, 0) + 1
        for score, count in distinct.items():
            rows["challenge_id"].append("c1")
            rows["model_family"].append(f"family_{index}")
            rows["score"].append(score)
            rows["attempts"].append(count)
    score_counts = pa.table(
        rows,
        schema=pa.schema(
            [
                ("challenge_id", pa.string()),
                ("model_family", pa.string()),
                ("score", pa.float64()),
                ("attempts", pa.int64()),
            ]
        ),
    )
    with duckdb.connect() as connection:
        connection.register("score_counts", score_counts)
        result = connection.sql(families_summarised_sql).fetchdf().set_index("model_family")
    assert len(result) == len(families)
    for index, scores in enumerate(families):
        row = result.loc[f"family_{index}"]
        scored = np.array([score for score in scores if score is not None])
        assert row.scored_attempts == scored.size
        assert row.unscored_attempts == len(scores) - scored.size
        if scored.size == 0:
            assert np.isnan(row.mean_score) and np.isnan(row.variance_score)
            continue
        if np.unique(scored).size == 1:
            assert row.mean_score == scored[0]
        else:
            assert row.mean_score == pytest.approx(scored.mean(), rel=1e-12)
        if scored.size == 1:
            assert np.isnan(row.variance_score)
        elif np.unique(scored).size == 1:
            assert row.variance_score == 0
        else:
            assert row.variance_score == pytest.approx(np.var(scored, ddof=1), rel=1e-9)
