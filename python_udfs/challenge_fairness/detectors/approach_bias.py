"""Approach bias: the score gap between two solution approaches among comparable attempts.

Attempts are compared within strata (the model family of the attempting agent): families
choose approaches at different rates and differ in skill, so a plain difference of means
mixes the two. The stratum differences are combined with Mantel-Haenszel-type weights
w = n_a n_b / (n_a + n_b) (Mantel & Haenszel 1959; for a difference of means these are the
inverse-variance weights under one common variance, and they depend on the sizes only, so
a small stratum with a lucky small variance cannot dominate). Each stratum's difference
has the Welch variance s_a^2 / n_a + s_b^2 / n_b, the combination's degrees of freedom
come from Welch-Satterthwaite, and the test is a two-sided t test (scipy.stats.t).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from challenge_fairness.detectors._list_arguments import list_rows, scalar_floats
from challenge_fairness.detectors.api_memorization import welch_satterthwaite
from challenge_fairness.registry import UdfSpec
from challenge_fairness.stats import STATUS_NOT_COMPUTABLE, STATUS_OK, contrast_test


@dataclass(frozen=True)
class StratifiedDifference:
    """Weighted mean difference (a - b) over strata, with its t test and interval."""

    difference: float | None
    standard_error: float | None
    degrees_of_freedom: float | None
    t_statistic: float | None
    p_value: float | None
    ci_low: float | None
    ci_high: float | None
    strata: int
    attempts_a: int
    attempts_b: int
    status: str
    reason: str | None


def stratified_mean_difference(
    n_a: npt.ArrayLike,
    mean_a: npt.ArrayLike,
    var_a: npt.ArrayLike,
    n_b: npt.ArrayLike,
    mean_b: npt.ArrayLike,
    var_b: npt.ArrayLike,
    alpha: float,
) -> StratifiedDifference:
    """Mantel-Haenszel-weighted mean of the strata's differences mean_a - mean_b.

    Strata need at least two attempts on each side (a Welch variance); the others are left
    out. Var(D) = sum (w / W)^2 (s_a^2 / n_a + s_b^2 / n_b); df by Welch-Satterthwaite over
    the 2K variance components (n - 1 df each).
    """
    arrays = [np.asarray(a, dtype=np.float64) for a in (n_a, mean_a, var_a, n_b, mean_b, var_b)]
    if len({a.shape for a in arrays}) != 1:
        raise ValueError("every stratum argument must have the same length")
    na, ma, va, nb, mb, vb = arrays
    keep = (na >= 2) & (nb >= 2)
    keep &= np.isfinite(ma) & np.isfinite(mb) & np.isfinite(va) & np.isfinite(vb)
    keep &= (va >= 0) & (vb >= 0)
    na, ma, va, nb, mb, vb = (a[keep] for a in (na, ma, va, nb, mb, vb))
    strata = int(na.size)
    used_a, used_b = int(na.sum()), int(nb.sum())

    def not_computable(reason: str, difference: float | None = None) -> StratifiedDifference:
        return StratifiedDifference(
            difference,
            None,
            None,
            None,
            None,
            None,
            None,
            strata,
            used_a,
            used_b,
            STATUS_NOT_COMPUTABLE,
            reason,
        )

    if strata == 0:
        return not_computable("no model family has two or more scored attempts on each approach")
    if not (np.isfinite(alpha) and 0 < alpha < 1):
        return not_computable("alpha not in (0, 1)")
    weights = na * nb / (na + nb)
    shares = weights / weights.sum()
    difference = float(np.sum(shares * (ma - mb)))
    components = np.concatenate([shares**2 * va / na, shares**2 * vb / nb])
    component_df = np.concatenate([na - 1, nb - 1])
    variance = float(components.sum())
    if not variance > 0:
        return not_computable(
            "scores are constant within every family on both approaches", difference
        )
    positive = components > 0
    dof = welch_satterthwaite(components[positive], component_df[positive])
    standard_error = float(np.sqrt(variance))
    test = contrast_test(difference, standard_error, dof, alpha, 1)
    t_statistic, p_value = float(test.t_statistic), float(test.p_value)
    ci_low, ci_high = float(test.ci_low), float(test.ci_high)
    return StratifiedDifference(
        difference,
        standard_error,
        dof,
        t_statistic,
        p_value,
        ci_low,
        ci_high,
        strata,
        used_a,
        used_b,
        STATUS_OK,
        None,
    )


# --- arrow adapter -------------------------------------------------------------------------

STRATIFIED_DIFFERENCE_TYPE = pa.struct(
    [
        ("difference", pa.float64()),
        ("standard_error", pa.float64()),
        ("degrees_of_freedom", pa.float64()),
        ("t_statistic", pa.float64()),
        ("p_value", pa.float64()),
        ("ci_low", pa.float64()),
        ("ci_high", pa.float64()),
        ("strata", pa.int64()),
        ("attempts_a", pa.int64()),
        ("attempts_b", pa.int64()),
        ("status", pa.string()),
        ("reason", pa.string()),
    ]
)


def stratified_mean_difference_udf(
    n_a: pa.ChunkedArray,
    mean_a: pa.ChunkedArray,
    var_a: pa.ChunkedArray,
    n_b: pa.ChunkedArray,
    mean_b: pa.ChunkedArray,
    var_b: pa.ChunkedArray,
    alpha: pa.ChunkedArray,
) -> pa.StructArray:
    """cf_stratified_mean_difference(n_a[], mean_a[], var_a[], n_b[], mean_b[], var_b[], alpha)."""
    alphas = scalar_floats(alpha)
    results: list[dict[str, object] | None] = []
    for row, lists in enumerate(list_rows(n_a, mean_a, var_a, n_b, mean_b, var_b)):
        if lists is None or np.isnan(alphas[row]):
            results.append(None)
            continue
        n_a_, mean_a_, var_a_, n_b_, mean_b_, var_b_ = lists
        result = stratified_mean_difference(
            n_a_, mean_a_, var_a_, n_b_, mean_b_, var_b_, float(alphas[row])
        )
        results.append({name: getattr(result, name) for name in STRATIFIED_DIFFERENCE_TYPE.names})
    return pa.array(results, type=STRATIFIED_DIFFERENCE_TYPE)


UDFS: tuple[UdfSpec, ...] = (
    UdfSpec(
        "cf_stratified_mean_difference",
        stratified_mean_difference_udf,
        ("DOUBLE[]",) * 6 + ("DOUBLE",),
        STRATIFIED_DIFFERENCE_TYPE,
    ),
)
