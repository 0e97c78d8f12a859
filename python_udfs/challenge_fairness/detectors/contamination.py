"""Documentation memorisation (F5): the statistic behind the publication-date evidence.

The near-duplicate search itself (tokens, shingles, MinHash, LSH, exact Jaccard) is
set-based SQL (macros ``code_tokens`` ... ``signature_agreement``). What needs scipy is the
comparison of attempts by models trained after a matched document's publication with
attempts by models trained before it: Welch's unequal-variance t interval for the
difference of two means, from per-group sufficient statistics.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa
from scipy import stats

from challenge_fairness.registry import UdfSpec

FloatArray = npt.NDArray[np.float64]

STATUS_TESTED = "tested"
STATUS_NOT_TESTABLE = "not_testable"

WELCH_DIFFERENCE_TYPE = pa.struct(
    [
        ("difference", pa.float64()),
        ("standard_error", pa.float64()),
        ("degrees_of_freedom", pa.float64()),
        ("t_statistic", pa.float64()),
        ("p_value", pa.float64()),
        ("ci_low", pa.float64()),
        ("ci_high", pa.float64()),
        ("status", pa.string()),
        ("reason", pa.string()),
    ]
)


@dataclass(frozen=True)
class WelchDifference:
    """Difference of two means with Welch's t interval, or why it is not computable."""

    difference: float | None
    standard_error: float | None
    degrees_of_freedom: float | None
    t_statistic: float | None
    p_value: float | None
    ci_low: float | None
    ci_high: float | None
    status: str
    reason: str | None


def _not_testable(reason: str, difference: float | None = None) -> WelchDifference:
    """A result without a test, saying why."""
    missing = (None,) * 6
    return WelchDifference(difference, *missing, status=STATUS_NOT_TESTABLE, reason=reason)


def welch_difference(
    n_a: float,
    mean_a: float,
    variance_a: float,
    n_b: float,
    mean_b: float,
    variance_b: float,
    alpha: float,
) -> WelchDifference:
    """mean_a - mean_b with Welch's t test and (1 - alpha) interval, from moments (ddof=1).

    t and p come from scipy.stats.ttest_ind_from_stats(equal_var=False); the degrees of
    freedom are Welch-Satterthwaite's, (v_a/n_a + v_b/n_b)^2 / ((v_a/n_a)^2/(n_a-1) +
    (v_b/n_b)^2/(n_b-1)), the ones scipy uses; the interval is difference +- t_{1-alpha/2,
    df} * SE (what scipy.stats.ttest_ind(equal_var=False).confidence_interval gives).
    """
    if not 0 < alpha < 1:
        return _not_testable("alpha must be in (0, 1)")
    if not (np.isfinite(n_a) and np.isfinite(n_b) and n_a >= 2 and n_b >= 2):
        difference = mean_a - mean_b
        return _not_testable(
            "each group needs at least two scored attempts",
            float(difference) if np.isfinite(difference) else None,
        )
    if not np.all(np.isfinite([mean_a, variance_a, mean_b, variance_b])):
        return _not_testable("a mean or variance is missing or not finite")
    difference = float(mean_a - mean_b)
    if variance_a < 0 or variance_b < 0:
        return _not_testable("a variance is negative", difference)
    term_a, term_b = variance_a / n_a, variance_b / n_b
    standard_error = float(np.sqrt(term_a + term_b))
    if standard_error == 0:
        return _not_testable("scores are constant in both groups", difference)
    degrees_of_freedom = float(
        (term_a + term_b) ** 2 / (term_a**2 / (n_a - 1) + term_b**2 / (n_b - 1))
    )
    test = stats.ttest_ind_from_stats(
        mean_a,
        np.sqrt(variance_a),
        n_a,
        mean_b,
        np.sqrt(variance_b),
        n_b,
        equal_var=False,
    )
    half_width = float(stats.t.ppf(1 - alpha / 2, degrees_of_freedom)) * standard_error
    return WelchDifference(
        difference=difference,
        standard_error=standard_error,
        degrees_of_freedom=degrees_of_freedom,
        t_statistic=float(test.statistic),
        p_value=float(test.pvalue),
        ci_low=difference - half_width,
        ci_high=difference + half_width,
        status=STATUS_TESTED,
        reason=None,
    )


def _column(array: pa.ChunkedArray | pa.Array) -> FloatArray:
    """Numeric arrow column as float64 numpy, NULL as NaN."""
    combined = array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array
    return np.asarray(combined.cast(pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64)


def welch_difference_arrow(
    n_a: pa.ChunkedArray,
    mean_a: pa.ChunkedArray,
    variance_a: pa.ChunkedArray,
    n_b: pa.ChunkedArray,
    mean_b: pa.ChunkedArray,
    variance_b: pa.ChunkedArray,
    alpha: pa.ChunkedArray,
) -> pa.StructArray:
    """cf_welch_difference(n_a, mean_a, var_a, n_b, mean_b, var_b, alpha), one row per
    contaminated challenge (a few rows: a Python loop over them is cheap)."""
    columns = [_column(c) for c in (n_a, mean_a, variance_a, n_b, mean_b, variance_b, alpha)]
    rows = range(len(columns[0]))
    results = [welch_difference(*(float(column[row]) for column in columns)) for row in rows]
    return pa.StructArray.from_arrays(
        [
            pa.array([getattr(r, name) for r in results], type=field.type)
            for name, field in zip(WELCH_DIFFERENCE_TYPE.names, WELCH_DIFFERENCE_TYPE, strict=True)
        ],
        fields=list(WELCH_DIFFERENCE_TYPE),
    )


UDFS: tuple[UdfSpec, ...] = (
    UdfSpec("cf_welch_difference", welch_difference_arrow, ("DOUBLE",) * 7, WELCH_DIFFERENCE_TYPE),
)
