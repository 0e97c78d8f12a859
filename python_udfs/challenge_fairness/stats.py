"""Pure statistics behind the fairness marts.

Every function here takes plain numpy arrays (or scalars), imports neither duckdb nor dbt,
and delegates the statistic itself to scipy/numpy. Degenerate input never raises and never
yields an invented number: the statistic is ``None``/NaN and a status with a reason says why.

Inputs may be *compressed*: SQL hands over one row per distinct score with its count, so a
challenge with 40,000 integer scores arrives as a few hundred (group, value, count) triples.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import special, stats

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
ObjectArray = npt.NDArray[np.object_]
BoolArray = npt.NDArray[np.bool_]

STATUS_OK = "ok"
STATUS_NOT_COMPUTABLE = "not_computable"


@dataclass(frozen=True)
class KruskalWallisResult:
    """Kruskal-Wallis H test of one challenge's scores by group, or why it is not computable."""

    h_statistic: float | None
    p_value: float | None
    groups: int
    observations: int
    status: str
    reason: str | None


@dataclass(frozen=True)
class JointRanks:
    """The groups' sizes and rank sums in the joint ranking of compressed samples."""

    sizes: FloatArray
    rank_sums: FloatArray
    observations: int
    tie_cubes: float


def joint_ranks(group_codes: IntArray, values: FloatArray, counts: IntArray) -> JointRanks:
    """Rank sums per group (codes numbered 0..k-1 by np.unique order) in the joint ranking.

    A distinct value's t tied copies, after c smaller ones, share the midrank c + (t + 1) / 2
    (scipy.stats.rankdata's 'average'), so the sample is never expanded; tie_cubes is
    sum(t^3 - t) over the distinct values (scipy.stats.tiecorrect's numerator). Counts must
    be positive and values finite.
    """
    _, group_of = np.unique(group_codes, return_inverse=True)
    distinct, value_of = np.unique(values, return_inverse=True)
    tied = np.bincount(value_of, weights=counts, minlength=distinct.size)
    midranks = np.cumsum(tied) - tied + (tied + 1) / 2
    return JointRanks(
        sizes=np.bincount(group_of, weights=counts).astype(np.float64, copy=False),
        rank_sums=np.bincount(group_of, weights=counts * midranks[value_of]).astype(
            np.float64, copy=False
        ),
        observations=int(counts.sum()),
        tie_cubes=float(np.sum(tied**3 - tied)),
    )


def kruskal_wallis(
    group_codes: IntArray, values: FloatArray, counts: IntArray
) -> KruskalWallisResult:
    """Tie-corrected Kruskal-Wallis H by group on compressed scores: scipy.stats.kruskal's
    statistic and p-value, computed from the joint midranks of the distinct scores
    (`joint_ranks`) rather than from the expanded sample, whose sort cost grows with the
    attempts (20 ms a challenge at 370,000 attempts; checked against scipy in the tests)."""
    group_codes = np.asarray(group_codes)
    values = np.asarray(values, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.int64)
    if not (group_codes.shape == values.shape == counts.shape):
        raise ValueError("group_codes, values and counts must have the same length")

    def not_computable(groups: int, observations: int, reason: str) -> KruskalWallisResult:
        return KruskalWallisResult(None, None, groups, observations, STATUS_NOT_COMPUTABLE, reason)

    if np.any(counts < 0):
        return not_computable(0, 0, "negative count")
    present = counts > 0
    group_codes, values, counts = group_codes[present], values[present], counts[present]
    observations = int(counts.sum())
    groups = np.unique(group_codes)
    if not np.all(np.isfinite(values)):
        return not_computable(len(groups), observations, "a score is NaN or infinite")
    if len(groups) < 2:
        return not_computable(
            len(groups), observations, "fewer than two families with scored attempts"
        )
    if np.all(values == values[0]):
        return not_computable(len(groups), observations, "all scores are identical")

    ranks = joint_ranks(group_codes, values, counts)
    total = ranks.observations
    # scipy.stats.kruskal's H from the groups' rank sums, divided by its tie correction
    # (scipy.stats.tiecorrect), with the chi-square tail (scipy.stats.chi2) for p.
    h = (
        12.0 / (total * (total + 1)) * float(np.sum(ranks.rank_sums**2 / ranks.sizes))
        - 3 * (total + 1)
    ) / (1 - ranks.tie_cubes / (total**3 - total))
    p = float(stats.chi2.sf(h, len(groups) - 1))
    if -1e-9 < h < 0:
        # Identical rank sums: H is 0, but rounding can make scipy's H a hair below 0
        # (then its p is NaN). Report the exact H = 0 and its chi-square tail p = 1.
        h, p = 0.0, float(stats.chi2.sf(0.0, len(groups) - 1))
    if not (np.isfinite(h) and np.isfinite(p)):
        return not_computable(len(groups), observations, "H is not finite")
    return KruskalWallisResult(h, p, len(groups), observations, STATUS_OK, None)


@dataclass(frozen=True)
class CohensDResult:
    """Vectorised Cohen's d (pooled SD, ddof=1) for many pairs of groups."""

    pooled_sd: FloatArray
    cohens_d: FloatArray
    status: npt.NDArray[np.str_]
    reason: npt.NDArray[np.object_]


# A pooled SD within this many ulps of the means' magnitude is zero (see cohens_d).
ZERO_SD_ULPS = 64


def zero_sd_resolution(*means: npt.ArrayLike) -> FloatArray:
    """The largest standard deviation that is zero at double precision next to these means.

    A mean computed from counts (as SQL does, two-pass) can be an ulp off a constant
    group's value, which leaves a variance of that error squared: 15 scores of 30.03 give
    an SD of 4e-15 where it is 0. An SD up to ZERO_SD_ULPS ulps of the largest |mean| is
    such rounding, not spread.
    """
    largest = np.abs(np.asarray(means[0], dtype=np.float64))
    for mean in means[1:]:
        largest = np.fmax(largest, np.abs(np.asarray(mean, dtype=np.float64)))
    return np.asarray(ZERO_SD_ULPS * np.spacing(largest), dtype=np.float64)


def cohens_d(
    n_a: npt.ArrayLike,
    mean_a: npt.ArrayLike,
    var_a: npt.ArrayLike,
    n_b: npt.ArrayLike,
    mean_b: npt.ArrayLike,
    var_b: npt.ArrayLike,
) -> CohensDResult:
    """Cohen's d = (mean_a - mean_b) / pooled SD, from per-group n, mean and ddof=1 variance."""
    n_a, n_b = np.asarray(n_a, dtype=np.float64), np.asarray(n_b, dtype=np.float64)
    mean_a, mean_b = np.asarray(mean_a, dtype=np.float64), np.asarray(mean_b, dtype=np.float64)
    var_a, var_b = np.asarray(var_a, dtype=np.float64), np.asarray(var_b, dtype=np.float64)

    group_of_one = (n_a < 2) | (n_b < 2) | np.isnan(n_a) | np.isnan(n_b)
    bad_input = ~group_of_one & ~(
        np.isfinite(mean_a)
        & np.isfinite(mean_b)
        & np.isfinite(var_a)
        & np.isfinite(var_b)
        & (var_a >= 0)
        & (var_b >= 0)
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        pooled_var = ((n_a - 1) * var_a + (n_b - 1) * var_b) / (n_a + n_b - 2)
        pooled_sd = np.sqrt(pooled_var)
        # Zero at double precision (15 scores of 30.03 against a constant 0 gave d about
        # 1e16): no effect size, the groups are constant.
        zero_sd = ~group_of_one & ~bad_input & (pooled_sd <= zero_sd_resolution(mean_a, mean_b))
        d = (mean_a - mean_b) / pooled_sd

    undefined = group_of_one | bad_input | zero_sd
    pooled_sd = np.where(group_of_one | bad_input, np.nan, pooled_sd)
    d = np.where(undefined, np.nan, d)
    status = np.where(undefined, STATUS_NOT_COMPUTABLE, STATUS_OK)
    reason = np.full(d.shape, None, dtype=object)
    reason[zero_sd] = "pooled standard deviation is zero (both families scored constantly)"
    reason[bad_input] = "a mean or variance is missing, negative or not finite"
    reason[group_of_one] = "a family has fewer than two scored attempts"
    return CohensDResult(pooled_sd, d, status, reason)


@dataclass(frozen=True)
class TrimmedCell:
    """Yuen's trimmed mean of one (challenge, family) cell and the variance of that mean."""

    observations: int
    trimmed_mean: float | None
    trimmed_mean_variance: float | None
    effective_n: int
    trims_ties: bool
    status: str
    reason: str | None


def trimmed_cell(values: FloatArray, counts: IntArray, trim: float) -> TrimmedCell:
    """Trimmed mean and Yuen's squared standard error of one compressed sample (see
    `trimmed_cells`, which this calls with one cell)."""
    cells = trimmed_cells(
        np.asarray(values, dtype=np.float64),
        np.asarray(counts, dtype=np.int64),
        np.asarray([0, np.size(values)], dtype=np.int64),
        np.asarray([trim], dtype=np.float64),
    )
    mean, variance = cells.trimmed_mean[0], cells.trimmed_mean_variance[0]
    return TrimmedCell(
        int(cells.observations[0]),
        None if np.isnan(mean) else float(mean),
        None if np.isnan(variance) else float(variance),
        int(cells.effective_n[0]),
        bool(cells.trims_ties[0]),
        str(cells.status[0]),
        cells.reason[0],
    )


@dataclass(frozen=True)
class TrimmedCells:
    """`trimmed_cell` for many cells at once, as arrays (NaN where the cell has no value)."""

    observations: IntArray
    trimmed_mean: FloatArray
    trimmed_mean_variance: FloatArray
    effective_n: IntArray
    trims_ties: BoolArray
    status: ObjectArray
    reason: ObjectArray


def trimmed_cells(
    values: FloatArray, counts: IntArray, offsets: IntArray, trims: FloatArray
) -> TrimmedCells:
    """Trimmed mean and Yuen's squared standard error of each compressed sample.

    Cell i is the sample holding values[offsets[i]:offsets[i + 1]] counts[...] times (any
    order). With n observations, g = int(trim * n) cut from each tail and h = n - 2g kept,
    the trimmed mean is that of scipy.stats.trim_mean, and the squared standard error is
    SS_w / (h (h - 1)), SS_w the sum of squared deviations of the g-winsorized sample
    (scipy.stats.mstats.winsorize): what scipy.stats.ttest_ind(trim=) uses for each sample.

    Computed on the (value, count) pairs, never expanding the sample, all cells at once, so
    the cost grows with the distinct scores per cell, not with the attempts behind them:
    a value's copies that fall in the kept positions [g, n - g) of the sorted sample count
    toward the trimmed mean, and the winsorized sample is every value clipped to the order
    statistics at positions g and n - g - 1 (scipy's winsorize sets the lower and upper g
    to exactly those). Checked against scipy on random and degenerate samples.

    `trims_ties` says that varied scores are too discrete to trim (g >= 1): both tails are
    ties of the values kept beside them (the smallest value is the one at position g and the
    largest the one at n - g - 1), or the values kept are one value. Pass/fail scores (0 or
    100) always are: their trimmed mean moves in steps, (p - trim) / (1 - 2 trim) of the
    pass rate p, and its winsorized variance is 0 while the scores vary wherever p < trim
    or p > 1 - trim (a family failing 18 % of attempts has trimmed mean 100 and squared
    standard error 0). One tied tail beside varied scores (a floor of crashed attempts at
    0, a ceiling at 100) is what trimming is for, and stays trimmed.
    """
    values = np.asarray(values, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.int64)
    offsets = np.asarray(offsets, dtype=np.int64)
    trims = np.asarray(trims, dtype=np.float64)
    cells = offsets.size - 1
    if values.shape != counts.shape or trims.shape != (cells,):
        raise ValueError("values and counts need one shape, trims one value per cell")
    if np.any((trims < 0) | (trims >= 0.5)):
        raise ValueError("trim must be in [0, 0.5)")
    if np.any(counts < 0):
        raise ValueError("counts must not be negative")
    lengths = np.diff(offsets)
    cell = np.repeat(np.arange(cells), lengths)
    order = np.lexsort((values, cell))  # by cell, then by value (NaN last)
    value, count = values[order], counts[order]

    n = np.bincount(cell, weights=count, minlength=cells).astype(np.int64)
    g = np.floor(trims * n).astype(np.int64)  # = int(trim * n), as scipy cuts
    h = n - 2 * g
    # Positions [before, after) of each value's copies in its cell's sorted sample.
    after = np.cumsum(count) - np.repeat(np.cumsum(n) - n, lengths)
    before = after - count
    g_e, n_e = g[cell], n[cell]
    kept = np.clip(np.minimum(after, n_e - g_e) - np.maximum(before, g_e), 0, None)
    not_finite = np.bincount(
        cell, weights=(count > 0) & ~np.isfinite(value), minlength=cells
    ).astype(bool)
    finite_value = np.where(np.isfinite(value), value, 0.0)

    with np.errstate(invalid="ignore", divide="ignore"):
        trimmed_mean = np.bincount(cell, weights=finite_value * kept, minlength=cells) / h
        low = np.full(cells, np.nan)
        high = np.full(cells, np.nan)
        holds_low = (before <= g_e) & (g_e < after)
        holds_high = (before <= n_e - g_e - 1) & (n_e - g_e - 1 < after)
        low[cell[holds_low]] = finite_value[holds_low]
        high[cell[holds_high]] = finite_value[holds_high]
        smallest = np.full(cells, np.nan)
        largest = np.full(cells, np.nan)
        holds_smallest = (before <= 0) & (after > 0)
        holds_largest = (before <= n_e - 1) & (n_e - 1 < after)
        smallest[cell[holds_smallest]] = finite_value[holds_smallest]
        largest[cell[holds_largest]] = finite_value[holds_largest]
        winsorized = np.clip(finite_value, low[cell], high[cell])
        winsorized_mean = np.bincount(cell, weights=winsorized * count, minlength=cells) / n
        sum_squares = np.bincount(
            cell, weights=count * (winsorized - winsorized_mean[cell]) ** 2, minlength=cells
        )
        # A winsorized sample of one value (low = high) has no spread: exactly 0, where its
        # mean, computed from counts, can be an ulp off the value (15 of 30.03) and leave
        # sum_squares of 1e-28, an SE that made a constant cell's t test finite.
        variance = np.where(low == high, 0.0, sum_squares / (h * (h - 1)))

    status = np.full(cells, STATUS_OK, dtype=object)
    reason = np.full(cells, None, dtype=object)
    too_few = h < 2
    status[too_few] = STATUS_NOT_COMPUTABLE
    reason[too_few] = "fewer than two attempts left after trimming"
    status[not_finite] = STATUS_NOT_COMPUTABLE
    reason[not_finite] = "a score is NaN or infinite"
    empty = n == 0
    status[empty] = STATUS_NOT_COMPUTABLE
    reason[empty] = "no scored attempts"
    trimmed_mean[not_finite | empty] = np.nan
    variance[too_few | not_finite | empty] = np.nan
    both_tails_tied = (smallest == low) & (largest == high)
    varied = smallest < largest  # a constant cell is the same trimmed or not
    trims_ties = (g >= 1) & ~not_finite & ~empty & varied & (both_tails_tied | (low == high))
    return TrimmedCells(
        observations=n,
        trimmed_mean=trimmed_mean,
        trimmed_mean_variance=variance,
        effective_n=np.where(empty, 0, h),
        trims_ties=trims_ties,
        status=status,
        reason=reason,
    )


@dataclass(frozen=True)
class ContrastTest:
    """Vectorised t tests of estimates with standard errors and degrees of freedom."""

    t_statistic: FloatArray
    p_value: FloatArray
    p_value_sidak: FloatArray
    ci_low: FloatArray
    ci_high: FloatArray


def contrast_test(
    estimate: npt.ArrayLike,
    standard_error: npt.ArrayLike,
    degrees_of_freedom: npt.ArrayLike,
    alpha: npt.ArrayLike,
    comparisons: npt.ArrayLike,
) -> ContrastTest:
    """Two-sided t test and (1 - alpha) interval per row; p Sidak-adjusted for `comparisons`.

    Rows with a non-positive or missing standard error or degrees of freedom are NaN.
    """
    estimate = np.asarray(estimate, dtype=np.float64)
    se = np.asarray(standard_error, dtype=np.float64)
    df = np.asarray(degrees_of_freedom, dtype=np.float64)
    alpha = np.asarray(alpha, dtype=np.float64)
    comparisons = np.asarray(comparisons, dtype=np.float64)
    valid = np.isfinite(estimate) & np.isfinite(se) & (se > 0) & np.isfinite(df) & (df > 0)
    valid &= np.isfinite(alpha) & (alpha > 0) & (alpha < 1) & (comparisons >= 1)
    shape = np.zeros(np.broadcast(estimate, se, df, alpha, comparisons).shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(valid, estimate / se, np.nan)
        p = np.where(valid, 2 * stats.t.sf(np.abs(t), df), np.nan)
        p_sidak = np.where(valid, -np.expm1(comparisons * np.log1p(-p)), np.nan)
        half_width = stats.t.ppf(1 - alpha / 2, df) * se
    return ContrastTest(
        t_statistic=t + shape,
        p_value=np.minimum(p, 1.0) + shape,
        p_value_sidak=np.clip(p_sidak, 0.0, 1.0) + shape,
        ci_low=np.where(valid, estimate - half_width, np.nan) + shape,
        ci_high=np.where(valid, estimate + half_width, np.nan) + shape,
    )


def benjamini_hochberg(p_values: npt.ArrayLike) -> FloatArray:
    """Benjamini-Hochberg q-values (scipy.stats.false_discovery_control); NaN stays NaN."""
    p = np.asarray(p_values, dtype=np.float64)
    q = np.full(p.shape, np.nan)
    present = ~np.isnan(p)
    if present.any():
        q[present] = stats.false_discovery_control(np.clip(p[present], 0.0, 1.0), method="bh")
    return q


@dataclass(frozen=True)
class DunnPair:
    """Dunn's z test of one pair of groups on joint ranks."""

    group_a: int
    group_b: int
    z_statistic: float
    p_value: float
    p_value_holm: float


def holm(p_values: npt.ArrayLike) -> FloatArray:
    """Holm step-down adjusted p-values (scipy has no Holm): monotone, capped at 1."""
    p = np.asarray(p_values, dtype=np.float64)
    m = p.size
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted


def dunn(group_codes: IntArray, values: FloatArray, counts: IntArray) -> list[DunnPair]:
    """Dunn's (1964) pairwise test after Kruskal-Wallis, tie-corrected, Holm-adjusted.

    z = (mean rank a - mean rank b) / sqrt((N(N+1)/12 - sum(t^3 - t) / (12(N-1)))
    (1/n_a + 1/n_b)); p two-sided normal. The joint average ranks are read off the counts
    (`joint_ranks`), so the sample is never expanded. Fewer than two groups, or all values
    tied, give no pairs.
    """
    group_codes = np.asarray(group_codes)
    values = np.asarray(values, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.int64)
    present = counts > 0
    group_codes, values, counts = group_codes[present], values[present], counts[present]
    groups = np.unique(group_codes)
    if groups.size < 2 or not np.all(np.isfinite(values)) or np.all(values == values[0]):
        return []
    ranks = joint_ranks(group_codes, values, counts)
    total = float(ranks.observations)
    variance_unit = total * (total + 1) / 12 - ranks.tie_cubes / (12 * (total - 1))
    sizes, mean_ranks = ranks.sizes, ranks.rank_sums / ranks.sizes
    first, second = np.triu_indices(groups.size, k=1)
    z = (mean_ranks[first] - mean_ranks[second]) / np.sqrt(
        variance_unit * (1 / sizes[first] + 1 / sizes[second])
    )
    p = 2 * stats.norm.sf(np.abs(z))
    p_holm = holm(p)
    return [
        DunnPair(int(groups[i]), int(groups[j]), float(z[k]), float(p[k]), float(p_holm[k]))
        for k, (i, j) in enumerate(zip(first, second, strict=True))
    ]


@dataclass(frozen=True)
class HedgesG:
    """Vectorised Hedges' g (small-sample corrected d) with a normal-theory interval."""

    hedges_g: FloatArray
    ci_low: FloatArray
    ci_high: FloatArray


def hedges_g(
    n_a: npt.ArrayLike, n_b: npt.ArrayLike, cohens_d: npt.ArrayLike, alpha: npt.ArrayLike
) -> HedgesG:
    """g = J d with the exact J = G(m/2) / (sqrt(m/2) G((m-1)/2)), m = n_a + n_b - 2;
    interval g -/+ z(1-alpha/2) sqrt((n_a+n_b)/(n_a n_b) + g^2 / (2 (n_a+n_b)))
    (Hedges & Olkin 1985). NaN where d is NaN or m < 2.
    """
    n_a, n_b = np.asarray(n_a, dtype=np.float64), np.asarray(n_b, dtype=np.float64)
    d = np.asarray(cohens_d, dtype=np.float64)
    alpha = np.asarray(alpha, dtype=np.float64)
    m = n_a + n_b - 2
    valid = np.isfinite(d) & (m >= 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        safe_m = np.where(valid, m, 3.0)
        log_j = (
            special.gammaln(safe_m / 2)
            - 0.5 * np.log(safe_m / 2)
            - special.gammaln((safe_m - 1) / 2)
        )
        g = np.where(valid, np.exp(log_j) * d, np.nan)
        se = np.sqrt((n_a + n_b) / (n_a * n_b) + g**2 / (2 * (n_a + n_b)))
        z = stats.norm.ppf(1 - alpha / 2)
    return HedgesG(g, np.where(valid, g - z * se, np.nan), np.where(valid, g + z * se, np.nan))


ATTEMPTS_NEEDED_OK = "ok"
ATTEMPTS_NEEDED_POWERED = "already_powered"
ATTEMPTS_NEEDED_BORROWED = "variance_borrowed"
ATTEMPTS_NEEDED_UNREACHABLE = "unreachable"


@dataclass(frozen=True)
class AttemptsNeeded:
    """Per challenge (rows) and family (columns, NaN-padded): the power of each family
    contrast and the attempts that would raise it to the target."""

    current_power: FloatArray  # at the observed attempts
    family_additional: FloatArray  # more attempts of that family alone (NaN: none suffice)
    family_status: npt.NDArray[np.object_]
    plan_family_attempts: FloatArray  # per challenge: every family topped up to this many
    plan_additional: FloatArray  # per family: its share of the challenge plan
    plan_status: npt.NDArray[np.object_]
    plan_reason: npt.NDArray[np.object_]


def contrast_power(
    attempts: npt.ArrayLike,
    unit_variance: npt.ArrayLike,
    ability_variance: npt.ArrayLike,
    family: npt.ArrayLike,
    shift: float,
    level: npt.ArrayLike,
    trim: float | npt.ArrayLike,
    prior_df: float = 0.0,
) -> FloatArray:
    """Power of the verdict's test of family `family`'s adjusted contrast to detect a true
    shift of `shift` points, for many designs at once (rows of 2-D arrays, NaN-padded
    families). With n_g attempts per family, the cell's Yuen variance is unit_variance_g /
    n_g, its h = n_g - 2 floor(trim n_g), v_g = that + ability_variance_g; the contrast's
    variance is v_f + sum_(g != f) v_g / (K-1)^2, its Welch-Satterthwaite df as in the
    verdict, each cell's variance with min(h_g - 1 + prior_df, sum of the h - 1) df (the
    verdict's variance_shrinkage_df); the test is two-sided at the per-contrast Sidak
    level 1 - (1 - level)^(1/K); power is the noncentral t's mass beyond the critical
    values (scipy.stats.nct). `trim` is one proportion, or one per design (row).
    """
    n = np.atleast_2d(np.asarray(attempts, dtype=np.float64))
    trims = np.asarray(trim, dtype=np.float64)
    trims = trims.reshape(-1, 1) if trims.ndim == 1 else trims
    unit = np.atleast_2d(np.asarray(unit_variance, dtype=np.float64))
    ability = np.atleast_2d(np.asarray(ability_variance, dtype=np.float64))
    rows = np.arange(n.shape[0])
    f = np.asarray(family, dtype=np.int64)
    present = np.isfinite(n)
    k = present.sum(axis=1).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        cell = unit / n
        h = n - 2 * np.floor(trims * n)
        variance = np.where(present, cell + ability, 0.0)
        pooled_df = np.where(present, h - 1, 0.0).sum(axis=1, keepdims=True)
        cell_df = np.minimum(h - 1 + prior_df, pooled_df)
        welch = np.where(present, cell * cell / cell_df, 0.0)
        own_variance, own_welch = variance[rows, f], welch[rows, f]
        contrast_variance = own_variance + (variance.sum(axis=1) - own_variance) / (k - 1) ** 2
        denominator = own_welch + (welch.sum(axis=1) - own_welch) / (k - 1) ** 4
        df = contrast_variance**2 / denominator
        per_contrast = -np.expm1(np.log1p(-np.asarray(level, dtype=np.float64)) / k)
        critical = stats.t.isf(per_contrast / 2, df)
        noncentrality = shift / np.sqrt(contrast_variance)
        # the far tail P(T < -c) = P(T' > c) for T' with -noncentrality: negligible, and
        # scipy's nct may return NaN that deep in a tail (read as 0)
        far_tail = np.nan_to_num(stats.nct.sf(critical, df, -noncentrality), nan=0.0)
        power = stats.nct.sf(critical, df, noncentrality) + far_tail
    valid = (k >= 2) & np.isfinite(power) & (h[rows, f] >= 2)
    return np.where(valid, power, np.nan)


def _smallest_reaching(
    power_at: Callable[[FloatArray], FloatArray],
    start: FloatArray,
    cap: FloatArray,
    target: float,
) -> FloatArray:
    """Per row, the smallest integer x in [start, cap] with power_at(x) >= target (power
    non-decreasing in x), by a bisection run on all rows at once; NaN where even cap falls
    short."""
    low = np.asarray(start, dtype=np.float64).copy()
    high = np.maximum(np.asarray(cap, dtype=np.float64), low)
    reached_low = power_at(low) >= target
    reached_high = power_at(high) >= target
    high = np.where(reached_low, low, high)
    searching = ~reached_low & reached_high
    while np.any(searching & (high - low > 1)):
        middle = np.floor((low + high) / 2)
        reached = power_at(middle) >= target
        step = searching & (high - low > 1)
        high = np.where(step & reached, middle, high)
        low = np.where(step & ~reached, middle, low)
    return np.where(reached_low | reached_high, high, np.nan)


def attempts_needed(
    attempts: npt.ArrayLike,
    cell_variance: npt.ArrayLike,
    ability_variance: npt.ArrayLike,
    level: npt.ArrayLike,
    *,
    shift: float,
    target_power: float,
    trim: float | npt.ArrayLike,
    min_family_attempts: float,
    min_attempts: float,
    max_family_attempts: float,
    prior_df: float = 0.0,
) -> AttemptsNeeded:
    """Attempts that would give each challenge's family contrasts `target_power` to detect
    a shift of `shift` points at the challenge's `level` (the FDR-controlled level its
    max-t p must reach, before the per-contrast Sidak step), by the verdict's variance
    model with each cell's observed Yuen variance per attempt (cell_variance x attempts)
    and its df raised by `prior_df` as the verdict's shrinkage does. Rows are challenges,
    columns families (NaN-padded); all rows are searched at once.

    Per family: the fewest more attempts of THAT family alone (the others fixed) that give
    its contrast the power and meet min_family_attempts and min_attempts; NaN, status
    'unreachable', when max_family_attempts of it would not (the other families' cells or
    the abilities limit the contrast). The challenge plan: the smallest common count every
    family is topped up to (families above it keep theirs) that gives EVERY contrast the
    power and the challenge min_attempts. A family without a cell variance (too few
    attempts to trim) borrows the attempt-weighted mean per-attempt variance of the
    others (status 'variance_borrowed'). A challenge with a family lacking an ability
    variance, or with fewer than two families, is not computable. `trim` is one
    proportion, or one per challenge (the verdict's, 0 where it judged the plain means).
    """
    n = np.atleast_2d(np.asarray(attempts, dtype=np.float64))
    variance = np.atleast_2d(np.asarray(cell_variance, dtype=np.float64))
    ability = np.atleast_2d(np.asarray(ability_variance, dtype=np.float64))
    levels = np.broadcast_to(np.asarray(level, dtype=np.float64), n.shape[:1])
    trims = np.broadcast_to(np.asarray(trim, dtype=np.float64), n.shape[:1])
    challenges, width = n.shape
    present = np.isfinite(n) & (n > 0)
    n = np.where(present, n, np.nan)
    unit = variance * n
    has_variance = present & np.isfinite(unit) & (unit > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        borrowed = np.nansum(np.where(has_variance, unit * n, np.nan), axis=1) / np.nansum(
            np.where(has_variance, n, np.nan), axis=1
        )
    unit = np.where(has_variance, unit, borrowed[:, None])
    families = present.sum(axis=1)
    no_ability = (present & ~np.isfinite(ability)).any(axis=1)
    computable = (families >= 2) & ~no_ability & has_variance.any(axis=1)
    computable &= np.isfinite(levels) & (levels > 0) & (levels < 1)

    # one design per (challenge, family) pair: row r = c * width + j tests family j
    challenge_of = np.repeat(np.arange(challenges), width)
    family_of = np.tile(np.arange(width), challenges)
    pair_valid = present[challenge_of, family_of] & computable[challenge_of]
    pair_unit, pair_ability = unit[challenge_of], ability[challenge_of]
    pair_level, pair_trim = levels[challenge_of], trims[challenge_of]
    pairs = np.arange(challenges * width)

    def power_of(designs: FloatArray) -> FloatArray:
        return contrast_power(
            designs, pair_unit, np.where(np.isfinite(designs), pair_ability, np.nan),
            family_of, shift, pair_level, pair_trim, prior_df,
        )  # fmt: skip

    current = power_of(n[challenge_of]).reshape(challenges, width)
    totals = np.nansum(n, axis=1)
    own = n[challenge_of, family_of]

    def alone(extra: FloatArray) -> FloatArray:
        designs = n[challenge_of].copy()
        designs[pairs, family_of] = own + extra
        meets = (own + extra >= min_family_attempts) & (
            totals[challenge_of] + extra >= min_attempts
        )
        powered = np.nan_to_num(power_of(designs), nan=0.0)
        return np.where(meets & pair_valid, powered, 0.0)

    search_to = np.maximum(max_family_attempts - np.nan_to_num(own, nan=0.0), 0.0)
    additional = _smallest_reaching(alone, np.zeros(pairs.size), search_to, target_power)
    additional = np.where(pair_valid, additional, np.nan).reshape(challenges, width)

    smallest = np.nanmin(np.where(present, n, np.inf), axis=1)
    smallest = np.where(np.isfinite(smallest), smallest, 0.0)

    def plan(common: FloatArray) -> FloatArray:
        designs = np.where(present, np.maximum(n, common[:, None]), np.nan)
        meets = (np.nansum(designs, axis=1) >= min_attempts) & (
            np.nanmin(np.where(present, designs, np.inf), axis=1) >= min_family_attempts
        )
        powered = power_of(designs[challenge_of]).reshape(challenges, width)
        weakest = np.nanmin(np.where(present, np.nan_to_num(powered, nan=0.0), np.inf), axis=1)
        return np.where(meets & computable, weakest, 0.0)

    common = _smallest_reaching(
        plan, smallest, np.full(challenges, float(max_family_attempts)), target_power
    )
    common = np.where(computable, common, np.nan)
    plan_additional = np.where(present, np.maximum(common[:, None] - n, 0.0), np.nan)

    family_status = np.full((challenges, width), None, dtype=object)
    family_status[present] = STATUS_NOT_COMPUTABLE
    reachable = present & computable[:, None]
    family_status[reachable & np.isnan(additional)] = ATTEMPTS_NEEDED_UNREACHABLE
    family_status[reachable & (additional > 0) & has_variance] = ATTEMPTS_NEEDED_OK
    family_status[reachable & (additional > 0) & ~has_variance] = ATTEMPTS_NEEDED_BORROWED
    family_status[reachable & (additional == 0)] = ATTEMPTS_NEEDED_POWERED

    plan_status = np.where(
        ~computable,
        STATUS_NOT_COMPUTABLE,
        np.where(
            np.isnan(common),
            ATTEMPTS_NEEDED_UNREACHABLE,
            np.where(
                np.nansum(plan_additional, axis=1) == 0,
                ATTEMPTS_NEEDED_POWERED,
                np.where(
                    (present & ~has_variance).any(axis=1), ATTEMPTS_NEEDED_BORROWED,
                    ATTEMPTS_NEEDED_OK,
                ),
            ),
        ),
    ).astype(object)  # fmt: skip
    plan_reason = np.full(challenges, None, dtype=object)
    plan_reason[(plan_status == ATTEMPTS_NEEDED_BORROWED)] = (
        "a family has too few attempts for a cell variance: it borrows the others' per attempt"
    )
    plan_reason[(plan_status == ATTEMPTS_NEEDED_UNREACHABLE)] = (
        f"topping every family up to {max_family_attempts:.0f} attempts would not reach the"
        " target power: the variance of the abilities (other challenges) limits the contrasts"
    )
    plan_reason[~computable & no_ability] = (
        "a family has no ability estimate (no scored attempts on other challenges)"
    )
    plan_reason[~computable & ~no_ability] = (
        "fewer than two families, no cell variance to scale, or no FDR level"
    )
    return AttemptsNeeded(
        current, additional, family_status, common, plan_additional, plan_status, plan_reason
    )
