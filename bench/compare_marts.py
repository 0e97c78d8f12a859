"""Compare every mart of two builds (two DuckDB files), column by column, to a tolerance.

    .venv/bin/python bench/compare_marts.py OLD.duckdb NEW.duckdb
    .venv/bin/python bench/compare_marts.py OLD.duckdb NEW.duckdb --schema main --tolerance 1e-9

For each relation in the schema (default `main`, where the marts land) of either file:

- present in both: the column names and types must match, the row counts must match, and
  the rows must match as a multiset: both sides are sorted by every column (floating-point
  columns last), then compared row by row; floats agree when
  |a - b| <= tolerance * max(1, |a|, |b|) (NaN equals NaN, NULL equals NULL), every other
  value exactly (nested values by their text form);
- present in one only: listed as added or removed.

Exit code 0 when every common relation agrees and none was removed, 1 otherwise (added
relations are listed but allowed: a new mart is not a changed result). `--ignore` names
relations to leave out, `--ignore-column REL.COL` columns (an intended difference, to be
explained where it is reported). The stamps of the run itself (RUN_STAMP_COLUMNS: when the
gate validated) are left out unless `--keep-run-stamps`.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

FLOAT_TYPES = ("DOUBLE", "FLOAT", "REAL", "DECIMAL")

#: Columns that record when a build ran, not what it computed: two builds of the same data
#: always differ there.
RUN_STAMP_COLUMNS = (
    "fct_fairness_gate_results.validated_at",
    "int_fairness_expectations_validated.validated_at",
)
#: The incremental scan's bookkeeping that each engine writes with its own 64-bit hash
#: function (the Spark path, docs/spark.md): row hashes and their sums, and the digest of
#: the SQL each engine staged with. Nothing downstream reads them.
ENGINE_HASH_COLUMNS = (
    "base_platform__attempts.row_checksum",
    "base_platform__attempts.attempt_id_hash",
    "base_platform__reference_corpus.staged_with",
    "int_keyed__rubric_scores_checked.row_checksum",
    "int_keyed__rubric_scores_checked.validated_with",
    "int_keyed__test_results_checked.row_checksum",
    "int_keyed__test_results_checked.validated_with",
)


@dataclass
class Comparison:
    """The outcome of comparing one relation."""

    relation: str
    status: str  # equal | different | added | removed
    details: list[str] = field(default_factory=list)


def relations(connection: duckdb.DuckDBPyConnection, schema: str) -> dict[str, list[tuple]]:
    """Relation name -> [(column, type)] of every table and view in `schema`."""
    rows = connection.execute(
        """
        select table_name, column_name, data_type
        from information_schema.columns
        where table_schema = ?
        order by table_name, ordinal_position
        """,
        [schema],
    ).fetchall()
    found: dict[str, list[tuple]] = {}
    for table, column, data_type in rows:
        found.setdefault(table, []).append((column, data_type))
    return found


def is_float(data_type: str) -> bool:
    """Whether a DuckDB column type is compared with a tolerance."""
    return data_type.upper().startswith(FLOAT_TYPES)


def read_sorted(
    connection: duckdb.DuckDBPyConnection, schema: str, relation: str, columns: list[tuple]
) -> pd.DataFrame:
    """The relation's rows with nested values as text, sorted by exact columns then floats."""
    selected = []
    for column, data_type in columns:
        quoted = '"' + column.replace('"', '""') + '"'
        if is_float(data_type):
            selected.append(f"cast({quoted} as double) as {quoted}")
        elif data_type.upper() in ("VARCHAR", "BOOLEAN", "DATE", "BIGINT", "INTEGER", "HUGEINT"):
            selected.append(quoted)
        else:
            selected.append(f"cast({quoted} as varchar) as {quoted}")
    exact = ['"' + c.replace('"', '""') + '"' for c, t in columns if not is_float(t)]
    floats = ['"' + c.replace('"', '""') + '"' for c, t in columns if is_float(t)]
    order = ", ".join(f"{c} nulls first" for c in [*exact, *floats]) or "1"
    sql = f'select {", ".join(selected)} from "{schema}"."{relation}" order by {order}'
    return connection.execute(sql).df()


def float_mismatches(old: pd.Series, new: pd.Series, tolerance: float) -> np.ndarray:
    """Row positions where two float columns differ beyond the relative tolerance."""
    a = old.to_numpy(dtype=np.float64, na_value=np.nan)
    b = new.to_numpy(dtype=np.float64, na_value=np.nan)
    both_nan = np.isnan(a) & np.isnan(b)
    with np.errstate(invalid="ignore"):
        scale = np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))
        close = np.abs(a - b) <= tolerance * scale
        same_infinity = np.isinf(a) & (a == b)
    return np.flatnonzero(~(both_nan | close | same_infinity))


def exact_mismatches(old: pd.Series, new: pd.Series) -> np.ndarray:
    """Row positions where two columns differ (NULL equals NULL)."""
    a, b = old.reset_index(drop=True), new.reset_index(drop=True)
    both_null = a.isna() & b.isna()
    equal = (a == b).fillna(False).astype(bool)
    return np.flatnonzero(~(both_null | equal).to_numpy())


def compare_relation(
    old_db: duckdb.DuckDBPyConnection,
    new_db: duckdb.DuckDBPyConnection,
    schema: str,
    relation: str,
    old_columns: list[tuple],
    new_columns: list[tuple],
    tolerance: float,
) -> Comparison:
    """Compare one relation present in both builds."""
    result = Comparison(relation, "equal")
    if old_columns != new_columns:
        old_set, new_set = dict(old_columns), dict(new_columns)
        for column in sorted(set(old_set) | set(new_set)):
            if old_set.get(column) != new_set.get(column):
                result.details.append(
                    f"column {column}: {old_set.get(column, 'absent')} -> "
                    f"{new_set.get(column, 'absent')}"
                )
        if not result.details:
            result.details.append("same columns in another order")
        result.status = "different"
        return result
    old = read_sorted(old_db, schema, relation, old_columns)
    new = read_sorted(new_db, schema, relation, new_columns)
    if len(old) != len(new):
        result.status = "different"
        result.details.append(f"rows: {len(old)} -> {len(new)}")
        return result
    for column, data_type in old_columns:
        if is_float(data_type):
            positions = float_mismatches(old[column], new[column], tolerance)
        else:
            positions = exact_mismatches(old[column], new[column])
        if positions.size:
            result.status = "different"
            first = int(positions[0])
            result.details.append(
                f"column {column}: {positions.size} of {len(old)} rows differ "
                f"(first: {old[column].iloc[first]!r} -> {new[column].iloc[first]!r})"
            )
    return result


def compare(
    old_path: Path,
    new_path: Path,
    schema: str,
    tolerance: float,
    ignore: set[str],
    ignore_columns: set[str] = frozenset(),
) -> list[Comparison]:
    """Compare every relation of `schema` in the two DuckDB files, leaving out the
    relations in `ignore` and the columns (`relation.column`) in `ignore_columns`."""
    with (
        duckdb.connect(str(old_path), read_only=True) as old_db,
        duckdb.connect(str(new_path), read_only=True) as new_db,
    ):
        old_relations, new_relations = (
            {
                relation: [c for c in columns if f"{relation}.{c[0]}" not in ignore_columns]
                for relation, columns in relations(db, schema).items()
            }
            for db in (old_db, new_db)
        )
        results = []
        for relation in sorted(set(old_relations) | set(new_relations)):
            if relation in ignore:
                continue
            if relation not in new_relations:
                results.append(Comparison(relation, "removed"))
            elif relation not in old_relations:
                results.append(Comparison(relation, "added"))
            else:
                results.append(
                    compare_relation(
                        old_db,
                        new_db,
                        schema,
                        relation,
                        old_relations[relation],
                        new_relations[relation],
                        tolerance,
                    )
                )
    return results


def differences(
    old_path: Path,
    new_path: Path,
    schemas: tuple[str, ...] = ("main", "staging", "intermediate"),
    tolerance: float = 1e-9,
    ignore_columns: set[str] = frozenset(),
    ignore_relations: set[str] = frozenset(),
) -> list[str]:
    """'schema.relation: status, details' of every relation of `schemas` that is not equal
    in the two builds (a schema with no relation at all counts as a difference), but the
    relations named in `ignore_relations`."""
    found = []
    for schema in schemas:
        compared = compare(
            old_path, new_path, schema, tolerance, set(ignore_relations), set(ignore_columns)
        )
        if not compared:
            found.append(f"{schema}: no relations")
        found += [
            f"{schema}.{c.relation}: {c.status}, {'; '.join(c.details)}"
            for c in compared
            if c.status != "equal"
        ]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path, help="DuckDB file of the reference build")
    parser.add_argument("new", type=Path, help="DuckDB file of the build to check")
    parser.add_argument("--schema", default="main", help="schema holding the marts")
    parser.add_argument("--tolerance", type=float, default=1e-9, help="relative float tolerance")
    parser.add_argument("--ignore", nargs="*", default=[], help="relations to leave out")
    parser.add_argument(
        "--ignore-column", nargs="*", default=[], help="columns (relation.column) to leave out"
    )
    parser.add_argument(
        "--keep-run-stamps", action="store_true", help="compare RUN_STAMP_COLUMNS too"
    )
    args = parser.parse_args(argv)
    for path in (args.old, args.new):
        if not path.is_file():
            print(f"compare_marts: no such DuckDB file: {path}", file=sys.stderr)
            return 2
    ignore_columns = set(args.ignore_column)
    if not args.keep_run_stamps:
        ignore_columns |= set(RUN_STAMP_COLUMNS)
    results = compare(
        args.old, args.new, args.schema, args.tolerance, set(args.ignore), ignore_columns
    )
    if ignore_columns:
        print("columns left out: " + ", ".join(sorted(ignore_columns)))
    width = max((len(r.relation) for r in results), default=10)
    for result in results:
        print(f"{result.relation:<{width}}  {result.status}")
        for detail in result.details:
            print(f"{'':<{width}}    {detail}")
    counts = pd.Series([r.status for r in results]).value_counts().to_dict()
    print("summary: " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items())))
    failed = any(r.status in ("different", "removed") for r in results)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
