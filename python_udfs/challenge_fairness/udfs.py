"""Arrow adapters: turn DuckDB's column batches into calls of the pure functions in ``stats``.

Each adapter receives ``pyarrow.ChunkedArray`` arguments (one element per SQL row) and
returns a ``pyarrow.StructArray`` of the same length. Row-level Python work is per
*challenge* (a list of compressed scores), never per attempt.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from challenge_fairness import stats

KRUSKAL_WALLIS_TYPE = pa.struct(
    [
        ("h_statistic", pa.float64()),
        ("p_value", pa.float64()),
        ("groups", pa.int32()),
        ("observations", pa.int64()),
        ("status", pa.string()),
        ("reason", pa.string()),
    ]
)
TRIMMED_CELL_TYPE = pa.struct(
    [
        ("observations", pa.int64()),
        ("trimmed_mean", pa.float64()),
        ("trimmed_mean_variance", pa.float64()),
        ("effective_n", pa.int64()),
        ("trims_ties", pa.bool_()),
        ("status", pa.string()),
        ("reason", pa.string()),
    ]
)
CONTRAST_TEST_TYPE = pa.struct(
    [
        (name, pa.float64())
        for name in ("t_statistic", "p_value", "p_value_sidak", "ci_low", "ci_high")
    ]
)
HEDGES_G_TYPE = pa.struct([(name, pa.float64()) for name in ("hedges_g", "ci_low", "ci_high")])
DUNN_TYPE = pa.struct(
    [
        ("family_a", pa.string()),
        ("family_b", pa.string()),
        ("z_statistic", pa.float64()),
        ("p_value", pa.float64()),
        ("p_value_holm", pa.float64()),
    ]
)
ATTEMPTS_NEEDED_TYPE = pa.struct(
    [
        ("current_power", pa.list_(pa.float64())),
        ("family_additional", pa.list_(pa.float64())),
        ("family_status", pa.list_(pa.string())),
        ("plan_family_attempts", pa.float64()),
        ("plan_additional", pa.list_(pa.float64())),
        ("plan_status", pa.string()),
        ("plan_reason", pa.string()),
    ]
)
COHENS_D_TYPE = pa.struct(
    [
        ("pooled_sd", pa.float64()),
        ("cohens_d", pa.float64()),
        ("status", pa.string()),
        ("reason", pa.string()),
    ]
)


def flat_list(column: pa.ChunkedArray | pa.Array) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """Flatten a list column: (flat values, row offsets, row is-null mask)."""
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    lengths = pc.fill_null(pc.list_value_length(array), 0).to_numpy(zero_copy_only=False)
    offsets = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])
    is_null = array.is_null().to_numpy(zero_copy_only=False)
    return pc.list_flatten(array), offsets, is_null


def label_codes(flat_labels: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes of a flat text array (NULL as "") and the labels they index, the labels
    in sorted order. Codes follow the labels' order, not their first appearance in the
    batch, so the groups of a row come in the same order whichever rows DuckDB puts in the
    batch with it (and floating sums over them give the same bits on every build). A
    chunked array is coded chunk by chunk against one dictionary (its text is not copied
    into one array first)."""
    encoded = pc.dictionary_encode(pc.fill_null(flat_labels, ""))
    if isinstance(encoded, pa.ChunkedArray):
        chunks = encoded.unify_dictionaries().chunks
        dictionary = chunks[0].dictionary if chunks else pa.array([], pa.string())
        indices = pa.chunked_array([chunk.indices for chunk in chunks], pa.int32()).combine_chunks()
    else:
        dictionary, indices = encoded.dictionary, encoded.indices
    labels = np.asarray(dictionary.to_pylist(), dtype=object)
    order = np.argsort(labels, kind="stable")
    rank = np.empty(labels.size, dtype=np.int64)
    rank[order] = np.arange(labels.size, dtype=np.int64)
    codes = rank[indices.to_numpy(zero_copy_only=False).astype(np.int64)]
    return codes, labels[order]


def float_numpy(array: pa.Array) -> np.ndarray:
    """Numeric arrow array as float64 numpy, NULL as NaN."""
    return pc.cast(array, pa.float64()).to_numpy(zero_copy_only=False)


def _grouped_rows(
    groups: pa.ChunkedArray, values: pa.ChunkedArray, counts: pa.ChunkedArray
) -> tuple[list[tuple[np.ndarray, np.ndarray, np.ndarray] | None], np.ndarray]:
    """Per SQL row, (group codes, values, counts) of its lists (None for a NULL row),
    and the labels the codes index."""
    flat_groups, offsets, null_rows = flat_list(groups)
    flat_values, value_offsets, null_values = flat_list(values)
    flat_counts, count_offsets, null_counts = flat_list(counts)
    if not (np.array_equal(offsets, value_offsets) and np.array_equal(offsets, count_offsets)):
        raise ValueError("groups, values and counts lists differ in length")
    codes, labels = label_codes(flat_groups)
    value_numbers = float_numpy(flat_values)
    count_numbers = np.nan_to_num(float_numpy(flat_counts), nan=0).astype(np.int64)
    rows: list[tuple[np.ndarray, np.ndarray, np.ndarray] | None] = []
    for row, (start, stop) in enumerate(zip(offsets[:-1], offsets[1:], strict=True)):
        if null_rows[row] or null_values[row] or null_counts[row]:
            rows.append(None)
        else:
            rows.append((codes[start:stop], value_numbers[start:stop], count_numbers[start:stop]))
    return rows, labels


def kruskal_wallis(
    groups: pa.ChunkedArray, values: pa.ChunkedArray, counts: pa.ChunkedArray
) -> pa.StructArray:
    """cf_kruskal_wallis(groups VARCHAR[], values DOUBLE[], counts BIGINT[]) per row."""
    rows, _ = _grouped_rows(groups, values, counts)
    results: list[dict[str, object] | None] = []
    for row in rows:
        if row is None:
            results.append(None)
            continue
        result = stats.kruskal_wallis(*row)
        results.append(
            {
                "h_statistic": result.h_statistic,
                "p_value": result.p_value,
                "groups": result.groups,
                "observations": result.observations,
                "status": result.status,
                "reason": result.reason,
            }
        )
    return pa.array(results, type=KRUSKAL_WALLIS_TYPE)


def dunn(groups: pa.ChunkedArray, values: pa.ChunkedArray, counts: pa.ChunkedArray) -> pa.ListArray:
    """cf_dunn(groups, values, counts): a list of pairwise Dunn tests per row,
    family_a < family_b alphabetically (z > 0 favours family_a's ranks)."""
    rows, labels = _grouped_rows(groups, values, counts)
    results: list[list[dict[str, object]] | None] = []
    for row in rows:
        if row is None:
            results.append(None)
            continue
        pairs = []
        for pair in stats.dunn(*row):
            label_a, label_b = labels[pair.group_a], labels[pair.group_b]
            sign = 1.0 if label_a < label_b else -1.0
            pairs.append(
                {
                    "family_a": min(label_a, label_b),
                    "family_b": max(label_a, label_b),
                    "z_statistic": sign * pair.z_statistic,
                    "p_value": pair.p_value,
                    "p_value_holm": pair.p_value_holm,
                }
            )
        results.append(sorted(pairs, key=lambda p: (p["family_a"], p["family_b"])))
    return pa.array(results, type=pa.list_(DUNN_TYPE))


def trimmed_cell(
    values: pa.ChunkedArray, counts: pa.ChunkedArray, trim: pa.ChunkedArray
) -> pa.StructArray:
    """cf_trimmed_cell(values DOUBLE[], counts BIGINT[], trim DOUBLE) per (challenge, family):
    every row of the batch in one vectorised call (stats.trimmed_cells)."""
    flat_values, offsets, null_rows = flat_list(values)
    flat_counts, count_offsets, null_counts = flat_list(counts)
    if not np.array_equal(offsets, count_offsets):
        raise ValueError("cf_trimmed_cell: values and counts lists differ in length")
    trims = float_numpy(trim.combine_chunks())
    missing = null_rows | null_counts | np.isnan(trims)
    cells = stats.trimmed_cells(
        float_numpy(flat_values),
        np.nan_to_num(float_numpy(flat_counts), nan=0).astype(np.int64),
        offsets,
        np.where(missing, 0.0, trims),
    )
    mask = pa.array(missing)
    return pa.StructArray.from_arrays(
        [
            pa.array(cells.observations, pa.int64()),
            pa.array(cells.trimmed_mean, pa.float64(), from_pandas=True),
            pa.array(cells.trimmed_mean_variance, pa.float64(), from_pandas=True),
            pa.array(cells.effective_n, pa.int64()),
            pa.array(cells.trims_ties, pa.bool_()),
            pa.array(cells.status, pa.string()),
            pa.array(cells.reason, pa.string()),
        ],
        fields=list(TRIMMED_CELL_TYPE),
        mask=mask,
    )


def cohens_d(
    n_a: pa.ChunkedArray,
    mean_a: pa.ChunkedArray,
    var_a: pa.ChunkedArray,
    n_b: pa.ChunkedArray,
    mean_b: pa.ChunkedArray,
    var_b: pa.ChunkedArray,
) -> pa.StructArray:
    """cf_cohens_d(n_a, mean_a, var_a, n_b, mean_b, var_b), vectorised over rows."""
    arrays = [
        float_numpy(column.combine_chunks()) for column in (n_a, mean_a, var_a, n_b, mean_b, var_b)
    ]
    result = stats.cohens_d(*arrays)
    return pa.StructArray.from_arrays(
        [
            pa.array(result.pooled_sd, type=pa.float64(), from_pandas=True),
            pa.array(result.cohens_d, type=pa.float64(), from_pandas=True),
            pa.array(result.status.astype(object), type=pa.string()),
            pa.array(result.reason, type=pa.string()),
        ],
        fields=list(COHENS_D_TYPE),
    )


def contrast_test(
    estimate: pa.ChunkedArray,
    standard_error: pa.ChunkedArray,
    degrees_of_freedom: pa.ChunkedArray,
    alpha: pa.ChunkedArray,
    comparisons: pa.ChunkedArray,
) -> pa.StructArray:
    """cf_contrast_test(estimate, se, df, alpha, comparisons), vectorised over rows."""
    columns = (estimate, standard_error, degrees_of_freedom, alpha, comparisons)
    result = stats.contrast_test(*[float_numpy(c.combine_chunks()) for c in columns])
    return pa.StructArray.from_arrays(
        [
            pa.array(getattr(result, name), type=pa.float64(), from_pandas=True)
            for name in CONTRAST_TEST_TYPE.names
        ],
        fields=list(CONTRAST_TEST_TYPE),
    )


def benjamini_hochberg(p_values: pa.ChunkedArray) -> pa.ListArray:
    """cf_benjamini_hochberg(p DOUBLE[]): the list of q-values of each row's list."""
    flat, offsets, null_rows = flat_list(p_values)
    p = float_numpy(flat)
    results: list[list[float] | None] = []
    for row, (start, stop) in enumerate(zip(offsets[:-1], offsets[1:], strict=True)):
        results.append(None if null_rows[row] else stats.benjamini_hochberg(p[start:stop]).tolist())
    return pa.array(results, type=pa.list_(pa.float64()), from_pandas=True)


def hedges_g(
    n_a: pa.ChunkedArray, n_b: pa.ChunkedArray, cohens_d: pa.ChunkedArray, alpha: pa.ChunkedArray
) -> pa.StructArray:
    """cf_hedges_g(n_a, n_b, d, alpha), vectorised over rows."""
    result = stats.hedges_g(*[float_numpy(c.combine_chunks()) for c in (n_a, n_b, cohens_d, alpha)])
    return pa.StructArray.from_arrays(
        [
            pa.array(getattr(result, name), type=pa.float64(), from_pandas=True)
            for name in HEDGES_G_TYPE.names
        ],
        fields=list(HEDGES_G_TYPE),
    )


def _padded(column: pa.ChunkedArray, offsets: np.ndarray, width: int) -> np.ndarray:
    """A list column as a rows x width float matrix, NaN-padded (NULL elements NaN)."""
    flat, _, _ = flat_list(column)
    values = float_numpy(flat)
    lengths = np.diff(offsets)
    matrix = np.full((lengths.size, width), np.nan)
    row_of = np.repeat(np.arange(lengths.size), lengths)
    matrix[row_of, np.arange(values.size) - offsets[row_of]] = values
    return matrix


def _constant(column: pa.ChunkedArray, name: str) -> float:
    """The one value a settings column holds on every row."""
    values = np.unique(float_numpy(column.combine_chunks()))
    if values.size != 1 or not np.isfinite(values[0]):
        raise ValueError(f"cf_attempts_needed: {name} must be one finite value for every row")
    return float(values[0])


def _trims(column: pa.ChunkedArray) -> np.ndarray:
    """The trim proportion of each row (the verdict's, per challenge)."""
    trims = float_numpy(column.combine_chunks())
    if not np.all((trims >= 0) & (trims < 0.5)):
        raise ValueError("cf_attempts_needed: trim must be in [0, 0.5) on every row")
    return trims


def attempts_needed(
    attempts: pa.ChunkedArray,
    cell_variance: pa.ChunkedArray,
    ability_variance: pa.ChunkedArray,
    level: pa.ChunkedArray,
    shift: pa.ChunkedArray,
    target_power: pa.ChunkedArray,
    trim: pa.ChunkedArray,
    min_family_attempts: pa.ChunkedArray,
    min_attempts: pa.ChunkedArray,
    max_family_attempts: pa.ChunkedArray,
    prior_df: pa.ChunkedArray,
) -> pa.StructArray:
    """cf_attempts_needed(attempts BIGINT[], cell_variance DOUBLE[], ability_variance
    DOUBLE[], level, shift, target_power, trim, min_family_attempts, min_attempts,
    max_family_attempts, prior_df): one challenge per row, families in list order; all rows are
    solved at once (stats.attempts_needed). level and trim are the row's own, the other
    settings one value for every row."""
    _, offsets, null_rows = flat_list(attempts)
    for other in (cell_variance, ability_variance):
        if not np.array_equal(flat_list(other)[1], offsets):
            raise ValueError("cf_attempts_needed: the family lists differ in length")
    if len(null_rows) == 0:
        return pa.array([], type=ATTEMPTS_NEEDED_TYPE)
    width = max(int(np.diff(offsets).max()), 1)
    result = stats.attempts_needed(
        _padded(attempts, offsets, width),
        _padded(cell_variance, offsets, width),
        _padded(ability_variance, offsets, width),
        float_numpy(level.combine_chunks()),
        shift=_constant(shift, "shift"),
        target_power=_constant(target_power, "target_power"),
        trim=_trims(trim),
        min_family_attempts=_constant(min_family_attempts, "min_family_attempts"),
        min_attempts=_constant(min_attempts, "min_attempts"),
        max_family_attempts=_constant(max_family_attempts, "max_family_attempts"),
        prior_df=_constant(prior_df, "prior_df"),
    )
    lengths = np.diff(offsets)

    def listed(matrix: np.ndarray) -> list[list[object] | None]:
        return [
            None if null_rows[row] else [None if v != v else v for v in matrix[row, :size]]
            for row, size in enumerate(lengths)
        ]

    rows = {
        "current_power": listed(result.current_power),
        "family_additional": listed(result.family_additional),
        "family_status": listed(result.family_status),
        "plan_family_attempts": [
            None if null_rows[row] or v != v else float(v)
            for row, v in enumerate(result.plan_family_attempts)
        ],
        "plan_additional": listed(result.plan_additional),
        "plan_status": [None if null_rows[r] else s for r, s in enumerate(result.plan_status)],
        "plan_reason": [None if null_rows[r] else s for r, s in enumerate(result.plan_reason)],
    }
    return pa.StructArray.from_arrays(
        [pa.array(rows[field.name], type=field.type) for field in ATTEMPTS_NEEDED_TYPE],
        fields=list(ATTEMPTS_NEEDED_TYPE),
    )
