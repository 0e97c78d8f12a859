"""Clear input errors: the run-start check names the missing raw table or column, where it
looked and what the contract expects; a missing database file is refused, not created."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from challenge_fairness.demo import PlatformSpec, generate_platform, write_parquet
from conftest import DbtRun, read_table, run_dbt

pytestmark = pytest.mark.dbt

# A cheap selection that reads the four required raw tables (attempts with its parents).
READ_ALL = ["run", "--select", "+int_keyed__attempts"]
ATTEMPTS_CONTRACT = (
    "attempts: attempt_id VARCHAR, challenge_id VARCHAR, agent_id VARCHAR, score DOUBLE,"
    " submitted_at TIMESTAMP"
)


@pytest.fixture(scope="module")
def raw_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The four required tables as parquet, no optional table."""
    folder = tmp_path_factory.mktemp("input") / "raw"
    write_parquet(generate_platform(PlatformSpec(seed=9, n_attempts=500)), str(folder))
    assert sorted(p.name for p in folder.iterdir()) == [
        "agents.parquet",
        "attempts.parquet",
        "challenges.parquet",
        "models.parquet",
    ]
    return folder


def copy_folder(raw_folder: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "raw"
    shutil.copytree(raw_folder, folder)
    return folder


def run_on_parquet(folder: Path | str, tmp_path: Path, args: list[str] = READ_ALL) -> DbtRun:
    return run_dbt(
        args,
        database=tmp_path / "marts.duckdb",
        work_dir=tmp_path,
        dbt_vars={"raw_parquet_dir": str(folder)},
    )


def test_a_complete_folder_without_optional_tables_passes(raw_folder: Path, tmp_path: Path) -> None:
    run = run_on_parquet(
        raw_folder,
        tmp_path,
        [*READ_ALL, "base_platform__test_cases", "base_platform__rubric_items"],
    )
    assert run.success, run.output
    assert "cannot read its raw input" not in run.output


def test_nonexistent_parquet_folder(tmp_path: Path) -> None:
    missing = tmp_path / "no_such_folder"
    run = run_on_parquet(missing, tmp_path)
    assert not run.success
    assert (
        f"no files in the parquet folder raw_parquet_dir = '{missing}': the folder does not exist"
        " or is empty"
    ) in run.output
    assert ATTEMPTS_CONTRACT in run.output
    assert "models: model_id VARCHAR, model_family VARCHAR, training_cutoff DATE" in run.output


def test_missing_attempts_parquet(raw_folder: Path, tmp_path: Path) -> None:
    folder = copy_folder(raw_folder, tmp_path)
    (folder / "attempts.parquet").unlink()
    run = run_on_parquet(folder, tmp_path)
    assert not run.success
    assert (
        f"missing attempts.parquet (or a folder attempts/ of parquet files) in the parquet folder"
        f" raw_parquet_dir = '{folder}'"
        " (found: agents.parquet, challenges.parquet, models.parquet)"
    ) in run.output
    assert ATTEMPTS_CONTRACT in run.output
    assert "challenges: challenge_id" not in run.output  # only the broken table's contract


def test_renamed_column_in_parquet(raw_folder: Path, tmp_path: Path) -> None:
    folder = copy_folder(raw_folder, tmp_path)
    path = str(folder / "attempts.parquet")
    attempts = pq.read_table(raw_folder / "attempts.parquet")
    names = ["points" if name == "score" else name for name in attempts.column_names]
    pq.write_table(attempts.rename_columns(names), path)
    run = run_on_parquet(folder, tmp_path)
    assert not run.success
    assert (
        f"table attempts in the parquet folder raw_parquet_dir = '{folder}' lacks column(s) score"
        " (it has: attempt_id, challenge_id, agent_id, points, submitted_at)"
    ) in run.output
    assert ATTEMPTS_CONTRACT in run.output


def test_database_without_the_raw_schema_and_a_missing_table_or_column(tmp_path: Path) -> None:
    database = tmp_path / "other.duckdb"
    with duckdb.connect(str(database)) as connection:
        connection.sql("create table main.notes (note varchar)")
    run = run_dbt(READ_ALL, database=database, work_dir=tmp_path)
    assert not run.success
    # dbt creates the selection's schemas (intermediate, main, staging) before the hooks
    assert f"no schema 'raw' in database 'other' (file {database}) (schemas there: " in run.output
    assert "main" in run.output.split("(schemas there: ")[1].split(")")[0]
    assert ATTEMPTS_CONTRACT in run.output

    with duckdb.connect(str(database)) as connection:
        connection.sql("create schema raw")
        connection.sql(
            "create table raw.attempts (attempt_id varchar, challenge_id varchar,"
            " agent_id varchar, points double, submitted_at timestamp)"
        )
    run = run_dbt(READ_ALL, database=database, work_dir=tmp_path)
    assert not run.success
    assert "table attempts in schema 'raw' of database 'other'" in run.output
    assert "lacks column(s) score (it has: attempt_id, challenge_id, agent_id, points" in (
        run.output
    )
    assert "missing table raw.challenges in schema 'raw' of database 'other'" in run.output
    assert "(tables there: attempts)" in run.output


def test_a_mistyped_database_path_is_refused_and_nothing_is_created(tmp_path: Path) -> None:
    database = tmp_path / "challenge_fairnes.duckdb"  # typo
    run = run_dbt(["build"], database=database, work_dir=tmp_path)
    assert not run.success
    assert f"the database file '{database}' does not exist" in run.output
    assert "refusing to create a new empty database" in run.output
    assert not [path.name for path in tmp_path.iterdir() if "duckdb" in path.name]


def test_a_new_database_is_created_when_the_raw_tables_come_from_parquet(
    raw_folder: Path, tmp_path: Path
) -> None:
    # named like the raw schema, which parquet inputs leave unread: no clash, not refused
    database = tmp_path / "raw.duckdb"
    run = run_dbt(
        ["run", "--select", "+stg_platform__models"],
        database=database,
        work_dir=tmp_path,
        dbt_vars={"raw_parquet_dir": str(raw_folder)},
    )
    assert run.success, run.output
    assert database.exists()


@pytest.mark.parametrize(
    ("file_name", "fragment"),
    [
        (
            "staging.duckdb",
            "is named 'staging' like the schema 'staging' the build reads or writes, and DuckDB"
            " cannot bind a view over staging.staging.<table>",
        ),
        ("main.duckdb", "is named 'main', a name DuckDB reserves (it calls the file's database"),
    ],
)
def test_a_database_named_like_a_schema_or_a_reserved_name_stops_the_run(
    raw_folder: Path, tmp_path: Path, file_name: str, fragment: str
) -> None:
    run = run_dbt(
        READ_ALL,
        database=tmp_path / file_name,
        work_dir=tmp_path,
        dbt_vars={"raw_parquet_dir": str(raw_folder)},
    )
    assert not run.success
    assert "challenge_fairness stops before building anything" in run.output
    assert fragment in run.output
    assert "rename the file, e.g. challenge_fairness.duckdb" in run.output


def test_a_type_that_is_not_the_contracts_or_a_safe_cast_stops_the_run(
    raw_folder: Path, tmp_path: Path
) -> None:
    """Issue 32, item 3: a BOOLEAN score would be read as 0/1 points, an epoch number as a
    timestamp; both stop the run at start naming table, column, found and expected type."""
    import pyarrow as pa
    import pyarrow.compute as pc

    folder = copy_folder(raw_folder, tmp_path)
    attempts = pq.read_table(raw_folder / "attempts.parquet")
    score = attempts.schema.get_field_index("score")
    submitted = attempts.schema.get_field_index("submitted_at")
    wrong = attempts.set_column(
        score, "score", pc.greater(pc.fill_null(attempts["score"], 0), 50)
    ).set_column(submitted, "submitted_at", pc.cast(attempts["submitted_at"], pa.int64()))
    pq.write_table(wrong, folder / "attempts.parquet")
    run = run_on_parquet(folder, tmp_path)
    assert not run.success
    where = f"in the parquet folder raw_parquet_dir = '{folder}'"
    assert f"column attempts.score {where} is BOOLEAN, expected DOUBLE (or" in run.output
    assert f"column attempts.submitted_at {where} is BIGINT, expected TIMESTAMP (or" in run.output
    assert ATTEMPTS_CONTRACT in run.output

    # documented safe casts pass: integer ids, DECIMAL scores, text timestamps
    safe = attempts.set_column(
        score, "score", pc.cast(attempts["score"], pa.decimal128(6, 2))
    ).set_column(submitted, "submitted_at", pc.cast(attempts["submitted_at"], pa.string()))
    pq.write_table(safe, folder / "attempts.parquet")
    run = run_on_parquet(folder, tmp_path)
    assert run.success, run.output


def test_what_the_run_start_can_see_stops_the_run_with_its_own_cause(
    raw_folder: Path, tmp_path: Path
) -> None:
    """Issue 32, item 8: a duplicated gate suite, an export folder that is a file, a folder
    path with glob characters and an optional table without a column its staging reads each
    stop the run before anything is built, with their own cause (not a binder error or a
    failure after the whole build)."""
    import pyarrow as pa

    folder = copy_folder(raw_folder, tmp_path)
    pq.write_table(
        pa.table({"attempt_id": ["a"], "test_case_id": ["t"], "outcome": [True]}),
        folder / "test_results.parquet",
    )
    export = tmp_path / "exports.parquet"
    export.write_text("not a folder")
    run = run_dbt(
        [*READ_ALL, "base_platform__test_results"],
        database=tmp_path / "marts.duckdb",
        work_dir=tmp_path,
        dbt_vars={
            "raw_parquet_dir": str(folder),
            "parquet_export_dir": str(export),
            "fairness_gate_suites": ["challenge_verdicts_not_flagged"] * 2,
        },
    )
    assert not run.success
    assert "challenge_fairness stops before building anything" in run.output
    assert "fairness_gate_suites lists challenge_verdicts_not_flagged twice" in run.output
    assert f"parquet_export_dir = '{export}' is a file, not a folder" in run.output
    assert (
        "optional table test_results is present but lacks column(s) passed"
        " (it has: attempt_id, test_case_id, outcome"
    ) in run.output
    built = read_table(
        tmp_path / "marts.duckdb",
        "select count(*) as n from information_schema.tables where table_schema <> 'main'",
    )
    assert built.n[0] == 0  # stopped before any model

    run = run_dbt(
        READ_ALL,
        database=tmp_path / "marts.duckdb",
        work_dir=tmp_path,
        dbt_vars={"raw_parquet_dir": str(raw_folder), "bias_scan_date": "2020-01-01"},
    )
    assert not run.success
    assert "bias_scan_date = 2020-01-01 is before every attempt (the first was submitted on" in (
        run.output
    )

    # a scan date no attempt can reach, and a trim that leaves one score in a judged cell
    run = run_dbt(
        READ_ALL,
        database=tmp_path / "marts.duckdb",
        work_dir=tmp_path,
        dbt_vars={
            "raw_parquet_dir": str(raw_folder),
            "bias_scan_date": "2999-01-01",
            "trim_proportion": 0.46,
            "min_family_attempts": 10,
        },
    )
    assert not run.success
    assert "bias_scan_date = 2999-01-01 is after the run date (UTC) plus" in run.output
    assert (
        "trim_proportion = 0.46 keeps a single score of a family cell of 11 attempts"
        " (min_family_attempts = 10)"
    ) in run.output
    assert "use a trim_proportion below 0.4545" in run.output
    run = run_dbt(
        ["run", "--select", "int_bias_scan_date"],
        database=tmp_path / "marts.duckdb",
        work_dir=tmp_path,
        dbt_vars={"raw_parquet_dir": str(raw_folder), "trim_proportion": 0.45},
    )
    assert "trim_proportion" not in run.output  # 0.45 keeps two of 11 (and of 10)

    run = run_on_parquet(str(folder) + "/[ab]", tmp_path)
    assert not run.success
    assert "holds glob characters" in run.output

    # an optional table with a column of a type its contract does not accept
    pq.write_table(
        pa.table({"attempt_id": ["a"], "test_case_id": ["t"], "passed": [0.7]}),
        folder / "test_results.parquet",
    )
    run = run_dbt(
        [*READ_ALL, "base_platform__test_results"],
        database=tmp_path / "marts.duckdb",
        work_dir=tmp_path,
        dbt_vars={"raw_parquet_dir": str(folder)},
    )
    assert not run.success
    assert (
        "column test_results.passed in the raw input is DOUBLE, expected BOOLEAN (or VARCHAR,"
    ) in run.output
