"""The Spark path equals the all-DuckDB build (docs/spark.md).

A local standalone cluster (master, worker, Thrift Server on 127.0.0.1, from the pyspark
wheel in .spark/) runs the scan stage through dbt-spark (`method: thrift`) on a generated
platform of 1M attempts (dirty rows, test results and every detector's tables; the
attempts a folder of files and the test results Hive partitions, as a lake writes them); DuckDB
builds the statistics from the files Spark wrote and exports the public marts, which Spark
then registers as tables. Every mart, every staging relation and every intermediate one
equals one all-DuckDB build of the same raw files (1e-9), and the marts read back from
Spark hold the rows DuckDB built. The cluster is stopped afterwards, also on failure.

Needs Java 17: without `java` these tests are skipped, unless
CHALLENGE_FAIRNESS_REQUIRE_SPARK=1 (as `.ci/run` sets), which makes that a failure.
"""

from __future__ import annotations

import os
import shutil
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from challenge_fairness import local_spark, spark_path
from conftest import REPO_ROOT
from test_scan_stage import VARS, WAREHOUSE_VIEWS, platform_built_in_duckdb

sys.path.insert(0, str(REPO_ROOT / "bench"))

import compare_marts  # noqa: E402

pytestmark = [pytest.mark.dbt, pytest.mark.spark]

NO_JAVA = "the Spark path tests need Java 17 (`java` is not on PATH)"
if shutil.which("java") is None:
    if os.environ.get("CHALLENGE_FAIRNESS_REQUIRE_SPARK") == "1":
        raise RuntimeError(NO_JAVA)
    pytest.skip(NO_JAVA, allow_module_level=True)


def port_open(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex((local_spark.HOST, port)) == 0


def as_folder(raw: Path, table: str, names: list[str]) -> None:
    """Replace `<raw>/<table>.parquet` by the files `names` under `<raw>/<table>/`, its rows
    cut in order into equal parts."""
    rows = pq.read_table(raw / f"{table}.parquet")
    size = -(-rows.num_rows // len(names))
    for number, name in enumerate(names):
        path = raw / table / name
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(rows.slice(number * size, size), path)
    (raw / f"{table}.parquet").unlink()


def test_raw_tables_are_files_or_folders_never_both(tmp_path: Path) -> None:
    (tmp_path / "attempts.parquet").touch()
    (tmp_path / "test_results" / "day=1").mkdir(parents=True)
    assert spark_path.raw_parquet_tables(tmp_path) == {
        "tables": ["attempts", "test_results"],
        "folders": ["test_results"],
    }
    (tmp_path / "attempts").mkdir()
    with pytest.raises(ValueError, match="attempts is both a file"):
        spark_path.raw_parquet_tables(tmp_path)
    outcome = spark_path.run(tmp_path / "scan", tmp_path / "db", tmp_path / "out",
                             raw_parquet_dir=tmp_path)  # fmt: skip
    assert outcome.returncode == 2 and outcome.seconds == {}


def test_local_cluster_stops_everything_it_started_also_on_failure(tmp_path: Path) -> None:
    cluster = local_spark.LocalSpark(tmp_path / "cluster")
    with pytest.raises(RuntimeError, match="the body failed"), cluster:
        assert port_open(local_spark.THRIFT_PORT)
        started = [process.pid for process in cluster.processes]
        assert len(started) == 3
        raise RuntimeError("the body failed")
    assert not port_open(local_spark.THRIFT_PORT)
    assert not port_open(local_spark.MASTER_PORT)
    for pid in started:
        with pytest.raises(ProcessLookupError):
            os.killpg(pid, 0)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[local_spark.LocalSpark]:
    with local_spark.LocalSpark(tmp_path_factory.mktemp("spark")) as running:
        yield running


def test_spark_path_equals_the_duckdb_build(
    cluster: local_spark.LocalSpark, tmp_path: Path
) -> None:
    raw, full = platform_built_in_duckdb(tmp_path, attempts=1_000_000)
    # As a lake writes them: the attempts as a folder of files, the test results in Hive
    # partitions. Numbered by path, then row, their rows keep the single files' numbers.
    # (A copy: the DuckDB build's views read the single files.)
    lake = tmp_path / "lake"
    shutil.copytree(raw, lake)
    as_folder(lake, "attempts", ["part-0.parquet", "part-1.parquet"])
    as_folder(lake, "test_results", ["batch=0/part-0.parquet", "batch=1/part-0.parquet"])
    split = tmp_path / "split.duckdb"
    export = tmp_path / "marts"
    outcome = spark_path.run(
        scan_stage_dir=tmp_path / "scan",
        duckdb_path=split,
        export_dir=export,
        dbt_vars=VARS,
        raw_parquet_dir=lake,
        work_dir=tmp_path / "spark_run",
    )
    assert outcome.returncode == 0, outcome
    assert list(outcome.seconds) == [
        "raw tables registered on spark",
        "scan stage on spark",
        "statistics on duckdb",
        "marts registered on spark",
    ]
    # Spark wrote the scan stage; DuckDB read it (views over those files), no raw table.
    assert (tmp_path / "scan" / "base_platform__attempts").is_dir()
    with duckdb.connect(str(split), read_only=True) as connection:
        kinds = dict(
            connection.execute(
                "select table_name, table_type from information_schema.tables"
                " where table_name like 'base_platform__%'"
                " or table_name = 'int_attempt_score_cells_counted'"
            ).fetchall()
        )
        assert len(kinds) == 11 and set(kinds.values()) == {"VIEW"}, kinds
        verdicts, rejected = connection.execute(
            "select (select count(*) from main.fct_challenge_verdicts),"
            " (select count(*) from main.fct_rejected_rows)"
        ).fetchone()

    ignored = {*compare_marts.RUN_STAMP_COLUMNS, *compare_marts.ENGINE_HASH_COLUMNS}
    assert (
        compare_marts.differences(
            full, split, ignore_columns=ignored, ignore_relations=WAREHOUSE_VIEWS
        )
        == []
    )

    # The public marts are tables of the warehouse, holding what DuckDB built.
    from pyhive import hive

    connection = hive.connect(host=local_spark.HOST, port=cluster.thrift_port, username="test")
    cursor = connection.cursor()
    cursor.execute("select count(*) from challenge_fairness.fct_challenge_verdicts")
    assert cursor.fetchall() == [(verdicts,)]
    cursor.execute("select count(*) from challenge_fairness.fct_rejected_rows")
    assert cursor.fetchall() == [(rejected,)]
    assert rejected > 0
    connection.close()
