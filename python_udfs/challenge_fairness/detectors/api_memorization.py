"""API memorisation: do scores on ``api:<name>`` challenges rise with training cutoff more
than the same models' scores on untagged challenges?

Two stages (a difference-in-slopes with model fixed effects, estimated per challenge):

1. Per tagged challenge, a weighted least-squares line of the cells' *excess* residual on
   the model's training cutoff (years, centred), weights = the cells' scored attempts. A
   cell is (challenge, model); its residual is the cell mean minus the challenge's
   model-balanced mean (difficulty removed), and its excess is that residual minus the
   model's attempt-weighted residual on untagged challenges (the model's general strength,
   including the "newer models are stronger everywhere" trend). The slope of the excess is
   the challenge's memorisation slope in points per year; everything model-level cancels.
2. Per API, the equal-weight mean of its challenges' slopes (each challenge counts once),
   with the larger of two variances: the within-challenge (sampling) variance from the
   fits, and the between-challenge variance of the slopes (challenges as clusters,
   ``k - 1`` degrees of freedom; Donald & Lang 2007's two-step estimator). A t test and
   interval follow (scipy.stats.t).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from challenge_fairness.detectors._list_arguments import list_rows, scalar_floats
from challenge_fairness.registry import UdfSpec
from challenge_fairness.stats import STATUS_NOT_COMPUTABLE, STATUS_OK, contrast_test

VARIANCE_WITHIN = "within_challenges"
VARIANCE_BETWEEN = "between_challenges"


@dataclass(frozen=True)
class WeightedSlope:
    """Weighted least-squares line y = intercept + slope x, or why it is not computable."""

    slope: float | None
    intercept: float | None
    standard_error: float | None
    degrees_of_freedom: float | None
    points: int
    status: str
    reason: str | None


def weighted_slope(x: npt.ArrayLike, y: npt.ArrayLike, weights: npt.ArrayLike) -> WeightedSlope:
    """WLS fit of y on x (numpy.linalg.lstsq on sqrt(w)-scaled rows); SE from weighted residuals.

    The slope's variance is s^2 [(X'WX)^-1]_11 with s^2 = sum(w e^2) / (n - 2), the classical
    WLS estimate (weights proportional to inverse variances). Points with a missing value or
    a non-positive weight are dropped.
    """
    xs = np.asarray(x, dtype=np.float64)
    ys = np.asarray(y, dtype=np.float64)
    ws = np.asarray(weights, dtype=np.float64)
    if not (xs.shape == ys.shape == ws.shape):
        raise ValueError("x, y and weights must have the same length")
    keep = np.isfinite(xs) & np.isfinite(ys) & np.isfinite(ws) & (ws > 0)
    xs, ys, ws = xs[keep], ys[keep], ws[keep]
    n = int(xs.size)

    def not_computable(reason: str, slope: float | None = None) -> WeightedSlope:
        intercept = None
        if slope is not None:
            intercept = float(np.average(ys - slope * xs, weights=ws))
        return WeightedSlope(slope, intercept, None, None, n, STATUS_NOT_COMPUTABLE, reason)

    if n < 2:
        return not_computable("fewer than two models with a training cutoff and scored attempts")
    if np.ptp(xs) == 0:
        return not_computable("every model has the same training cutoff")
    root_w = np.sqrt(ws)
    design = np.column_stack([root_w, root_w * xs])
    coefficients, _, _, _ = np.linalg.lstsq(design, root_w * ys, rcond=None)
    intercept, slope = float(coefficients[0]), float(coefficients[1])
    if n < 3:
        return not_computable("two models only: no residual degrees of freedom", slope)
    residuals = root_w * ys - design @ coefficients
    spread = root_w * (ys - np.average(ys, weights=ws))
    # Rounding, relative to the points and absolute: residual scores within 1e-9 points of
    # the line (a weighted RMS) are no residual variance. The y are residuals of means
    # computed from counts: on a challenge every model scored 30.03 they are ulps (1e-15),
    # whose line had a standard error of the same size and a t near 1.
    rounding = (
        1e-20 * float(spread @ spread)
        + 1e-24 * float(np.sum(ws * ys**2))
        + (1e-9) ** 2 * float(np.sum(ws))
    )
    if float(residuals @ residuals) <= rounding:  # no residual variance, up to rounding
        return not_computable("the cells lie exactly on a line (no residual variance)", slope)
    residual_variance = float(residuals @ residuals) / (n - 2)
    covariance = residual_variance * np.linalg.inv(design.T @ design)
    standard_error = float(np.sqrt(covariance[1, 1]))
    return WeightedSlope(slope, intercept, standard_error, float(n - 2), n, STATUS_OK, None)


@dataclass(frozen=True)
class MeanOfEstimates:
    """Equal-weight mean of per-challenge estimates with a t test and interval."""

    estimate: float | None
    standard_error: float | None
    degrees_of_freedom: float | None
    variance_source: str | None
    t_statistic: float | None
    p_value: float | None
    ci_low: float | None
    ci_high: float | None
    components: int
    status: str
    reason: str | None


def welch_satterthwaite(variances: npt.ArrayLike, degrees_of_freedom: npt.ArrayLike) -> float:
    """Degrees of freedom of a sum of independent variance estimates (Satterthwaite 1946)."""
    v = np.asarray(variances, dtype=np.float64)
    df = np.asarray(degrees_of_freedom, dtype=np.float64)
    return float(np.sum(v) ** 2 / np.sum(v**2 / df))


def mean_of_estimates(
    estimates: npt.ArrayLike,
    standard_errors: npt.ArrayLike,
    degrees_of_freedom: npt.ArrayLike,
    alpha: float,
) -> MeanOfEstimates:
    """Mean of k estimates; variance the larger of within (sum se^2 / k^2, Satterthwaite df)
    and between (sample variance / k, k - 1 df); two-sided t test and (1 - alpha) interval.

    Estimates without a finite positive SE and df are left out.
    """
    b = np.asarray(estimates, dtype=np.float64)
    se = np.asarray(standard_errors, dtype=np.float64)
    df = np.asarray(degrees_of_freedom, dtype=np.float64)
    if not (b.shape == se.shape == df.shape):
        raise ValueError("estimates, standard_errors and degrees_of_freedom must match")
    keep = np.isfinite(b) & np.isfinite(se) & (se > 0) & np.isfinite(df) & (df > 0)
    b, se, df = b[keep], se[keep], df[keep]
    k = int(b.size)
    if k == 0 or not (np.isfinite(alpha) and 0 < alpha < 1):
        reason = "no tagged challenge with a computable slope" if k == 0 else "alpha not in (0, 1)"
        return MeanOfEstimates(
            None, None, None, None, None, None, None, None, k, STATUS_NOT_COMPUTABLE, reason
        )
    estimate = float(np.mean(b))
    within = float(np.sum(se**2)) / k**2
    variance, dof, source = within, welch_satterthwaite(se**2, df), VARIANCE_WITHIN
    if k >= 2:
        between = float(np.var(b, ddof=1)) / k
        if between > within:
            variance, dof, source = between, float(k - 1), VARIANCE_BETWEEN
    standard_error = float(np.sqrt(variance))
    test = contrast_test(estimate, standard_error, dof, alpha, 1)
    t_statistic, p_value = float(test.t_statistic), float(test.p_value)
    ci_low, ci_high = float(test.ci_low), float(test.ci_high)
    return MeanOfEstimates(
        estimate,
        standard_error,
        dof,
        source,
        t_statistic,
        p_value,
        ci_low,
        ci_high,
        k,
        STATUS_OK,
        None,
    )


# --- arrow adapters ------------------------------------------------------------------------

WEIGHTED_SLOPE_TYPE = pa.struct(
    [
        ("slope", pa.float64()),
        ("intercept", pa.float64()),
        ("standard_error", pa.float64()),
        ("degrees_of_freedom", pa.float64()),
        ("points", pa.int64()),
        ("status", pa.string()),
        ("reason", pa.string()),
    ]
)
MEAN_OF_ESTIMATES_TYPE = pa.struct(
    [
        ("estimate", pa.float64()),
        ("standard_error", pa.float64()),
        ("degrees_of_freedom", pa.float64()),
        ("variance_source", pa.string()),
        ("t_statistic", pa.float64()),
        ("p_value", pa.float64()),
        ("ci_low", pa.float64()),
        ("ci_high", pa.float64()),
        ("components", pa.int64()),
        ("status", pa.string()),
        ("reason", pa.string()),
    ]
)


def weighted_slope_udf(
    x: pa.ChunkedArray, y: pa.ChunkedArray, weights: pa.ChunkedArray
) -> pa.StructArray:
    """cf_weighted_slope(x DOUBLE[], y DOUBLE[], weights DOUBLE[]) per row."""
    results: list[dict[str, object] | None] = []
    for row in list_rows(x, y, weights):
        if row is None:
            results.append(None)
            continue
        fit = weighted_slope(*row)
        results.append({name: getattr(fit, name) for name in WEIGHTED_SLOPE_TYPE.names})
    return pa.array(results, type=WEIGHTED_SLOPE_TYPE)


def mean_of_estimates_udf(
    estimates: pa.ChunkedArray,
    standard_errors: pa.ChunkedArray,
    degrees_of_freedom: pa.ChunkedArray,
    alpha: pa.ChunkedArray,
) -> pa.StructArray:
    """cf_mean_of_estimates(estimates DOUBLE[], ses DOUBLE[], dfs DOUBLE[], alpha DOUBLE)."""
    alphas = scalar_floats(alpha)
    results: list[dict[str, object] | None] = []
    for row, lists in enumerate(list_rows(estimates, standard_errors, degrees_of_freedom)):
        if lists is None or np.isnan(alphas[row]):
            results.append(None)
            continue
        effect = mean_of_estimates(lists[0], lists[1], lists[2], float(alphas[row]))
        results.append({name: getattr(effect, name) for name in MEAN_OF_ESTIMATES_TYPE.names})
    return pa.array(results, type=MEAN_OF_ESTIMATES_TYPE)


UDFS: tuple[UdfSpec, ...] = (
    UdfSpec(
        "cf_weighted_slope",
        weighted_slope_udf,
        ("DOUBLE[]", "DOUBLE[]", "DOUBLE[]"),
        WEIGHTED_SLOPE_TYPE,
    ),
    UdfSpec(
        "cf_mean_of_estimates",
        mean_of_estimates_udf,
        ("DOUBLE[]", "DOUBLE[]", "DOUBLE[]", "DOUBLE"),
        MEAN_OF_ESTIMATES_TYPE,
    ),
)
