"""Pure statistics behind the fairness marts.

Every function here takes plain numpy arrays (or scalars), imports neither duckdb nor dbt,
and delegates the statistic itself to scipy/numpy. Degenerate input never raises and never
yields an invented number: the statistic is ``None``/NaN and a status with a reason says why.

Inputs may be *compressed*: SQL hands over one row per distinct score with its count, so a
challenge with 40,000 integer scores arrives as a few hundred (group, value, count) triples.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import special, stats

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

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


def expand_counts(values: FloatArray, counts: IntArray) -> FloatArray:
    """Return the raw sample that (value, count) pairs compress."""
    return np.repeat(np.asarray(values, dtype=np.float64), np.asarray(counts, dtype=np.int64))


def kruskal_wallis(
    group_codes: IntArray, values: FloatArray, counts: IntArray
) -> KruskalWallisResult:
    """Tie-corrected Kruskal-Wallis H by group (scipy.stats.kruskal) on compressed scores."""
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

    samples = [expand_counts(values[group_codes == g], counts[group_codes == g]) for g in groups]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        result = stats.kruskal(*samples)
    h, p = float(result.statistic), float(result.pvalue)
    if -1e-9 < h < 0:
        # Identical rank sums: H is 0, but rounding can make scipy's H a hair below 0
        # (then its p is NaN). Report the exact H = 0 and its chi-square tail p = 1.
        h, p = 0.0, float(stats.chi2.sf(0.0, len(groups) - 1))
    if not (np.isfinite(h) and np.isfinite(p)):
        return not_computable(len(groups), observations, "scipy returned a non-finite H")
    return KruskalWallisResult(h, p, len(groups), observations, STATUS_OK, None)


@dataclass(frozen=True)
class CohensDResult:
    """Vectorised Cohen's d (pooled SD, ddof=1) for many pairs of groups."""

    pooled_sd: FloatArray
    cohens_d: FloatArray
    status: npt.NDArray[np.str_]
    reason: npt.NDArray[np.object_]


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
        zero_sd = ~group_of_one & ~bad_input & (pooled_sd == 0)
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
    status: str
    reason: str | None


def trimmed_cell(values: FloatArray, counts: IntArray, trim: float) -> TrimmedCell:
    """Trimmed mean (scipy.stats.trim_mean) and Yuen's squared standard error of it.

    With g = int(trim * n) values cut from each tail and h = n - 2g kept, the squared
    standard error is SS_w / (h (h - 1)), SS_w the sum of squared deviations of the
    g-winsorized sample (scipy.stats.mstats.winsorize): what scipy.stats.ttest_ind(trim=)
    uses for each sample.
    """
    if not 0 <= trim < 0.5:
        raise ValueError("trim must be in [0, 0.5)")
    sample = np.sort(expand_counts(values, counts))
    n = int(sample.size)
    g = int(trim * n)
    h = n - 2 * g
    if n == 0:
        return TrimmedCell(0, None, None, 0, STATUS_NOT_COMPUTABLE, "no scored attempts")
    if not np.all(np.isfinite(sample)):
        return TrimmedCell(n, None, None, h, STATUS_NOT_COMPUTABLE, "a score is NaN or infinite")
    trimmed_mean = float(stats.trim_mean(sample, trim))
    if h < 2:
        return TrimmedCell(
            n,
            trimmed_mean,
            None,
            h,
            STATUS_NOT_COMPUTABLE,
            "fewer than two attempts left after trimming",
        )
    winsorized = np.asarray(stats.mstats.winsorize(sample, limits=(trim, trim)), dtype=np.float64)
    sum_squares = float(np.sum((winsorized - winsorized.mean()) ** 2))
    return TrimmedCell(n, trimmed_mean, sum_squares / (h * (h - 1)), h, STATUS_OK, None)


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

    Joint average ranks come from scipy.stats.rankdata; z = (mean rank a - mean rank b) /
    sqrt((N(N+1)/12 - sum(t^3 - t) / (12(N-1))) (1/n_a + 1/n_b)); p two-sided normal.
    Fewer than two groups, or all values tied, give no pairs.
    """
    group_codes = np.asarray(group_codes)
    present = np.asarray(counts) > 0
    codes = np.repeat(group_codes[present], np.asarray(counts)[present])
    sample = expand_counts(np.asarray(values)[present], np.asarray(counts)[present])
    groups = np.unique(codes)
    total = sample.size
    if groups.size < 2 or not np.all(np.isfinite(sample)) or np.all(sample == sample[0]):
        return []
    ranks = stats.rankdata(sample)
    _, tie_counts = np.unique(sample, return_counts=True)
    tie_term = float(np.sum(tie_counts.astype(np.float64) ** 3 - tie_counts)) / (12 * (total - 1))
    variance_unit = total * (total + 1) / 12 - tie_term
    sizes = np.array([np.sum(codes == g) for g in groups], dtype=np.float64)
    mean_ranks = np.array([ranks[codes == g].mean() for g in groups])
    pairs = [(i, j) for i in range(groups.size) for j in range(i + 1, groups.size)]
    z = np.array(
        [
            (mean_ranks[i] - mean_ranks[j]) / np.sqrt(variance_unit * (1 / sizes[i] + 1 / sizes[j]))
            for i, j in pairs
        ]
    )
    p = 2 * stats.norm.sf(np.abs(z))
    p_holm = holm(p)
    return [
        DunnPair(int(groups[i]), int(groups[j]), float(z[k]), float(p[k]), float(p_holm[k]))
        for k, (i, j) in enumerate(pairs)
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
