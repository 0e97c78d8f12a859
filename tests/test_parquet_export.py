"""BI hand-off: the public marts written to var('parquet_export_dir') after a run
(on-run-end hook) and by `dbt run-operation export_public_marts`, and their descriptions
written as database comments (on-run-end hook persist_public_docs)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from conftest import REPO_ROOT, run_dbt
from report_fixtures import public_mart_names, small_platform_build

pytestmark = pytest.mark.dbt


def main_tables(database: Path) -> set[str]:
    with duckdb.connect(str(database), read_only=True) as connection:
        rows = connection.sql(
            "select table_name from information_schema.tables where table_schema = 'main'"
        ).fetchall()
    return {row[0] for row in rows}


def assert_same_as_tables(database: Path, export_dir: Path, marts: set[str]) -> None:
    """Each mart's parquet file has the table's rows and columns (names and types)."""
    with duckdb.connect(str(database), read_only=True) as connection:
        for mart in sorted(marts):
            path = export_dir / f"{mart}.parquet"
            assert path.is_file(), mart
            table = connection.sql(f"select * from main.{mart}")
            rows = connection.execute(f"select count(*) from main.{mart}").fetchone()
            parquet = pq.read_table(path)
            assert parquet.num_rows == (rows[0] if rows else None), mart
            assert parquet.column_names == table.columns, mart
            read_back = connection.sql(f"select * from read_parquet('{path}')")
            assert read_back.types == table.types, mart
            difference = connection.execute(
                f"""select count(*) from (
                    (select * from main.{mart} except all select * from read_parquet('{path}'))
                    union all
                    (select * from read_parquet('{path}') except all select * from main.{mart})
                )"""
            ).fetchone()
            assert difference == (0,), mart


def test_build_exports_the_marts_it_built(tmp_path_factory: pytest.TempPathFactory) -> None:
    """After `dbt build` with parquet_export_dir, every public mart it built is a parquet file
    (the folder, two levels deep, is created) with the same rows, columns and types; nothing
    else is written there."""
    build = small_platform_build(tmp_path_factory)
    export_dir: Path = build["export_dir"]
    built_marts = set(build["built_models"]) & public_mart_names()
    assert {"fct_challenge_verdicts", "rpt_flagged_challenge_score_distributions"} <= built_marts
    assert {path.name for path in export_dir.iterdir()} == {
        f"{mart}.parquet" for mart in built_marts
    }
    assert_same_as_tables(build["database"], export_dir, built_marts)
    assert any("export_public_marts: wrote" in message for message in build["run"].messages)


def test_only_marts_built_in_this_run_are_exported(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    """A run that builds one mart exports that one, not the other marts in the database;
    intermediate models are never exported."""
    build = small_platform_build(tmp_path_factory)
    export_dir = tmp_path / "one"
    run = run_dbt(
        ["run", "--select", "fct_combination_difficulty"],
        database=build["database"],
        work_dir=tmp_path,
        dbt_vars={"parquet_export_dir": str(export_dir)},
    )
    assert run.success, run.output
    assert sorted(path.name for path in export_dir.iterdir()) == [
        "fct_combination_difficulty.parquet"
    ]


def test_run_operation_exports_every_existing_mart(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    """`dbt run-operation export_public_marts` writes every public mart present in the
    database (staging and intermediate models stay out)."""
    build = small_platform_build(tmp_path_factory)
    export_dir = tmp_path / "all" / "marts"
    run = run_dbt(
        ["run-operation", "export_public_marts"],
        database=build["database"],
        work_dir=tmp_path,
        dbt_vars={"parquet_export_dir": str(export_dir)},
    )
    assert run.success, run.output
    existing = main_tables(build["database"]) & public_mart_names()
    assert existing
    assert {path.stem for path in export_dir.iterdir()} == existing
    assert_same_as_tables(build["database"], export_dir, existing)


def test_no_export_without_the_var(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    """parquet_export_dir null (the default): the operation writes nothing and says nothing."""
    build = small_platform_build(tmp_path_factory)
    before = set(REPO_ROOT.glob("*.parquet"))
    run = run_dbt(["run-operation", "export_public_marts"], build["database"], tmp_path)
    assert run.success, run.output
    assert not any("export_public_marts: wrote" in message for message in run.messages)
    assert set(REPO_ROOT.glob("*.parquet")) == before
    assert list(tmp_path.rglob("*.parquet")) == []


def test_built_marts_carry_their_descriptions_as_database_comments(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Every public mart the run built has its description as the table's comment and each
    documented column's description as the column's comment (what a BI tool browsing the
    database shows); staging and intermediate tables carry none."""
    build = small_platform_build(tmp_path_factory)
    nodes = {
        result.node.name: result.node
        for result in build["run"].result.result
        if result.node.resource_type == "model" and str(result.status) == "success"
    }
    public = set(nodes) & public_mart_names()
    assert "fct_challenge_verdicts" in public
    with duckdb.connect(str(build["database"]), read_only=True) as connection:
        table_comments = dict(
            connection.execute(
                "select table_name, comment from duckdb_tables() where schema_name = 'main'"
            ).fetchall()
        )
        column_comments = {
            (table, column): comment
            for table, column, comment in connection.execute(
                "select table_name, column_name, comment from duckdb_columns()"
                " where schema_name = 'main'"
            ).fetchall()
        }
        commented_elsewhere = connection.execute(
            # the raw schema's tables carry the demo generator's marker (cli_guard), not docs
            "select count(*) from duckdb_tables()"
            " where schema_name not in ('main', 'raw') and comment is not null"
        ).fetchone()
    documented_columns = 0
    for name in sorted(public):
        node = nodes[name]
        assert node.description, name
        assert table_comments[name] == node.description, name
        for column in node.columns.values():
            if column.description:
                assert column_comments[(name, column.name)] == column.description, (name, column)
                documented_columns += 1
    assert documented_columns > 10 * len(public) / 2
    assert any("'" in comment for comment in column_comments.values() if comment)
    assert commented_elsewhere == (0,)
