"""Briefing-style (prompt format) sensitivity: does a family's score depend on the style?

A challenge *content* (template and variable combination) offered in several briefing
styles is a two-way layout of attempt scores, family x style. If the styles only shift
everyone (an easier format) the additive model family + style fits; if one family gains
or loses in one style, the family x style interaction does not vanish. The exact F test of
the interaction compares the full (cell means) model with the additive one, both fitted by
least squares on the attempts; both fits need only each cell's count, mean and within-cell
sum of squares (sufficient statistics computed in SQL):

    RSS_full = sum of within-cell SS                      df_resid = N - cells
    RSS_add  = RSS_full + sum_c n_c (mean_c - fit_c)^2    fit: weighted least squares of
                                                          the cell means on the additive
                                                          design, weights n_c
    F = ((RSS_add - RSS_full) / df_int) / (RSS_full / df_resid),  df_int = cells - rank

(the attempt-level residuals split orthogonally into within-cell and between-cell parts,
so both residual sums come from the cell statistics; unbalanced cells need no special
treatment, the comparison is of nested models). p = scipy.stats.f.sf. The test assumes
normal errors with one variance; with hundreds of attempts per content it is robust to
the skew of scores, less so to very unequal cell variances with unequal cell sizes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa
from scipy import stats

from challenge_fairness.registry import UdfSpec
from challenge_fairness.stats import zero_sd_resolution

FloatArray = npt.NDArray[np.float64]

STATUS_OK = "ok"
STATUS_NOT_TESTABLE = "not_testable"


@dataclass(frozen=True)
class NestedFTest:
    """F test of a reduced linear model against the cell-means model, or why not."""

    f_statistic: float | None
    df_numerator: int
    df_denominator: int
    p_value: float | None
    status: str
    reason: str | None


def nested_f_test(
    n: npt.ArrayLike,
    mean: npt.ArrayLike,
    within_ss: npt.ArrayLike,
    reduced_design: npt.ArrayLike,
) -> NestedFTest:
    """Exact F test of a reduced model (design rows = cells) against the cell-means model,
    from each cell's count, mean and within-cell sum of squared deviations."""
    n = np.asarray(n, dtype=np.float64)
    mean = np.asarray(mean, dtype=np.float64)
    within_ss = np.asarray(within_ss, dtype=np.float64)
    design = np.asarray(reduced_design, dtype=np.float64).reshape(n.size, -1)
    present = n > 0
    n, mean, within_ss, design = n[present], mean[present], within_ss[present], design[present]

    def not_testable(df_num: int, df_den: int, reason: str) -> NestedFTest:
        return NestedFTest(None, df_num, df_den, None, STATUS_NOT_TESTABLE, reason)

    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(within_ss))):
        return not_testable(0, 0, "a cell mean or sum of squares is missing or not finite")
    if np.any(within_ss < 0):
        return not_testable(0, 0, "a within-cell sum of squares is negative")
    if n.size == 0:
        return not_testable(0, 0, "no cells with attempts")
    weights = np.sqrt(n)
    coefficients, _, rank, _ = np.linalg.lstsq(
        design * weights[:, None], mean * weights, rcond=None
    )
    fitted = design @ coefficients
    df_numerator = int(n.size - rank)
    df_denominator = int(round(n.sum())) - n.size
    if df_numerator < 1:
        return not_testable(df_numerator, df_denominator, "the reduced model fits every cell")
    if df_denominator < 1:
        return not_testable(df_numerator, df_denominator, "no cell has two or more attempts")
    rss_full = float(within_ss.sum())
    extra = max(float(np.sum(n * (mean - fitted) ** 2)), 0.0)
    # No variation within cells, up to the rounding of means computed from counts (a
    # pooled mean an ulp off its cells' common constant score leaves about 1e-28).
    if rss_full <= float(zero_sd_resolution(mean).max()) ** 2 * n.sum():
        return not_testable(df_numerator, df_denominator, "no variation within cells")
    f_statistic = (extra / df_numerator) / (rss_full / df_denominator)
    p_value = float(stats.f.sf(f_statistic, df_numerator, df_denominator))
    return NestedFTest(f_statistic, df_numerator, df_denominator, p_value, STATUS_OK, None)


def additive_design(family_codes: npt.ArrayLike, style_codes: npt.ArrayLike) -> FloatArray:
    """Design matrix of the additive model: intercept, family dummies, style dummies
    (first level of each dropped)."""
    families = np.unique(np.asarray(family_codes), return_inverse=True)[1]
    styles = np.unique(np.asarray(style_codes), return_inverse=True)[1]
    columns = [np.ones(families.size)]
    columns += [(families == level).astype(np.float64) for level in range(1, families.max() + 1)]
    columns += [(styles == level).astype(np.float64) for level in range(1, styles.max() + 1)]
    return np.column_stack(columns)


def style_interaction_test(
    family_codes: npt.ArrayLike,
    style_codes: npt.ArrayLike,
    n: npt.ArrayLike,
    mean: npt.ArrayLike,
    within_ss: npt.ArrayLike,
) -> NestedFTest:
    """F test of the family x style interaction on one content's family x style cells."""
    family_codes = np.asarray(family_codes)
    style_codes = np.asarray(style_codes)
    n = np.asarray(n, dtype=np.float64)
    if not (family_codes.shape == style_codes.shape == n.shape == np.shape(mean)):
        raise ValueError("family_codes, style_codes, n, mean and within_ss must have one shape")
    present = n > 0
    if np.unique(family_codes[present]).size < 2:
        return NestedFTest(None, 0, 0, None, STATUS_NOT_TESTABLE, "fewer than two families")
    if np.unique(style_codes[present]).size < 2:
        return NestedFTest(None, 0, 0, None, STATUS_NOT_TESTABLE, "fewer than two styles")
    cells = np.stack([family_codes, style_codes], axis=1)[present]
    if np.unique(cells, axis=0).shape[0] != cells.shape[0]:
        raise ValueError("each (family, style) cell must appear once")
    design = additive_design(family_codes[present], style_codes[present])
    return nested_f_test(
        n[present],
        np.asarray(mean, dtype=np.float64)[present],
        np.asarray(within_ss, dtype=np.float64)[present],
        design,
    )


STYLE_INTERACTION_TYPE = pa.struct(
    [
        ("f_statistic", pa.float64()),
        ("df_interaction", pa.int64()),
        ("df_residual", pa.int64()),
        ("p_value", pa.float64()),
        ("status", pa.string()),
        ("reason", pa.string()),
    ]
)


def style_interaction_udf(
    families: pa.ChunkedArray,
    styles: pa.ChunkedArray,
    n: pa.ChunkedArray,
    means: pa.ChunkedArray,
    within_ss: pa.ChunkedArray,
) -> pa.StructArray:
    """cf_style_interaction_test(families, styles, n, means, within_ss) per content row."""
    results: list[dict[str, object] | None] = []
    # One content per row, a few dozen cells each: Python lists are fine here.
    rows = zip(
        *(column.to_pylist() for column in (families, styles, n, means, within_ss)), strict=True
    )
    for row in rows:
        if any(values is None for values in row):
            results.append(None)
            continue
        family_list, style_list, counts, cell_means, sums = row
        if any(value is None for values in row for value in values):
            results.append(
                {
                    "f_statistic": None,
                    "df_interaction": 0,
                    "df_residual": 0,
                    "p_value": None,
                    "status": STATUS_NOT_TESTABLE,
                    "reason": "a cell statistic is NULL",
                }
            )
            continue
        test = style_interaction_test(
            np.unique(np.asarray(family_list, dtype=object), return_inverse=True)[1],
            np.unique(np.asarray(style_list, dtype=object), return_inverse=True)[1],
            np.asarray(counts, dtype=np.float64),
            np.asarray(cell_means, dtype=np.float64),
            np.asarray(sums, dtype=np.float64),
        )
        results.append(
            {
                "f_statistic": test.f_statistic,
                "df_interaction": test.df_numerator,
                "df_residual": test.df_denominator,
                "p_value": test.p_value,
                "status": test.status,
                "reason": test.reason,
            }
        )
    return pa.array(results, type=STYLE_INTERACTION_TYPE)


UDFS: tuple[UdfSpec, ...] = (
    UdfSpec(
        "cf_style_interaction_test",
        style_interaction_udf,
        ("VARCHAR[]", "VARCHAR[]", "BIGINT[]", "DOUBLE[]", "DOUBLE[]"),
        STYLE_INTERACTION_TYPE,
    ),
)
