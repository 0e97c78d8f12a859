"""Arrow helper shared by detector UDFs: list-typed SQL arguments as per-row numpy arrays."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from challenge_fairness.udfs import flat_list, float_numpy


def list_rows(*columns: pa.ChunkedArray) -> list[tuple[np.ndarray, ...] | None]:
    """Per SQL row, the float64 arrays of several equally long list columns (None if NULL)."""
    flattened = [flat_list(column) for column in columns]
    numbers = [float_numpy(flat) for flat, _, _ in flattened]
    null_rows = np.logical_or.reduce([is_null for _, _, is_null in flattened])
    rows: list[tuple[np.ndarray, ...] | None] = []
    for row, is_null in enumerate(null_rows):
        if is_null:
            rows.append(None)
            continue
        slices = [
            values[offsets[row] : offsets[row + 1]]
            for values, (_, offsets, _) in zip(numbers, flattened, strict=True)
        ]
        if len({len(part) for part in slices}) > 1:
            raise ValueError("list arguments of one row differ in length")
        rows.append(tuple(slices))
    return rows


def scalar_floats(column: pa.ChunkedArray) -> np.ndarray:
    """A numeric scalar SQL argument as float64 numpy (NULL as NaN)."""
    return float_numpy(column.combine_chunks())
