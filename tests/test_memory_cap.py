"""A memory cap makes a build slower, never failing (issue 35, item 2).

Under a cap DuckDB spills to disk, but not every plan can: with two DuckDB threads each
spilling aggregate or join keeps its own partitions in memory, and two dbt threads run two
models against the one cap. On 1M attempts (5.9M test results) at 96MB, a build with the
package's former settings (2 dbt threads, DuckDB's threads = cores) failed with `Out of
Memory Error` in the test-result and rubric-score folds. Now the plugin gives DuckDB one
thread per 256MB of its cap, the profile one dbt thread under 2GB, and the folds' join
keeps a narrow build side (macro attempts_to_validate_against): the same build completes,
and its tables are those of an uncapped build, bit for bit.

At 64MB it failed too, in three places: the plugin fitted the threads before dbt-duckdb
applied the profile's memory_limit (so DuckDB kept two), the rubric-score fold sorted every
row on top of its join with the attempts, and fct_detector_coverage kept one subquery's
state per measure. Now the threads are fitted on every cursor, the fold is not sorted, and
the coverage reads each model once.

The 100M-attempt figures (1GB) are in docs/operations.md#memory-and-scale.
"""

from __future__ import annotations

import shutil
from typing import Any

import duckdb
import pytest
from challenge_fairness.demo import PlatformSpec, generate_platform, write_parquet
from challenge_fairness.plugin import BYTES_PER_THREAD, fit_threads_to_memory_limit
from conftest import run_dbt
from test_byte_stable import differing_rows, table_names

#: A cap the former settings failed under at this scale (and 96MB and 128MB too).
SMALL_CAP = "64MB"
ATTEMPTS = 1_000_000
BUILD_VARS = {"fairness_gate_severity": "warn", "adjusted_scores_materialization": "table"}


def test_the_threads_follow_the_cap_the_profile_sets(tmp_path: Any) -> None:
    """As a dbt run opens the database: dbt-duckdb applies the profile's `settings` to
    each cursor, after the plugin configured the connection (then at DuckDB's default
    cap); the plugin fits the threads again on the cursor."""
    from dbt.adapters.duckdb.credentials import DuckDBCredentials, PluginConfig
    from dbt.adapters.duckdb.environments import create

    database = tmp_path / "capped.duckdb"
    duckdb.connect(str(database)).close()  # an existing file: the plugin's guard lets it open
    credentials = DuckDBCredentials(
        path=str(database),
        settings={"memory_limit": "64MB"},
        plugins=[PluginConfig(module="challenge_fairness.plugin")],
    )
    environment = create(credentials)
    handle = environment.handle()
    try:
        ((limit, threads),) = (
            handle.cursor()
            .execute("select current_setting('memory_limit'), current_setting('threads')")
            .fetchall()
        )
    finally:
        handle.close()
        environment.close()
    assert limit == "61.0 MiB"
    assert threads == 1


@pytest.mark.parametrize(
    ("memory_limit", "threads", "expected"),
    [
        ("64MB", 2, 1),
        ("300MB", 4, 1),
        ("600MB", 4, 2),
        ("1GB", 2, 2),
        ("1GB", 8, 3),
        ("1GiB", 8, 4),
        ("20GB", 2, 2),
        ("50%", 1, 1),
    ],
)
def test_duckdb_gets_one_thread_per_256mb_of_its_cap(
    memory_limit: str, threads: int, expected: int
) -> None:
    """Never more threads than before, never fewer than one."""
    with duckdb.connect(config={"memory_limit": memory_limit, "threads": threads}) as connection:
        fit_threads_to_memory_limit(connection)
        ((fitted,),) = connection.execute("select current_setting('threads')").fetchall()
    assert BYTES_PER_THREAD == 256 * 1024**2
    assert fitted == expected


@pytest.fixture(scope="module")
def capped_and_uncapped(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A 1M-attempt platform (dirty rows, every detector's input) built at SMALL_CAP with
    no other setting, and without a cap."""
    work = tmp_path_factory.mktemp("memory_cap")
    platform = generate_platform(
        PlatformSpec(n_attempts=ATTEMPTS, dirty=True, detector_plants=True)
    )
    write_parquet(platform, str(work / "raw"))
    dbt_vars = {**BUILD_VARS, "raw_parquet_dir": str(work / "raw")}
    builds: dict[str, Any] = {}
    for name, cap in (("capped", SMALL_CAP), ("uncapped", None)):
        database = work / "platform.duckdb"  # same catalog name in both
        with pytest.MonkeyPatch.context() as env:
            env.delenv("CHALLENGE_FAIRNESS_THREADS", raising=False)
            if cap is None:
                env.delenv("CHALLENGE_FAIRNESS_MEMORY_LIMIT", raising=False)
            else:
                env.setenv("CHALLENGE_FAIRNESS_MEMORY_LIMIT", cap)
            run = run_dbt(["build"], database=database, work_dir=work / name, dbt_vars=dbt_vars)
        kept = work / name / "platform.duckdb"
        shutil.move(database, kept)
        builds[name] = {"run": run, "database": kept}
    return builds


@pytest.mark.dbt
def test_a_small_cap_builds_on_one_thread(capped_and_uncapped: dict[str, Any]) -> None:
    capped, uncapped = capped_and_uncapped["capped"]["run"], capped_and_uncapped["uncapped"]["run"]
    assert capped.success, capped.output[-3000:]
    assert uncapped.success, uncapped.output[-3000:]
    assert "Concurrency: 1 threads" in capped.output
    assert "Concurrency: 2 threads" in uncapped.output


@pytest.mark.dbt
@pytest.mark.parametrize("schema", ["main", "intermediate", "staging"])
def test_a_small_cap_changes_no_table(capped_and_uncapped: dict[str, Any], schema: str) -> None:
    """Bit for bit, every column of every table (the gate's timestamps left out)."""
    capped = capped_and_uncapped["capped"]["database"]
    uncapped = capped_and_uncapped["uncapped"]["database"]
    assert capped_and_uncapped["capped"]["run"].success
    names = table_names(capped, schema)
    assert len(names) > 5
    assert names == table_names(uncapped, schema)
    differing = {
        name: counts
        for name in names
        if (counts := differing_rows(capped, uncapped, name, schema)) != (0, 0)
    }
    assert differing == {}
