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
COHENS_D_TYPE = pa.struct(
    [
        ("pooled_sd", pa.float64()),
        ("cohens_d", pa.float64()),
        ("status", pa.string()),
        ("reason", pa.string()),
    ]
)


def _flat_list(column: pa.ChunkedArray | pa.Array) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """Flatten a list column: (flat values, row offsets, row is-null mask)."""
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    lengths = pc.fill_null(pc.list_value_length(array), 0).to_numpy(zero_copy_only=False)
    offsets = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])
    is_null = array.is_null().to_numpy(zero_copy_only=False)
    return pc.list_flatten(array), offsets, is_null


def _float_numpy(array: pa.Array) -> np.ndarray:
    """Numeric arrow array as float64 numpy, NULL as NaN."""
    return pc.cast(array, pa.float64()).to_numpy(zero_copy_only=False)


def kruskal_wallis(
    groups: pa.ChunkedArray, values: pa.ChunkedArray, counts: pa.ChunkedArray
) -> pa.StructArray:
    """cf_kruskal_wallis(groups VARCHAR[], values DOUBLE[], counts BIGINT[]) per row."""
    flat_groups, offsets, null_rows = _flat_list(groups)
    flat_values, value_offsets, null_values = _flat_list(values)
    flat_counts, count_offsets, null_counts = _flat_list(counts)
    if not (np.array_equal(offsets, value_offsets) and np.array_equal(offsets, count_offsets)):
        raise ValueError("cf_kruskal_wallis: groups, values and counts lists differ in length")
    codes = pc.dictionary_encode(pc.fill_null(flat_groups, "")).indices.to_numpy(
        zero_copy_only=False
    )
    value_numbers = _float_numpy(flat_values)
    count_numbers = np.nan_to_num(_float_numpy(flat_counts), nan=0).astype(np.int64)

    rows: list[dict[str, object] | None] = []
    for row, (start, stop) in enumerate(zip(offsets[:-1], offsets[1:], strict=True)):
        if null_rows[row] or null_values[row] or null_counts[row]:
            rows.append(None)
            continue
        result = stats.kruskal_wallis(
            codes[start:stop], value_numbers[start:stop], count_numbers[start:stop]
        )
        rows.append(
            {
                "h_statistic": result.h_statistic,
                "p_value": result.p_value,
                "groups": result.groups,
                "observations": result.observations,
                "status": result.status,
                "reason": result.reason,
            }
        )
    return pa.array(rows, type=KRUSKAL_WALLIS_TYPE)


def cohens_d(
    n_a: pa.ChunkedArray,
    mean_a: pa.ChunkedArray,
    var_a: pa.ChunkedArray,
    n_b: pa.ChunkedArray,
    mean_b: pa.ChunkedArray,
    var_b: pa.ChunkedArray,
) -> pa.StructArray:
    """cf_cohens_d(n_a, mean_a, var_a, n_b, mean_b, var_b), vectorised over rows."""
    arrays = [_float_numpy(column.combine_chunks()) for column in (n_a, mean_a, var_a, n_b, mean_b, var_b)]
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
