"""Remedies for variable combinations: equivalence pools and their equivalence tests.

* ``greedy_pools``: the exact 1-D grouping of a template's measured combination
  difficulties into pools whose span (max - min) is at most a tolerance. Greedy from the
  easiest: a pool starts at the easiest combination not yet pooled and takes every
  combination within ``tolerance`` below it. For points on a line this greedy cover is
  optimal in the number of pools (the classic interval-point-cover exchange argument).
* ``equivalence_to_centre``: TOST (two one-sided t tests, Schuirmann 1987) of an estimate
  with a standard error and degrees of freedom against a symmetric margin, with the
  (1 - 2 alpha) interval whose inclusion in (-margin, margin) is the same decision;
  quantiles and tails from ``scipy.stats.t``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa
from scipy import stats

from challenge_fairness.registry import UdfSpec
from challenge_fairness.udfs import flat_list, float_numpy

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

NOT_POOLED = 0


def greedy_pools(difficulties: npt.ArrayLike, tolerance: float) -> IntArray:
    """Pool number per difficulty (1 = easiest pool), each pool spanning <= tolerance; NaN -> 0."""
    values = np.asarray(difficulties, dtype=np.float64)
    pools = np.full(values.shape, NOT_POOLED, dtype=np.int64)
    if not np.isfinite(tolerance) or tolerance < 0:
        return pools
    finite = np.flatnonzero(np.isfinite(values))
    order = finite[np.argsort(-values[finite], kind="stable")]
    pool = 0
    start = np.inf
    for position in order:
        if pool == 0 or start - values[position] > tolerance:
            pool += 1
            start = values[position]
        pools[position] = pool
    return pools


@dataclass(frozen=True)
class EquivalenceTest:
    """TOST of estimates within (-margin, margin), vectorised; NaN where not computable."""

    ci_low: FloatArray
    ci_high: FloatArray
    p_value_lower: FloatArray  # H0: estimate <= -margin
    p_value_upper: FloatArray  # H0: estimate >= +margin
    p_value: FloatArray  # TOST: the larger of the two


def equivalence_to_centre(
    estimate: npt.ArrayLike,
    standard_error: npt.ArrayLike,
    degrees_of_freedom: npt.ArrayLike,
    margin: npt.ArrayLike,
    alpha: npt.ArrayLike,
) -> EquivalenceTest:
    """Two one-sided t tests of |estimate| < margin and the (1 - 2 alpha) t interval."""
    estimate = np.asarray(estimate, dtype=np.float64)
    se = np.asarray(standard_error, dtype=np.float64)
    df = np.asarray(degrees_of_freedom, dtype=np.float64)
    margin = np.asarray(margin, dtype=np.float64)
    alpha = np.asarray(alpha, dtype=np.float64)
    shape = np.zeros(np.broadcast(estimate, se, df, margin, alpha).shape)
    valid = np.isfinite(estimate) & np.isfinite(se) & (se > 0) & np.isfinite(df) & (df > 0)
    valid &= np.isfinite(margin) & (margin >= 0) & np.isfinite(alpha) & (alpha > 0) & (alpha < 0.5)
    valid = valid | np.zeros(shape.shape, dtype=bool)

    def safe(x: FloatArray, fill: float) -> FloatArray:
        return np.where(valid, x, fill) + shape

    estimate, se, df = safe(estimate, 0.0), safe(se, 1.0), safe(df, 1.0)
    margin, alpha = safe(margin, 1.0), safe(alpha, 0.05)
    p_lower = stats.t.sf((estimate + margin) / se, df)
    p_upper = stats.t.cdf((estimate - margin) / se, df)
    half_width = stats.t.ppf(1 - alpha, df) * se

    def out(x: FloatArray) -> FloatArray:
        return np.where(valid, x, np.nan) + shape

    return EquivalenceTest(
        ci_low=out(estimate - half_width),
        ci_high=out(estimate + half_width),
        p_value_lower=out(p_lower),
        p_value_upper=out(p_upper),
        p_value=out(np.maximum(p_lower, p_upper)),
    )


EQUIVALENCE_TO_CENTRE_TYPE = pa.struct(
    [(name, pa.float64()) for name in EquivalenceTest.__dataclass_fields__]
)


def greedy_pools_udf(difficulties: pa.ChunkedArray, tolerance: pa.ChunkedArray) -> pa.ListArray:
    """cf_equivalence_pools(difficulties DOUBLE[], tolerance DOUBLE): pool numbers per row."""
    flat, offsets, null_rows = flat_list(difficulties)
    values = float_numpy(flat)
    tolerances = float_numpy(tolerance.combine_chunks())
    results: list[list[int | None] | None] = []
    for row, (start, stop) in enumerate(zip(offsets[:-1], offsets[1:], strict=True)):
        if null_rows[row] or np.isnan(tolerances[row]):
            results.append(None)
            continue
        pools = greedy_pools(values[start:stop], float(tolerances[row]))
        results.append([int(p) if p != NOT_POOLED else None for p in pools])
    return pa.array(results, type=pa.list_(pa.int64()))


def equivalence_to_centre_udf(
    estimate: pa.ChunkedArray,
    standard_error: pa.ChunkedArray,
    degrees_of_freedom: pa.ChunkedArray,
    margin: pa.ChunkedArray,
    alpha: pa.ChunkedArray,
) -> pa.StructArray:
    """cf_equivalence_to_centre(estimate, se, df, margin, alpha), vectorised over rows."""
    columns = (estimate, standard_error, degrees_of_freedom, margin, alpha)
    result = equivalence_to_centre(*(float_numpy(column.combine_chunks()) for column in columns))
    return pa.StructArray.from_arrays(
        [
            pa.array(getattr(result, field.name), type=pa.float64(), from_pandas=True)
            for field in EQUIVALENCE_TO_CENTRE_TYPE
        ],
        fields=list(EQUIVALENCE_TO_CENTRE_TYPE),
    )


UDFS: tuple[UdfSpec, ...] = (
    UdfSpec("cf_equivalence_pools", greedy_pools_udf, ("DOUBLE[]", "DOUBLE"), pa.list_(pa.int64())),
    UdfSpec(
        "cf_equivalence_to_centre",
        equivalence_to_centre_udf,
        ("DOUBLE",) * 5,
        EQUIVALENCE_TO_CENTRE_TYPE,
    ),
)
