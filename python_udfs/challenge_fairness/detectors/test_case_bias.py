"""Implementation-specific test cases: Mantel-Haenszel DIF of test cases by model family.

A test case that checks names or formats rather than behaviour is passed at different rates
by families whose attempts are equally good overall. Differential item functioning (DIF)
asks exactly that: among attempts in the same overall-score band, does the pass rate of the
test case depend on the family?

* Per test case, the generalised Cochran-Mantel-Haenszel statistic for the K x 2 x S table
  (families x passed/failed x score bands), general association, df = K - 1
  (Landis, Heyman & Koch 1978).
* Per (test case, family), that family (focal) against the other families pooled
  (reference; a family with large DIF is purified out of the others' reference): the
  Mantel-Haenszel common odds ratio (Mantel & Haenszel 1959), MH D-DIF = -2.35 ln(alpha_MH)
  with the Robins-Breslow-Greenland (1986) variance (equal to Phillips & Holland 1987), the
  continuity-corrected MH chi-square (Holland & Thayer 1988), and the ETS A/B/C class,
  whose "significantly greater than 1" uses the interval-null test of Paek & Holland (2015).

scipy has no Cochran-Mantel-Haenszel: the statistics are written from the published
formulas; scipy supplies the distributions (chi2, norm).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
from scipy import stats

from challenge_fairness.registry import UdfSpec
from challenge_fairness.udfs import label_codes

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
ObjectArray = npt.NDArray[np.object_]

STATUS_OK = "ok"
STATUS_NOT_COMPUTABLE = "not_computable"
DELTA_SCALE = -2.35  # ETS delta metric: D-DIF = -2.35 ln(alpha_MH) (Holland & Thayer 1988)
HALDANE_CORRECTION = 0.5
EIGENVALUE_TOLERANCE = 1e-10  # relative to the largest eigenvalue of the GCMH covariance


@dataclass(frozen=True)
class StratifiedTable:
    """Counts of a K x 2 x S table: passes and results per (family, stratum)."""

    passes: FloatArray  # K x S
    totals: FloatArray  # K x S


def stratified_table(
    family_codes: IntArray,
    strata: IntArray,
    passes: IntArray,
    failures: IntArray,
    families: int | None = None,
) -> tuple[StratifiedTable, IntArray]:
    """Sum (family, stratum, passes, failures) rows into K x S arrays; also the stratum labels."""
    family_codes = np.asarray(family_codes, dtype=np.int64)
    strata = np.asarray(strata, dtype=np.int64)
    passes = np.asarray(passes, dtype=np.float64)
    failures = np.asarray(failures, dtype=np.float64)
    if not (family_codes.shape == strata.shape == passes.shape == failures.shape):
        raise ValueError("family_codes, strata, passes and failures must have the same length")
    if np.any(passes < 0) or np.any(failures < 0):
        raise ValueError("counts must be non-negative")
    labels, stratum_codes = np.unique(strata, return_inverse=True)
    k = int(
        families if families is not None else (family_codes.max() + 1 if family_codes.size else 0)
    )
    table_passes = np.zeros((k, labels.size))
    table_totals = np.zeros((k, labels.size))
    np.add.at(table_passes, (family_codes, stratum_codes), passes)
    np.add.at(table_totals, (family_codes, stratum_codes), passes + failures)
    return StratifiedTable(table_passes, table_totals), labels


@dataclass(frozen=True)
class GeneralizedCmh:
    """Generalised CMH test of general association for a K x 2 x S table."""

    statistic: float | None
    degrees_of_freedom: int | None
    p_value: float | None
    informative_strata: int
    status: str
    reason: str | None


def generalized_cmh(table: StratifiedTable) -> GeneralizedCmh:
    """Q = (O - E)' V^- (O - E) over the K families' passes (Landis, Heyman & Koch 1978).

    Per stratum s with n_s >= 2 results, m_s passes: E_k = sum_s n_ks m_s / n_s and
    V_kl = sum_s m_s (n_s - m_s) n_ks (n_s [k = l] - n_ls) / (n_s^2 (n_s - 1)). V has rank
    at most K - 1 (rows sum to zero); Q uses its Moore-Penrose inverse and df = rank(V),
    which is K - 1 unless a family never meets another family in a band with both outcomes.
    """
    passes, totals = table.passes, table.totals
    families = int(np.sum(totals.sum(axis=1) > 0))
    stratum_totals = totals.sum(axis=0)
    stratum_passes = passes.sum(axis=0)
    used = stratum_totals >= 2
    informative = used & (stratum_passes > 0) & (stratum_passes < stratum_totals)
    informative &= np.sum(totals > 0, axis=0) >= 2
    n_informative = int(informative.sum())

    def not_computable(reason: str) -> GeneralizedCmh:
        return GeneralizedCmh(None, None, None, n_informative, STATUS_NOT_COMPUTABLE, reason)

    if families < 2:
        return not_computable("fewer than two families with results")
    if n_informative == 0:
        return not_computable("no score band holds two families and both passed and failed results")
    n = stratum_totals[used]
    m = stratum_passes[used]
    counts = totals[:, used]
    observed = passes[:, used].sum(axis=1)
    expected = counts @ (m / n)
    weights = m * (n - m) / (n**2 * (n - 1))
    covariance = np.diag(counts @ (weights * n)) - (counts * weights) @ counts.T
    eigenvalues, eigenvectors = np.linalg.eigh(covariance)
    keep = eigenvalues > eigenvalues.max() * EIGENVALUE_TOLERANCE
    projected = eigenvectors[:, keep].T @ (observed - expected)
    statistic = float(np.sum(projected**2 / eigenvalues[keep]))
    df = int(keep.sum())
    p_value = float(stats.chi2.sf(statistic, df))
    return GeneralizedCmh(statistic, df, p_value, n_informative, STATUS_OK, None)


@dataclass(frozen=True)
class MantelHaenszelDif:
    """Each family (focal) against the other families (reference), vectorised over families."""

    reference_results: FloatArray
    reference_passes: FloatArray
    is_excluded_from_reference: npt.NDArray[np.bool_]  # ETS C: left out of the others' reference
    informative_strata: IntArray
    common_odds_ratio: FloatArray  # > 1: the reference passes more often (Holland & Thayer)
    d_dif: FloatArray
    d_dif_se: FloatArray
    d_dif_ci_low: FloatArray
    d_dif_ci_high: FloatArray
    chi_square: FloatArray
    p_value: FloatArray
    p_value_beyond_negligible: FloatArray
    is_continuity_corrected: npt.NDArray[np.bool_]
    ets_class: ObjectArray
    direction: ObjectArray
    status: ObjectArray
    reason: ObjectArray


def ets_classification(
    d_dif: npt.ArrayLike,
    p_value: npt.ArrayLike,
    p_value_beyond_negligible: npt.ArrayLike,
    alpha: float,
    negligible: float = 1.0,
    large: float = 1.5,
) -> ObjectArray:
    """ETS DIF class: A (|D| < negligible or D not significant), C (|D| >= large and
    significantly beyond negligible), else B; None where D-DIF is missing."""
    d = np.asarray(d_dif, dtype=np.float64)
    p = np.asarray(p_value, dtype=np.float64)
    p_beyond = np.asarray(p_value_beyond_negligible, dtype=np.float64)
    classes = np.full(d.shape, None, dtype=object)
    known = np.isfinite(d) & np.isfinite(p)
    with np.errstate(invalid="ignore"):
        class_a = known & ((np.abs(d) < negligible) | ~(p < alpha))
        class_c = known & ~class_a & (np.abs(d) >= large) & (p_beyond < alpha)
    classes[known] = "B"
    classes[class_a] = "A"
    classes[class_c] = "C"
    return classes


def p_value_beyond_negligible(
    d_dif: npt.ArrayLike, d_dif_se: npt.ArrayLike, negligible: float
) -> FloatArray:
    """p of H0: |D-DIF| <= negligible (Paek & Holland 2015): under the boundary D ~
    N(negligible, se^2), P(|D| >= observed) = ncx2.sf((D / se)^2, 1, (negligible / se)^2),
    computed as the two normal tails (stable where ncx2 overflows)."""
    size = np.abs(np.asarray(d_dif, dtype=np.float64))
    se = np.asarray(d_dif_se, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        tails = stats.norm.sf((size - negligible) / se) + stats.norm.sf((size + negligible) / se)
    return np.asarray(np.minimum(tails, 1.0), dtype=np.float64)


def mantel_haenszel_dif(
    table: StratifiedTable,
    alpha: float,
    negligible: float = 1.0,
    large: float = 1.5,
    purify: bool = True,
) -> MantelHaenszelDif:
    """MH DIF of every family against the other families, with a purified reference.

    One family with large DIF drags the pooled reference of every other family with it, so
    they look like DIF in the opposite direction (its mirror image). Purification (a group
    analogue of Holland & Thayer's two-stage procedure), one family at a time: the ETS C
    family with the largest |D-DIF| not yet excluded is left out of the other families'
    reference and all families are reclassified; repeated until no family outside the
    excluded set is C (at most K rounds). An excluded family's own reference is the
    families not excluded; a family left without any reference keeps all others.
    """
    families = table.passes.shape[0]
    excluded = np.zeros(families, dtype=bool)
    result = _mantel_haenszel_against(table, excluded, alpha, negligible, large)
    for _ in range(families if purify else 0):
        candidates = (result.ets_class == "C") & ~excluded
        if not candidates.any():
            break
        size = np.where(candidates, np.abs(result.d_dif), -np.inf)
        excluded = excluded.copy()
        excluded[int(np.argmax(size))] = True
        result = _mantel_haenszel_against(table, excluded, alpha, negligible, large)
    return result


def _mantel_haenszel_against(
    table: StratifiedTable,
    excluded: npt.NDArray[np.bool_],
    alpha: float,
    negligible: float,
    large: float,
) -> MantelHaenszelDif:
    """MH common odds ratio, D-DIF, its SE, MH chi-square and ETS class for every family
    against the other families not `excluded` (all others where that leaves none).

    Per stratum s: A = reference passes, B = reference failures, C = focal passes,
    D = focal failures, T = A + B + C + D. alpha_MH = sum(A D / T) / sum(B C / T); D-DIF =
    -2.35 ln(alpha_MH) (negative: the test case is harder for the focal family than for
    equally scored others). Var(ln alpha_MH) (Robins, Breslow & Greenland 1986) =
    sum(P R) / (2 R+^2) + sum(P S + Q R) / (2 R+ S+) + sum(Q S) / (2 S+^2), with
    P = (A + D) / T, Q = (B + C) / T, R = A D / T, S = B C / T. MH chi-square =
    max(|sum A - sum E(A)| - 0.5, 0)^2 / sum Var(A) with the hypergeometric moments.
    When R+ or S+ is 0 (the estimate would be 0 or infinite) 0.5 is added to each cell of
    the informative strata (Haldane-Anscombe) for the estimate and its SE only.
    """
    if not 0 < alpha < 1:
        raise ValueError("alpha must be in (0, 1)")
    if not 0 <= negligible <= large:
        raise ValueError("need 0 <= negligible <= large")
    focal_passes, focal_totals = table.passes, table.totals
    kept = ~excluded[:, None]
    reference_passes = (focal_passes * kept).sum(axis=0) - focal_passes * kept
    reference_totals = (focal_totals * kept).sum(axis=0) - focal_totals * kept
    no_reference = reference_totals.sum(axis=1) == 0
    reference_passes[no_reference] = (focal_passes.sum(axis=0) - focal_passes)[no_reference]
    reference_totals[no_reference] = (focal_totals.sum(axis=0) - focal_totals)[no_reference]
    a = reference_passes
    b = reference_totals - reference_passes
    c = focal_passes
    d = focal_totals - focal_passes
    t = a + b + c + d
    passes_total = a + c
    informative = (focal_totals > 0) & (reference_totals > 0) & (passes_total > 0)
    informative &= passes_total < t
    n_informative = informative.sum(axis=1)

    with np.errstate(invalid="ignore", divide="ignore"):
        expected_a = np.where(informative, reference_totals * passes_total / t, 0.0)
        variance_a = np.where(
            informative,
            reference_totals * focal_totals * passes_total * (t - passes_total) / (t**2 * (t - 1)),
            0.0,
        )
        deviation = np.abs(np.sum(np.where(informative, a, 0.0) - expected_a, axis=1))
        variance_sum = variance_a.sum(axis=1)
        chi_square = np.maximum(deviation - 0.5, 0.0) ** 2 / variance_sum
        chi_square = np.where(n_informative > 0, chi_square, np.nan)
        p_value = stats.chi2.sf(chi_square, 1)

        r_sum = np.sum(np.where(informative, a * d / t, 0.0), axis=1)
        s_sum = np.sum(np.where(informative, b * c / t, 0.0), axis=1)
        corrected = (n_informative > 0) & ((r_sum == 0) | (s_sum == 0))
        shift = np.where(corrected[:, None] & informative, HALDANE_CORRECTION, 0.0)
        a, b, c, d = a + shift, b + shift, c + shift, d + shift
        t = a + b + c + d
        r = np.where(informative, a * d / t, 0.0)
        s = np.where(informative, b * c / t, 0.0)
        p = np.where(informative, (a + d) / t, 0.0)
        q = np.where(informative, (b + c) / t, 0.0)
        r_sum, s_sum = r.sum(axis=1), s.sum(axis=1)
        odds_ratio = np.where(n_informative > 0, r_sum / s_sum, np.nan)
        log_variance = (
            np.sum(p * r, axis=1) / (2 * r_sum**2)
            + np.sum(p * s + q * r, axis=1) / (2 * r_sum * s_sum)
            + np.sum(q * s, axis=1) / (2 * s_sum**2)
        )
        d_dif = DELTA_SCALE * np.log(odds_ratio)
        d_dif_se = np.where(n_informative > 0, abs(DELTA_SCALE) * np.sqrt(log_variance), np.nan)
        half_width = stats.norm.ppf(1 - alpha / 2) * d_dif_se
        p_beyond = p_value_beyond_negligible(d_dif, d_dif_se, negligible)

    ets = ets_classification(d_dif, p_value, p_beyond, alpha, negligible, large)
    direction = np.where(d_dif > 0, "advantage", np.where(d_dif < 0, "disadvantage", "none"))
    direction = direction.astype(object)
    direction[~np.isfinite(d_dif)] = None
    has_results = focal_totals.sum(axis=1) > 0
    status = np.where(n_informative > 0, STATUS_OK, STATUS_NOT_COMPUTABLE).astype(object)
    reason = np.full(status.shape, None, dtype=object)
    reason[corrected] = (
        "the uncorrected odds ratio is 0 or infinite (no discordant results on one side): "
        "0.5 added to every cell of the informative bands (Haldane-Anscombe)"
    )
    reason[n_informative == 0] = (
        "no score band holds this family and the others with both passed and failed results"
    )
    reason[~has_results] = "no results of this family"
    return MantelHaenszelDif(
        reference_results=reference_totals.sum(axis=1),
        reference_passes=reference_passes.sum(axis=1),
        is_excluded_from_reference=excluded.copy(),
        informative_strata=n_informative.astype(np.int64),
        common_odds_ratio=odds_ratio,
        d_dif=d_dif,
        d_dif_se=d_dif_se,
        d_dif_ci_low=d_dif - half_width,
        d_dif_ci_high=d_dif + half_width,
        chi_square=chi_square,
        p_value=p_value,
        p_value_beyond_negligible=p_beyond,
        is_continuity_corrected=corrected,
        ets_class=ets,
        direction=direction,
        status=status,
        reason=reason,
    )


# --- arrow adapter --------------------------------------------------------------------------

FAMILY_DIF_TYPE = pa.struct(
    [
        ("model_family", pa.string()),
        ("reference_results", pa.int64()),
        ("reference_passes", pa.int64()),
        ("is_excluded_from_reference", pa.bool_()),
        ("informative_bands", pa.int64()),
        ("common_odds_ratio", pa.float64()),
        ("d_dif", pa.float64()),
        ("d_dif_se", pa.float64()),
        ("d_dif_ci_low", pa.float64()),
        ("d_dif_ci_high", pa.float64()),
        ("mh_chi_square", pa.float64()),
        ("mh_p_value", pa.float64()),
        ("p_value_beyond_negligible", pa.float64()),
        ("is_continuity_corrected", pa.bool_()),
        ("ets_class", pa.string()),
        ("direction", pa.string()),
        ("status", pa.string()),
        ("reason", pa.string()),
    ]
)
TEST_CASE_DIF_TYPE = pa.struct(
    [
        ("gcmh_statistic", pa.float64()),
        ("gcmh_df", pa.int64()),
        ("gcmh_p_value", pa.float64()),
        ("informative_bands", pa.int64()),
        ("status", pa.string()),
        ("reason", pa.string()),
        ("families", pa.list_(FAMILY_DIF_TYPE)),
    ]
)


def _finite_or_none(value: float) -> float | None:
    """A float for arrow, None when NaN or infinite."""
    return float(value) if np.isfinite(value) else None


def _list_rows(column: pa.ChunkedArray) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """Flatten a list column: (flat values, row offsets, row is-null mask)."""
    array = column.combine_chunks()
    lengths = pc.fill_null(pc.list_value_length(array), 0).to_numpy(zero_copy_only=False)
    offsets = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])
    return pc.list_flatten(array), offsets, array.is_null().to_numpy(zero_copy_only=False)


def _scalar(column: pa.ChunkedArray) -> np.ndarray:
    """A numeric argument as float64 numpy, NULL as NaN."""
    return pc.cast(column.combine_chunks(), pa.float64()).to_numpy(zero_copy_only=False)


def dif_by_test_case(
    families: pa.ChunkedArray,
    bands: pa.ChunkedArray,
    passes: pa.ChunkedArray,
    failures: pa.ChunkedArray,
    alpha: pa.ChunkedArray,
    negligible: pa.ChunkedArray,
    large: pa.ChunkedArray,
) -> pa.StructArray:
    """cf_test_case_dif(families VARCHAR[], bands BIGINT[], passes BIGINT[], failures BIGINT[],
    alpha, negligible, large): GCMH and per-family MH DIF for each row (one test case)."""
    flat_families, offsets, null_rows = _list_rows(families)
    lists = [_list_rows(column) for column in (bands, passes, failures)]
    null_rows = null_rows | np.logical_or.reduce([nulls for _, _, nulls in lists])
    for _, other_offsets, _ in lists:
        if not np.array_equal(np.diff(offsets)[~null_rows], np.diff(other_offsets)[~null_rows]):
            raise ValueError("cf_test_case_dif: the lists of a row differ in length")
    codes, labels = label_codes(flat_families)
    band_values, pass_values, failure_values = (
        np.nan_to_num(pc.cast(flat, pa.float64()).to_numpy(zero_copy_only=False)).astype(np.int64)
        for flat, _, _ in lists
    )
    band_offsets, pass_offsets, failure_offsets = (list_offsets for _, list_offsets, _ in lists)
    alphas, negligibles, larges = _scalar(alpha), _scalar(negligible), _scalar(large)

    results: list[dict[str, object] | None] = []
    for row, (start, stop) in enumerate(zip(offsets[:-1], offsets[1:], strict=True)):
        if null_rows[row] or not np.isfinite(alphas[row] + negligibles[row] + larges[row]):
            results.append(None)
            continue
        present, row_codes = np.unique(codes[start:stop], return_inverse=True)
        table, _ = stratified_table(
            row_codes,
            band_values[band_offsets[row] : band_offsets[row + 1]],
            pass_values[pass_offsets[row] : pass_offsets[row + 1]],
            failure_values[failure_offsets[row] : failure_offsets[row + 1]],
            families=present.size,
        )
        association = generalized_cmh(table)
        dif = mantel_haenszel_dif(
            table, float(alphas[row]), float(negligibles[row]), float(larges[row])
        )
        family_rows = [
            {
                "model_family": labels[present[k]],
                "reference_results": int(dif.reference_results[k]),
                "reference_passes": int(dif.reference_passes[k]),
                "is_excluded_from_reference": bool(dif.is_excluded_from_reference[k]),
                "informative_bands": int(dif.informative_strata[k]),
                "common_odds_ratio": _finite_or_none(dif.common_odds_ratio[k]),
                "d_dif": _finite_or_none(dif.d_dif[k]),
                "d_dif_se": _finite_or_none(dif.d_dif_se[k]),
                "d_dif_ci_low": _finite_or_none(dif.d_dif_ci_low[k]),
                "d_dif_ci_high": _finite_or_none(dif.d_dif_ci_high[k]),
                "mh_chi_square": _finite_or_none(dif.chi_square[k]),
                "mh_p_value": _finite_or_none(dif.p_value[k]),
                "p_value_beyond_negligible": _finite_or_none(dif.p_value_beyond_negligible[k]),
                "is_continuity_corrected": bool(dif.is_continuity_corrected[k]),
                "ets_class": dif.ets_class[k],
                "direction": dif.direction[k],
                "status": dif.status[k],
                "reason": dif.reason[k],
            }
            for k in range(present.size)
        ]
        results.append(
            {
                "gcmh_statistic": association.statistic,
                "gcmh_df": association.degrees_of_freedom,
                "gcmh_p_value": association.p_value,
                "informative_bands": association.informative_strata,
                "status": association.status,
                "reason": association.reason,
                "families": sorted(family_rows, key=lambda item: str(item["model_family"])),
            }
        )
    return pa.array(results, type=TEST_CASE_DIF_TYPE)


UDFS: tuple[UdfSpec, ...] = (
    UdfSpec(
        "cf_test_case_dif",
        dif_by_test_case,
        ("VARCHAR[]", "BIGINT[]", "BIGINT[]", "BIGINT[]", "DOUBLE", "DOUBLE", "DOUBLE"),
        TEST_CASE_DIF_TYPE,
    ),
)
