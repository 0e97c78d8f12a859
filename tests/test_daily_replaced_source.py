"""Daily runs detect a replaced or truncated source cheaply (issue 32, item 7): with
check_history false a run only counts the folded raw rows, so a parquet folder replaced by
another platform with as many rows went through with stale marts. The checksum of the
first `history_head_rows` folded rows, compared in every run, stops it asking for
--full-refresh; a truncated table stops it by its count."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from challenge_fairness.demo import PlatformSpec, generate_platform, write_parquet
from conftest import run_dbt

pytestmark = pytest.mark.dbt

SELECT = ["run", "--select", "+base_platform__attempts"]


def platform_folder(folder: Path, seed: int) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    write_parquet(generate_platform(PlatformSpec(seed=seed, n_attempts=800)), str(folder))


def test_a_replaced_or_truncated_source_stops_a_daily_run(tmp_path: Path) -> None:
    import duckdb
    import pyarrow.parquet as pq

    raw = tmp_path / "raw"
    platform_folder(raw, seed=1)
    database = tmp_path / "platform.duckdb"
    daily = {"raw_parquet_dir": str(raw), "check_history": False}
    first = run_dbt(SELECT, database=database, work_dir=tmp_path, dbt_vars=daily)
    assert first.success, first.output
    again = run_dbt(SELECT, database=database, work_dir=tmp_path, dbt_vars=daily)
    assert again.success, again.output  # nothing changed: the head matches

    platform_folder(raw, seed=2)  # another platform, as many attempts
    replaced = run_dbt(SELECT, database=database, work_dir=tmp_path, dbt_vars=daily)
    assert not replaced.success
    assert "run dbt build --full-refresh" in replaced.output

    platform_folder(raw, seed=1)
    attempts = pq.read_table(raw / "attempts.parquet")
    pq.write_table(attempts.slice(0, attempts.num_rows // 2), raw / "attempts.parquet")
    truncated = run_dbt(SELECT, database=database, work_dir=tmp_path, dbt_vars=daily)
    assert not truncated.success
    assert "run dbt build --full-refresh" in truncated.output

    # a database built by an older version (a column this one stores is missing): the
    # upgrade sentence, not a binder error
    platform_folder(raw, seed=1)
    with duckdb.connect(str(database)) as connection:
        connection.execute("alter table staging.base_platform__attempts drop column validated_with")
    older = run_dbt(SELECT, database=database, work_dir=tmp_path, dbt_vars=daily)
    assert not older.success
    assert (
        "lacks column validated_with, so it was built by an older version of challenge_fairness:"
        " run dbt build --full-refresh once after an upgrade"
    ) in older.output
    assert "Binder Error" not in older.output

    # the same for a column the model's YAML declares, whatever the run reads: run start
    # names the model and every missing column before anything is built
    with duckdb.connect(str(database)) as connection:
        connection.execute("alter table staging.base_platform__attempts drop column raw_record")
    older = run_dbt(SELECT, database=database, work_dir=tmp_path, dbt_vars=daily)
    assert not older.success
    assert "challenge_fairness stops before building anything" in older.output
    assert ("base_platform__attempts: the stored table") in older.output
    assert (
        "lacks columns raw_record, validated_with, so it was built by an older version of"
        " challenge_fairness: run dbt build --full-refresh once after an upgrade"
    ) in older.output
    refreshed = run_dbt(
        [*SELECT, "--full-refresh"], database=database, work_dir=tmp_path, dbt_vars=daily
    )
    assert refreshed.success, refreshed.output
