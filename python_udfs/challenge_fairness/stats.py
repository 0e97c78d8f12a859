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
from scipy import stats

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
        np.isfinite(mean_a) & np.isfinite(mean_b) & np.isfinite(var_a) & np.isfinite(var_b)
        & (var_a >= 0) & (var_b >= 0)
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

