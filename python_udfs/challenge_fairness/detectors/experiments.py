"""A/B tests of challenge variants: arm A (original) against arm B (modified).

Three success criteria, each decided at level alpha with a (1 - 2 alpha) interval (the
interval of a one-sided decision, as in the TOST procedure):

* cross-family variance of family means drops by more than ``min_reduction``: the
  reduction 1 - var_B / var_A with a percentile bootstrap interval; attempts are resampled
  with replacement within each arm x family cell (a multinomial draw on the cell's
  distinct scores, which is the same thing for compressed scores), seeded;
* the overall mean moves by less than ``margin`` points: two one-sided Welch t tests
  (TOST, Schuirmann 1987) with ``scipy.stats.ttest_ind_from_stats``;
* discrimination does not fall by more than a margin: a non-inferiority (Wald) test of
  a_B - a_A from the IRT estimates and their standard errors.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa
from scipy import stats

from challenge_fairness.registry import UdfSpec
from challenge_fairness.stats import zero_sd_resolution

FloatArray = npt.NDArray[np.float64]

STATUS_OK = "ok"
STATUS_NOT_COMPUTABLE = "not_computable"


@dataclass(frozen=True)
class VarianceReduction:
    """Reduction of the cross-family variance of family means from arm A to arm B."""

    variance_a: float | None
    variance_b: float | None
    reduction: float | None
    ci_low: float | None
    ci_high: float | None
    families: int
    status: str
    reason: str | None


def family_mean_variance(means: FloatArray) -> FloatArray:
    """Sample variance (ddof=1) of family means along the last axis."""
    return np.asarray(np.var(means, axis=-1, ddof=1), dtype=np.float64)


def bootstrap_seed(seed: int, key: str) -> np.random.SeedSequence:
    """A seed per experiment: the run's seed and a stable hash (CRC-32) of its id."""
    return np.random.SeedSequence([int(seed) & 0xFFFFFFFF, zlib.crc32(key.encode("utf-8"))])


def variance_reduction(
    arm_codes: npt.ArrayLike,
    family_codes: npt.ArrayLike,
    values: npt.ArrayLike,
    counts: npt.ArrayLike,
    n_resamples: int,
    alpha: float,
    seed: np.random.SeedSequence | int,
) -> VarianceReduction:
    """1 - var_B / var_A of family means (families in both arms), percentile bootstrap
    (1 - 2 alpha) interval resampling attempts within arm x family.

    Compressed input: one row per (arm 0/1, family, distinct score) with its count.
    """
    arm_codes = np.asarray(arm_codes, dtype=np.int64)
    family_codes = np.asarray(family_codes, dtype=np.int64)
    values = np.asarray(values, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.int64)
    if not (arm_codes.shape == family_codes.shape == values.shape == counts.shape):
        raise ValueError("arm_codes, family_codes, values and counts must have one shape")
    if not 0 < alpha < 0.5:
        raise ValueError("alpha must be in (0, 0.5)")
    if n_resamples < 1:
        raise ValueError("n_resamples must be >= 1")
    present = counts > 0
    arm_codes, family_codes = arm_codes[present], family_codes[present]
    values, counts = values[present], counts[present]

    in_a = set(family_codes[arm_codes == 0].tolist())
    in_b = set(family_codes[arm_codes == 1].tolist())
    families = sorted(in_a & in_b)

    def not_computable(
        reason: str, var_a: float | None = None, var_b: float | None = None
    ) -> VarianceReduction:
        return VarianceReduction(
            var_a, var_b, None, None, None, len(families), STATUS_NOT_COMPUTABLE, reason
        )

    if not np.all(np.isfinite(values)):
        return not_computable("a score is NaN or infinite")
    if len(families) < 2:
        return not_computable("fewer than two families with attempts in both arms")

    rng = np.random.default_rng(seed)
    point = np.empty((2, len(families)))
    resampled = np.empty((2, n_resamples, len(families)))
    for arm in (0, 1):
        for column, family in enumerate(families):
            cell = (arm_codes == arm) & (family_codes == family)
            cell_values, cell_counts = values[cell], counts[cell]
            size = int(cell_counts.sum())
            point[arm, column] = cell_values @ cell_counts / size
            draws = rng.multinomial(size, cell_counts / size, size=n_resamples)
            resampled[arm, :, column] = draws @ cell_values / size
    # A variance of family means within the rounding of the means is zero: the means of
    # families that all scored 30.03, from counts, are an ulp apart (the reduction was
    # then 1 - 0 / 1e-30 = 1, a 'pass' of nothing).
    limit = float(zero_sd_resolution(point).max()) ** 2

    def variances(means: FloatArray) -> FloatArray:
        variance = family_mean_variance(means)
        return np.where(variance > limit, variance, 0.0)

    var_a, var_b = (float(v) for v in variances(point))
    if var_a <= 0:
        return not_computable("the family means of arm A are identical", var_a, var_b)
    boot_a, boot_b = variances(resampled[0]), variances(resampled[1])
    with np.errstate(divide="ignore", invalid="ignore"):
        boot = 1 - boot_b / boot_a
    # A resample whose arm-A family means coincide: no reduction if B's do too, else -inf.
    boot = np.where(boot_a > 0, boot, np.where(boot_b > 0, -np.inf, 0.0))
    low, high = np.quantile(boot, [alpha, 1 - alpha])
    return VarianceReduction(
        var_a,
        var_b,
        1 - var_b / var_a,
        float(low),
        float(high),
        len(families),
        STATUS_OK,
        None,
    )


@dataclass(frozen=True)
class EquivalenceTest:
    """Vectorised TOST of mean_b - mean_a within (-margin, margin), Welch."""

    difference: FloatArray
    ci_low: FloatArray
    ci_high: FloatArray
    degrees_of_freedom: FloatArray
    p_value_lower: FloatArray  # H0: difference <= -margin
    p_value_upper: FloatArray  # H0: difference >= +margin
    p_value: FloatArray  # TOST: the larger of the two


def equivalence_test(
    n_a: npt.ArrayLike,
    mean_a: npt.ArrayLike,
    variance_a: npt.ArrayLike,
    n_b: npt.ArrayLike,
    mean_b: npt.ArrayLike,
    variance_b: npt.ArrayLike,
    margin: npt.ArrayLike,
    alpha: npt.ArrayLike,
) -> EquivalenceTest:
    """Two one-sided Welch t tests (scipy.stats.ttest_ind_from_stats) of the shifted means
    and the (1 - 2 alpha) Welch interval of mean_b - mean_a; NaN where not computable
    (fewer than two attempts in an arm, or no variance in either: both arms constant, up
    to the rounding of means computed from counts, stats.zero_sd_resolution)."""
    n_a, n_b = np.asarray(n_a, dtype=np.float64), np.asarray(n_b, dtype=np.float64)
    mean_a, mean_b = np.asarray(mean_a, dtype=np.float64), np.asarray(mean_b, dtype=np.float64)
    var_a = np.asarray(variance_a, dtype=np.float64)
    var_b = np.asarray(variance_b, dtype=np.float64)
    margin = np.asarray(margin, dtype=np.float64)
    alpha = np.asarray(alpha, dtype=np.float64)
    valid = (n_a >= 2) & (n_b >= 2) & np.isfinite(mean_a) & np.isfinite(mean_b)
    valid &= np.isfinite(var_a) & np.isfinite(var_b) & (var_a >= 0) & (var_b >= 0)
    with np.errstate(invalid="ignore"):
        spread = np.sqrt(np.where(valid, var_a + var_b, 0.0))
    valid &= spread > zero_sd_resolution(mean_a, mean_b)
    valid &= np.isfinite(margin) & (margin >= 0)
    valid &= np.isfinite(alpha) & (alpha > 0) & (alpha < 0.5)
    shape = np.zeros(np.broadcast(n_a, mean_a, var_a, n_b, mean_b, var_b, margin, alpha).shape)

    def safe(x: FloatArray, fill: float) -> FloatArray:
        return np.where(valid, x, fill) + shape

    n_a, n_b = safe(n_a, 2.0), safe(n_b, 2.0)
    mean_a, mean_b = safe(mean_a, 0.0), safe(mean_b, 0.0)
    var_a, var_b = safe(var_a, 1.0), safe(var_b, 1.0)
    margin, alpha = safe(margin, 1.0), safe(alpha, 0.05)
    sd_a, sd_b = np.sqrt(var_a), np.sqrt(var_b)
    lower = stats.ttest_ind_from_stats(
        mean_b + margin, sd_b, n_b, mean_a, sd_a, n_a, equal_var=False, alternative="greater"
    )
    upper = stats.ttest_ind_from_stats(
        mean_b - margin, sd_b, n_b, mean_a, sd_a, n_a, equal_var=False, alternative="less"
    )
    share_a, share_b = var_a / n_a, var_b / n_b
    se = np.sqrt(share_a + share_b)
    df = (share_a + share_b) ** 2 / (share_a**2 / (n_a - 1) + share_b**2 / (n_b - 1))
    half_width = stats.t.ppf(1 - alpha, df) * se
    difference = mean_b - mean_a

    def out(x: npt.ArrayLike) -> FloatArray:
        return np.where(valid, np.asarray(x, dtype=np.float64), np.nan) + shape

    return EquivalenceTest(
        difference=out(difference),
        ci_low=out(difference - half_width),
        ci_high=out(difference + half_width),
        degrees_of_freedom=out(df),
        p_value_lower=out(lower.pvalue),
        p_value_upper=out(upper.pvalue),
        p_value=out(np.maximum(lower.pvalue, upper.pvalue)),
    )


@dataclass(frozen=True)
class NoninferiorityTest:
    """Vectorised Wald test of H0: difference <= -margin, with a (1 - 2 alpha) interval."""

    ci_low: FloatArray
    ci_high: FloatArray
    p_value: FloatArray


def noninferiority_test(
    difference: npt.ArrayLike,
    standard_error: npt.ArrayLike,
    margin: npt.ArrayLike,
    alpha: npt.ArrayLike,
) -> NoninferiorityTest:
    """Normal interval difference -/+ z(1 - alpha) se and p = P(Z > (difference + margin) / se);
    NaN where the standard error is missing or not positive."""
    difference = np.asarray(difference, dtype=np.float64)
    se = np.asarray(standard_error, dtype=np.float64)
    margin = np.asarray(margin, dtype=np.float64)
    alpha = np.asarray(alpha, dtype=np.float64)
    valid = np.isfinite(difference) & np.isfinite(se) & (se > 0) & np.isfinite(margin)
    valid &= np.isfinite(alpha) & (alpha > 0) & (alpha < 0.5)
    with np.errstate(invalid="ignore", divide="ignore"):
        half_width = stats.norm.ppf(1 - alpha) * se
        p = stats.norm.sf((difference + margin) / se)
    return NoninferiorityTest(
        ci_low=np.where(valid, difference - half_width, np.nan),
        ci_high=np.where(valid, difference + half_width, np.nan),
        p_value=np.where(valid, p, np.nan),
    )


VARIANCE_REDUCTION_TYPE = pa.struct(
    [
        ("variance_a", pa.float64()),
        ("variance_b", pa.float64()),
        ("reduction", pa.float64()),
        ("ci_low", pa.float64()),
        ("ci_high", pa.float64()),
        ("families", pa.int64()),
        ("status", pa.string()),
        ("reason", pa.string()),
    ]
)
EQUIVALENCE_TEST_TYPE = pa.struct(
    [
        (name, pa.float64())
        for name in (
            "difference",
            "ci_low",
            "ci_high",
            "degrees_of_freedom",
            "p_value_lower",
            "p_value_upper",
            "p_value",
        )
    ]
)
NONINFERIORITY_TEST_TYPE = pa.struct(
    [(name, pa.float64()) for name in ("ci_low", "ci_high", "p_value")]
)


def _numbers(column: pa.ChunkedArray) -> FloatArray:
    """A numeric column as float64 numpy, NULL as NaN."""
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    return np.asarray(array.cast(pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64)


def _float_column(values: FloatArray) -> pa.Array:
    """float64 arrow array with NaN as NULL."""
    return pa.array(values, type=pa.float64(), from_pandas=True)


def variance_reduction_udf(
    keys: pa.ChunkedArray,
    arms: pa.ChunkedArray,
    families: pa.ChunkedArray,
    values: pa.ChunkedArray,
    counts: pa.ChunkedArray,
    n_resamples: pa.ChunkedArray,
    alpha: pa.ChunkedArray,
    seed: pa.ChunkedArray,
) -> pa.StructArray:
    """cf_variance_reduction(experiment_id, arms ('A'/'B')[], families[], scores[], counts[],
    n_resamples, alpha, seed) per experiment row."""
    results: list[dict[str, object] | None] = []
    columns = [c.to_pylist() for c in (keys, arms, families, values, counts, n_resamples)]
    alphas, seeds = _numbers(alpha), _numbers(seed)
    for row, (key, arm_list, family_list, value_list, count_list, resamples) in enumerate(
        zip(*columns, strict=True)
    ):
        row_values = (key, arm_list, family_list, value_list, count_list, resamples)
        if any(v is None for v in row_values) or np.isnan(alphas[row]) or np.isnan(seeds[row]):
            results.append(None)
            continue
        if any(v is None for lst in (arm_list, family_list, value_list, count_list) for v in lst):
            raise ValueError("cf_variance_reduction: NULL inside a list")
        arm_codes = np.asarray([{"A": 0, "B": 1}[arm] for arm in arm_list], dtype=np.int64)
        family_codes = np.unique(np.asarray(family_list, dtype=object), return_inverse=True)[1]
        result = variance_reduction(
            arm_codes,
            family_codes,
            np.asarray(value_list, dtype=np.float64),
            np.asarray(count_list, dtype=np.int64),
            int(resamples),
            float(alphas[row]),
            bootstrap_seed(int(seeds[row]), str(key)),
        )
        results.append(
            {
                "variance_a": result.variance_a,
                "variance_b": result.variance_b,
                "reduction": result.reduction,
                "ci_low": result.ci_low,
                "ci_high": result.ci_high,
                "families": result.families,
                "status": result.status,
                "reason": result.reason,
            }
        )
    return pa.array(results, type=VARIANCE_REDUCTION_TYPE)


def equivalence_test_udf(
    n_a: pa.ChunkedArray,
    mean_a: pa.ChunkedArray,
    variance_a: pa.ChunkedArray,
    n_b: pa.ChunkedArray,
    mean_b: pa.ChunkedArray,
    variance_b: pa.ChunkedArray,
    margin: pa.ChunkedArray,
    alpha: pa.ChunkedArray,
) -> pa.StructArray:
    """cf_equivalence_test(n_a, mean_a, var_a, n_b, mean_b, var_b, margin, alpha) per row."""
    columns = (n_a, mean_a, variance_a, n_b, mean_b, variance_b, margin, alpha)
    result = equivalence_test(*(_numbers(column) for column in columns))
    return pa.StructArray.from_arrays(
        [_float_column(getattr(result, field.name)) for field in EQUIVALENCE_TEST_TYPE],
        fields=list(EQUIVALENCE_TEST_TYPE),
    )


def noninferiority_test_udf(
    difference: pa.ChunkedArray,
    standard_error: pa.ChunkedArray,
    margin: pa.ChunkedArray,
    alpha: pa.ChunkedArray,
) -> pa.StructArray:
    """cf_noninferiority_test(difference, standard_error, margin, alpha) per row."""
    columns = (difference, standard_error, margin, alpha)
    result = noninferiority_test(*(_numbers(column) for column in columns))
    return pa.StructArray.from_arrays(
        [_float_column(getattr(result, field.name)) for field in NONINFERIORITY_TEST_TYPE],
        fields=list(NONINFERIORITY_TEST_TYPE),
    )


UDFS: tuple[UdfSpec, ...] = (
    UdfSpec(
        "cf_variance_reduction",
        variance_reduction_udf,
        ("VARCHAR", "VARCHAR[]", "VARCHAR[]", "DOUBLE[]", "BIGINT[]", "BIGINT", "DOUBLE", "BIGINT"),
        VARIANCE_REDUCTION_TYPE,
    ),
    UdfSpec("cf_equivalence_test", equivalence_test_udf, ("DOUBLE",) * 8, EQUIVALENCE_TEST_TYPE),
    UdfSpec(
        "cf_noninferiority_test",
        noninferiority_test_udf,
        ("DOUBLE",) * 4,
        NONINFERIORITY_TEST_TYPE,
    ),
)
