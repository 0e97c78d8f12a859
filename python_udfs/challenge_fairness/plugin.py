"""dbt-duckdb plugin: registers the challenge_fairness UDFs on every DuckDB instance.

Name it in profiles.yml: ``plugins: [{module: challenge_fairness.plugin}]``.

It limits BLAS (OpenBLAS behind numpy and scipy) to one thread in the dbt process: the
UDFs' and Python models' matrices are small, and DuckDB's threads already hold the cores,
so BLAS threads only spin against them. On the 2PL IRT fit of 10M attempts' counts, at
load 10 on 2 cores, that is 2.6 s of CPU instead of 10.6 s.

It also stops numpy from asking the kernel for transparent huge pages (madvise) on its
large arrays. Where the kernel compacts memory to serve such a request (THP defrag
'madvise', the kernel's default), a fresh array of tens of MB can stall for hundreds of ms
while pages move: the IRT fit at 200 agents x 5,000 challenges took 5.8 and 6.2 s with
huge pages and 2.6 and 2.7 s without (2 cores, 24 GB, two runs each, alternating).

Under a small memory cap it gives DuckDB fewer threads (fit_threads_to_memory_limit): a
build is then slower, not failing.

It also refuses to open a database file that does not exist when a build would read the
raw tables from it (no ``raw_parquet_dir``): a typo in the path would otherwise create a
new, empty database and fail later on a missing schema.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dbt.adapters.duckdb.plugins import BasePlugin
from threadpoolctl import threadpool_limits

from challenge_fairness.registry import register_udfs

BUILDING_COMMANDS = frozenset({"build", "run", "test", "retry"})
# The vars that make a build read files instead of the raw schema: the raw tables as
# parquet files, or the scan stage a warehouse wrote (docs/spark.md).
FILE_VARS = ("raw_parquet_dir", "scan_stage_dir")
# DuckDB's memory per thread under a cap (fit_threads_to_memory_limit).
BYTES_PER_THREAD = 256 * 1024**2


def _project_file_var(project_dir: str | None, name: str) -> Any:
    """The var `name` as set in the project's dbt_project.yml vars (own or package-scoped)."""
    import yaml  # type: ignore[import-untyped]

    path = Path(project_dir or ".") / "dbt_project.yml"
    try:
        project = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return None
    project_vars = project.get("vars") or {}
    scoped = project_vars.get("challenge_fairness") or {}
    return project_vars.get(name) or (scoped.get(name) if isinstance(scoped, dict) else None)


def builds_from_raw_schema() -> bool:
    """True when the running dbt command builds models from the raw schema (no files)."""
    try:
        from dbt.flags import get_flags

        flags = get_flags()
    except Exception:  # noqa: BLE001 - no dbt invocation: nothing to guard
        return False
    if getattr(flags, "WHICH", None) not in BUILDING_COMMANDS:
        return False
    cli_vars = getattr(flags, "VARS", None) or {}
    project_dir = getattr(flags, "PROJECT_DIR", None)
    for name in FILE_VARS:
        value = cli_vars[name] if name in cli_vars else _project_file_var(project_dir, name)
        if value:
            return False
    return True


def missing_database_message(path: str) -> str | None:
    """Why opening `path` must be refused, or None when it may be opened (or created)."""
    if not path or path == ":memory:" or "://" in path or path.startswith("md:"):
        return None
    if Path(path).exists() or not builds_from_raw_schema():
        return None
    return (
        f"challenge_fairness: the database file {str(Path(path).resolve())!r} does not exist, "
        "so it has no raw schema to read; refusing to create a new empty database. "
        "Check the database path (profiles.yml `path`, env CHALLENGE_FAIRNESS_DUCKDB), "
        "load the raw tables into it first (schema var challenge_fairness_raw_schema), "
        "or read parquet files with --vars '{raw_parquet_dir: <folder>}'."
    )


def fit_threads_to_memory_limit(conn: Any) -> None:
    """At most one DuckDB thread per BYTES_PER_THREAD of its memory limit (at least one).

    Each thread of a spilling aggregate or join keeps its own partitions in memory: under
    a small cap two threads fail where one completes (1M attempts at 80MB: two threads
    fail `Out of Memory Error` grouping the attempt ids, one completes). The cap is
    DuckDB's, so a share of the machine ('50%') counts as its size.
    """
    ((limit, threads),) = conn.execute(
        "select parse_formatted_bytes(current_setting('memory_limit')), current_setting('threads')"
    ).fetchall()
    fitting = max(1, int(limit) // BYTES_PER_THREAD)
    if int(threads) > fitting:
        conn.execute(f"SET GLOBAL threads = {fitting}")


def limit_native_resources() -> None:
    """One BLAS thread, and no transparent huge page requests by numpy (see the module
    docstring), for this process."""
    threadpool_limits(limits=1, user_api="blas")
    import numpy as np

    set_madvise_hugepage = getattr(np._core.multiarray, "_set_madvise_hugepage", None)
    if set_madvise_hugepage is not None:  # numpy's own switch (NUMPY_MADVISE_HUGEPAGE)
        set_madvise_hugepage(False)


class Plugin(BasePlugin):
    """Registers the statistics UDFs when dbt-duckdb opens the database."""

    def initialize(self, plugin_config: dict[str, Any]) -> None:
        limit_native_resources()

    def update_connection_config(self, creds: Any, config: dict[str, Any]) -> None:
        message = missing_database_message(str(creds.path or ""))
        if message:
            raise RuntimeError(message)

    def configure_connection(self, conn: Any) -> None:
        # Every connection of the instance reads and writes time in UTC, whatever the
        # machine's zone: naive text timestamps are UTC, dates are UTC dates (macro
        # utc_timestamp), so the marts are the same under any TZ.
        conn.execute("SET GLOBAL TimeZone = 'UTC'")
        fit_threads_to_memory_limit(conn)
        register_udfs(conn)

    def configure_cursor(self, cursor: Any) -> None:
        # dbt-duckdb applies the profile's `settings` (memory_limit among them) to each
        # cursor, after configure_connection: only then is the cap known to fit to.
        fit_threads_to_memory_limit(cursor)
