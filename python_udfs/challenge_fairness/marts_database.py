"""Open the DuckDB file of built marts read-only, or say in one sentence why it cannot be read.

Shared by `python -m challenge_fairness.summary` and `python -m challenge_fairness.report`:
a missing file, a file another process holds (a running `dbt build`), a file that is not a
DuckDB database and a database whose marts were not built each give one clear message
(MartsUnavailable) instead of a traceback.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import duckdb

BUILD_HINT = (
    "build the marts first: `make demo`, or "
    "`CHALLENGE_FAIRNESS_DUCKDB=<file> dbt build` on your data"
)


class MartsUnavailable(Exception):
    """The marts cannot be read; the message says why and what to do."""


def connect_read_only(database: Path) -> duckdb.DuckDBPyConnection:
    """A read-only connection to `database`, or MartsUnavailable naming the problem."""
    if not database.exists():
        raise MartsUnavailable(f"no database at {database}: {BUILD_HINT}.")
    if database.is_dir():
        raise MartsUnavailable(f"{database} is a folder, not a DuckDB database file.")
    try:
        return duckdb.connect(str(database), read_only=True)
    except duckdb.IOException as error:
        text = str(error)
        if "lock" in text.lower():
            raise MartsUnavailable(
                f"{database} is locked by another process (a dbt build still running on it?):"
                " wait until it finishes, then run this again."
            ) from None
        if "not a valid DuckDB database" in text:
            raise MartsUnavailable(
                f"{database} is not a DuckDB database file (it was not written by DuckDB, or "
                "by an incompatible DuckDB version)."
            ) from None
        raise MartsUnavailable(f"cannot open {database}: {text}") from None
    except duckdb.Error as error:
        raise MartsUnavailable(f"cannot open {database}: {error}") from None


def existing_tables(connection: duckdb.DuckDBPyConnection, schema: str) -> set[str]:
    """Tables and views of `schema` in the connected database."""
    rows = connection.execute(
        """
        select table_name from information_schema.tables
        where table_schema = ? and table_catalog = current_database()
        """,
        [schema],
    ).fetchall()
    return {str(row[0]) for row in rows}


def missing_marts(tables: set[str], marts: Iterable[str]) -> list[str]:
    """The marts of `marts` not among `tables`, in their order."""
    return [mart for mart in marts if mart not in tables]


def unbuilt_message(database: Path, schema: str, missing: list[str]) -> str:
    """The message for a database whose required marts are missing."""
    return (
        f"{database} has no built fairness marts in schema {schema} "
        f"(missing: {', '.join(missing)}): {BUILD_HINT}."
    )
