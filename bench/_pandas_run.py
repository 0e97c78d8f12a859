"""Entry point of the pandas + scipy side of the benchmark (run in its own process).

Usage::

    python bench/_pandas_run.py PARQUET_DIR RESULT_JSON

Reads ``attempts``, ``challenges``, ``agents`` and ``models`` from ``PARQUET_DIR/<table>.parquet``
with pandas, computes the four core marts with ``tests/pandas_reference.compute_marts`` and writes
phase timings, the marts' row counts and the flagged (challenge, family) pairs of
``fct_family_deviation`` to ``RESULT_JSON``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from pandas_reference import compute_marts  # noqa: E402

TABLES = ("attempts", "challenges", "agents", "models")


def main(argv: list[str]) -> int:
    """Read the parquet tables, compute the marts and write the summary JSON."""
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    parquet_dir, result_path = Path(argv[0]), Path(argv[1])

    start = time.perf_counter()
    tables = {name: pd.read_parquet(parquet_dir / f"{name}.parquet") for name in TABLES}
    read_seconds = time.perf_counter() - start

    start = time.perf_counter()
    marts = compute_marts(tables)
    compute_seconds = time.perf_counter() - start

    deviation = marts["fct_family_deviation"]
    flagged = deviation.loc[deviation["is_flagged"], ["challenge_id", "model_family"]]
    result = {
        "read_seconds": read_seconds,
        "compute_seconds": compute_seconds,
        "input_rows": {name: len(frame) for name, frame in tables.items()},
        "mart_rows": {name: len(frame) for name, frame in marts.items()},
        "flagged_family_deviation": sorted(
            [str(c), str(f)] for c, f in flagged.itertuples(index=False)
        ),
    }
    result_path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"pandas: read {read_seconds:.2f} s, compute {compute_seconds:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
