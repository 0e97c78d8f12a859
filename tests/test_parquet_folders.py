"""Raw tables as folders of parquet files, as lakes write them.

`raw_parquet_dir` holds `<table>.parquet` or `<table>/` (any number of parquet files, Hive
partitions allowed; `_` and `.` files skipped). Rows arrive in path order, then row order,
so a day appended as a new file is a daily increment, and the marts equal a full build of
the same rows from single files. A file read before that is removed or rewritten, or a new
file that sorts before one read before, stops the run before anything is folded.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from challenge_fairness.demo import PlatformSpec, generate_platform, write_parquet
from conftest import read_table, run_dbt
from test_incremental import VARS, assert_equal_to_full_refresh

pytestmark = pytest.mark.dbt

# How each append-only table is laid out as a folder: Hive partitions, plain day files.
LAYOUTS = {
    "attempts": "day={part}/data.parquet",
    "test_results": "2026-07-{part}.parquet",
    "rubric_scores": "part-{part}.parquet",
}
PARTS = 3
GUARD_MESSAGE = "run dbt build --full-refresh to validate it again"


def write_part(single: Path, folder: Path, table: str, part: int) -> Path:
    """Write rows [part/PARTS, (part+1)/PARTS) of `single/<table>.parquet` as one file of
    `folder/<table>/`, named by LAYOUTS (parts sort in order)."""
    rows = pq.read_table(single / f"{table}.parquet")
    cut = [round(len(rows) * k / PARTS) for k in range(PARTS + 1)]
    path = folder / table / LAYOUTS[table].format(part=f"{part + 10:02d}")
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(rows.slice(cut[part], cut[part + 1] - cut[part]), path)
    return path


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    work = tmp_path_factory.mktemp("folders")
    platform = generate_platform(
        PlatformSpec(seed=11, n_attempts=6_000, dirty=True, detector_plants=True)
    )
    single = work / "single"
    write_parquet(platform, str(single))
    full = work / "full.duckdb"
    run = run_dbt(
        ["build"],
        database=full,
        work_dir=work / "full",
        dbt_vars={**VARS, "raw_parquet_dir": str(single)},
    )
    assert run.success, run.output

    folder = work / "lake"
    folder.mkdir()
    for path in single.glob("*.parquet"):
        if path.stem not in LAYOUTS:
            shutil.copy(path, folder / path.name)
    for table in LAYOUTS:
        (folder / table).mkdir()
        (folder / table / "_SUCCESS").write_text("")  # markers a lake leaves are not data
        (folder / table / ".part-00.parquet.crc").write_text("x")
    incremental = work / "incremental.duckdb"
    for step, parts in enumerate((range(PARTS - 1), range(PARTS - 1, PARTS))):
        for part in parts:
            for table in LAYOUTS:
                write_part(single, folder, table, part)
        run = run_dbt(
            ["build"],
            database=incremental,
            work_dir=work / f"step{step}",
            dbt_vars={**VARS, "raw_parquet_dir": str(folder), "check_history": step == 0},
        )
        assert run.success, run.output
    return {
        "full": full,
        "incremental": incremental,
        "lake": folder,
        "work": work,
        "single": single,
    }


def test_a_day_appended_as_a_file_is_folded_like_a_full_build(builds: dict[str, Any]) -> None:
    (sql,) = (builds["work"] / "step1" / "target" / "compiled").rglob("base_platform__attempts.sql")
    assert "watermark as (" in sql.read_text()  # the second run folded the new files only
    assert_equal_to_full_refresh(
        builds["full"], builds["incremental"], frozenset({"stg_platform__appended_files"})
    )


def test_the_files_read_are_listed_in_arrival_order(builds: dict[str, Any]) -> None:
    files = read_table(
        builds["incremental"],
        "select source_table, file_path, file_rows, first_row_number"
        " from staging.stg_platform__appended_files order by source_table, file_path",
    )
    assert sorted(files.source_table.unique()) == sorted(LAYOUTS)
    for _, listed in files.groupby("source_table"):
        assert len(listed) == PARTS  # _SUCCESS and .crc skipped
        starts = listed.file_rows.cumsum().shift(fill_value=0).tolist()
        assert listed.first_row_number.tolist() == starts


def test_a_build_looks_up_each_raw_table_once(builds: dict[str, Any]) -> None:
    """Every model and test that reads a raw table shares one look-up of its files per run
    (macro invocation_cache): the files' parquet metadata is read once, not per reader."""
    log = (builds["work"] / "step1" / "logs" / "dbt.log").read_text()
    for table in LAYOUTS:
        assert log.count(f"parquet_file_metadata(['{builds['lake']}/{table}/") == 1, table


def test_a_run_reusing_a_parsed_manifest_sees_the_files_appended_since(
    builds: dict[str, Any], tmp_path: Path
) -> None:
    """The look-ups are kept per invocation: a manifest reused by a later run (dbtRunner
    with manifest=...) does not carry the files an earlier run found."""
    lake, database = changed_lake(builds, tmp_path)
    dbt_vars = {**VARS, "raw_parquet_dir": str(lake), "check_history": False}
    parsed = run_dbt(["parse"], database=database, work_dir=tmp_path / "parse", dbt_vars=dbt_vars)
    assert parsed.success, parsed.output
    query = (
        "select count(*) from staging.stg_platform__appended_files where source_table = 'attempts'"
    )
    listed = []
    for step in range(2):
        if step == 1:  # a new day, sorting after the others
            day = lake / "attempts" / LAYOUTS["attempts"].format(part="13")
            day.parent.mkdir(parents=True)
            pq.write_table(pq.read_table(builds["single"] / "attempts.parquet").slice(0, 10), day)
        run = run_dbt(
            ["run", "--select", "stg_platform__appended_files"],
            database=database,
            work_dir=tmp_path / f"run{step}",
            dbt_vars=dbt_vars,
            manifest=parsed.result.result,
        )
        assert run.success, run.output
        listed.append(int(read_table(database, query).iloc[0, 0]))
    assert listed == [PARTS, PARTS + 1]


def changed_lake(builds: dict[str, Any], tmp_path: Path) -> tuple[Path, Path]:
    lake = tmp_path / "lake"
    shutil.copytree(builds["lake"], lake)
    database = tmp_path / "db.duckdb"
    shutil.copy(builds["incremental"], database)
    return lake, database


def run_daily(
    lake: Path, database: Path, work: Path, *args: str, check_history: bool = False
) -> Any:
    return run_dbt(
        ["run", "--select", "stg_platform__appended_files", "base_platform__attempts", *args],
        database=database,
        work_dir=work,
        dbt_vars={**VARS, "raw_parquet_dir": str(lake), "check_history": check_history},
    )


@pytest.mark.parametrize("change", ["removed", "rewritten", "sorts_before"])
def test_a_file_read_before_that_changed_stops_the_run(
    builds: dict[str, Any], tmp_path: Path, change: str
) -> None:
    lake, database = changed_lake(builds, tmp_path)
    first = lake / "attempts" / LAYOUTS["attempts"].format(part="10")
    if change == "removed":
        shutil.rmtree(first.parent)
        expected = f"{first} was removed"
    elif change == "rewritten":
        rows = pq.read_table(first)
        pq.write_table(rows.slice(0, len(rows) - 1), first)
        expected = f"{first} was rewritten ({len(rows)} rows"
    else:
        early = lake / "attempts" / LAYOUTS["attempts"].format(part="09")
        early.parent.mkdir()
        pq.write_table(pq.read_table(first).slice(0, 5), early)
        expected = f"{early} is new but sorts before"
    run = run_daily(lake, database, tmp_path / "daily")
    assert not run.success
    assert expected in run.output
    assert GUARD_MESSAGE in run.output
    if change == "sorts_before":  # what the message asks for mends it (once is enough to show)
        run = run_daily(lake, database, tmp_path / "refresh", "--full-refresh")
        assert run.success, run.output


def attempts_lake(builds: dict[str, Any], tmp_path: Path) -> tuple[Path, Any]:
    """A copy of the lake whose attempts folder is empty, and the attempts to fill it with."""
    lake = tmp_path / "lake"
    shutil.copytree(builds["lake"], lake)
    shutil.rmtree(lake / "attempts")
    (lake / "attempts").mkdir()
    return lake, pq.read_table(builds["single"] / "attempts.parquet")


def assert_staged_like_a_full_refresh(lake: Path, daily: Path, tmp_path: Path, rows: int) -> None:
    """`base_platform__attempts` folded in `daily` equals a full refresh of the same lake."""
    refreshed = tmp_path / "refreshed.duckdb"
    shutil.copy(daily, refreshed)
    run = run_daily(lake, refreshed, tmp_path / "refresh", "--full-refresh")
    assert run.success, run.output
    query = "select * from staging.base_platform__attempts order by source_row_number"
    folded, rebuilt = read_table(daily, query), read_table(refreshed, query)
    assert len(rebuilt) == rows
    assert folded.equals(rebuilt)


def test_files_arrive_in_code_point_order_of_their_paths(
    builds: dict[str, Any], tmp_path: Path
) -> None:
    """Paths sort by code point (`B.parquet` before `a.parquet`), as Python, DuckDB and Spark
    compare text. Sorted ignoring case (Jinja's default), the new `a.parquet` was numbered
    before `B.parquet`, read the day before, which the file guard (comparing with case) let
    through: the base model's history guard then stopped a valid append."""
    lake, rows = attempts_lake(builds, tmp_path)
    cut = len(rows) * 2 // 3
    pq.write_table(rows.slice(0, cut), lake / "attempts" / "B.parquet")
    daily = tmp_path / "daily.duckdb"
    assert run_daily(lake, daily, tmp_path / "first").success
    pq.write_table(rows.slice(cut), lake / "attempts" / "a.parquet")
    run = run_daily(lake, daily, tmp_path / "daily")
    assert run.success, run.output
    query = (
        "select file_path, first_row_number from staging.stg_platform__appended_files"
        " where source_table = 'attempts' order by first_row_number"
    )
    files = read_table(daily, query)
    assert files.file_path.tolist() == ["B.parquet", "a.parquet"]
    assert files.first_row_number.tolist() == [0, cut]
    assert_staged_like_a_full_refresh(lake, daily, tmp_path, len(rows))
    # `C.parquet` sorts between the two (after `a.parquet` ignoring case): it stops the run
    pq.write_table(rows.slice(0, 5), lake / "attempts" / "C.parquet")
    run = run_daily(lake, daily, tmp_path / "between")
    assert not run.success
    assert f"{lake}/attempts/C.parquet is new but sorts before a.parquet" in run.output


@pytest.mark.parametrize("change", ["score_as_double", "submitted_at_in_utc", "approach_added"])
def test_a_new_day_may_widen_a_column_or_add_an_optional_one(
    builds: dict[str, Any], tmp_path: Path, change: str
) -> None:
    """Writers change a column's physical type between days: pandas writes a score column
    with a missing value as float64 (int64 the day before), a job starts writing
    timestamps with their UTC zone, a later day adds the optional `approach`. Read as one
    table, every file then takes the wider type; the rows folded before are the same
    rows, so the daily run folds the new day, the weekly history check passes, and the
    staged rows equal a full build's."""
    lake, rows = attempts_lake(builds, tmp_path)
    rows = rows.set_column(3, "score", pc.round(rows["score"]))  # whole numbers, as int64 holds
    cut = len(rows) * 2 // 3
    before, after = rows.slice(0, cut), rows.slice(cut)
    if change == "score_as_double":
        before = before.set_column(3, "score", pc.cast(before["score"], pa.int64()))
    elif change == "submitted_at_in_utc":
        utc = pc.cast(after["submitted_at"], pa.timestamp("us", tz="UTC"))
        after = after.set_column(4, "submitted_at", utc)
    else:
        labels = [("recursion", None, " iteration ")[i % 3] for i in range(len(after))]
        after = after.append_column("approach", pa.array(labels, pa.string()))
    pq.write_table(before, lake / "attempts" / "2026-07-01.parquet")
    daily = tmp_path / "daily.duckdb"
    assert run_daily(lake, daily, tmp_path / "first").success
    pq.write_table(after, lake / "attempts" / "2026-07-02.parquet")
    run = run_daily(lake, daily, tmp_path / "daily")
    assert run.success, run.output
    run = run_daily(lake, daily, tmp_path / "weekly", check_history=True)
    assert run.success, run.output
    assert_staged_like_a_full_refresh(lake, daily, tmp_path, len(rows))


def test_a_new_day_of_results_and_rubric_scores_as_text_widens_the_columns(
    builds: dict[str, Any], tmp_path: Path
) -> None:
    """A day whose `passed` and `points` are text makes both columns text for every file
    (BOOLEAN and DOUBLE before): the rows folded before keep their checksums, and the
    build with the history check equals a full refresh."""
    lake, database = changed_lake(builds, tmp_path)
    for table, column in (("test_results", "passed"), ("rubric_scores", "points")):
        rows = pq.read_table(lake / table / LAYOUTS[table].format(part="10")).slice(0, 5)
        as_text = pc.cast(rows[column], pa.string())
        rows = rows.set_column(rows.schema.get_field_index(column), column, as_text)
        pq.write_table(rows, lake / table / LAYOUTS[table].format(part="13"))
    dbt_vars = {**VARS, "raw_parquet_dir": str(lake), "check_history": True}
    refreshed = tmp_path / "refreshed.duckdb"
    shutil.copy(database, refreshed)
    for path, work, args in (
        (database, "daily", []),
        (refreshed, "refresh", ["--full-refresh"]),
    ):
        build = ["build", "--exclude-resource-type", "unit_test", *args]
        run = run_dbt(build, database=path, work_dir=tmp_path / work, dbt_vars=dbt_vars)
        assert run.success, run.output
    (sql,) = (tmp_path / "daily" / "target" / "compiled").rglob(
        "int_keyed__test_results_checked.sql"
    )
    assert "watermark as (" in sql.read_text()  # folded, not validated again in full
    assert_equal_to_full_refresh(refreshed, database, frozenset({"stg_platform__appended_files"}))


@pytest.mark.parametrize("table", ["attempts", "test_results"])
def test_a_single_file_cut_short_stops_a_daily_run(
    builds: dict[str, Any], tmp_path: Path, table: str
) -> None:
    """Read from one file, the rows folded before are counted from its metadata in a daily
    run (check_history false), not read: a file rewritten without its last tenth (clean
    rows folded before among them) still stops the run."""
    single = tmp_path / "single"
    shutil.copytree(builds["single"], single)
    rows = pq.read_table(single / f"{table}.parquet")
    pq.write_table(rows.slice(0, len(rows) * 9 // 10), single / f"{table}.parquet")
    database = tmp_path / "db.duckdb"
    shutil.copy(builds["full"], database)
    model = {
        "attempts": "base_platform__attempts",
        "test_results": "int_keyed__test_results_checked",
    }[table]
    run = run_dbt(
        ["run", "--select", f"+{model}"],
        database=database,
        work_dir=tmp_path / "daily",
        # no head of the table compared either (var history_head_rows): the count alone
        dbt_vars={
            **VARS,
            "raw_parquet_dir": str(single),
            "check_history": False,
            "history_head_rows": 0,
        },
    )
    assert not run.success
    assert f"{model}: the raw {table.replace('_', ' ')} up to row" in run.output
    assert GUARD_MESSAGE in run.output
    (sql,) = (tmp_path / "daily" / "target" / "compiled").rglob(f"{model}.sql")
    raw_kept = sql.read_text().split("raw_kept as (")[1].split("\n),")[0]
    assert "count(*) as kept_rows" not in raw_kept  # counted from the files' metadata


def test_a_folder_file_without_a_required_column_stops_the_run_at_start(
    builds: dict[str, Any], tmp_path: Path
) -> None:
    lake, database = changed_lake(builds, tmp_path)
    late = lake / "attempts" / "day=99" / "data.parquet"
    late.parent.mkdir()
    rows = pq.read_table(lake / "attempts" / LAYOUTS["attempts"].format(part="10"))
    pq.write_table(rows.drop_columns(["score"]).slice(0, 3), late)
    run = run_daily(lake, database, tmp_path / "daily")
    assert not run.success
    assert f"file {late} of table attempts lacks column(s) score" in run.output
    assert "checked before building anything" in run.output


def test_a_table_both_as_file_and_folder_stops_the_run(
    builds: dict[str, Any], tmp_path: Path
) -> None:
    lake, database = changed_lake(builds, tmp_path)
    shutil.copy(builds["single"] / "attempts.parquet", lake / "attempts.parquet")
    run = run_daily(lake, database, tmp_path / "daily")
    assert not run.success
    assert "raw table attempts is both a file" in run.output
