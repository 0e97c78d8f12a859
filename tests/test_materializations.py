"""The project's `table` and `view` materializations (macros/materializations/).

They drop and create a relation in one transaction (or replace a table with one CREATE OR
REPLACE TABLE) instead of dbt-duckdb's temporary name, backup and renames. This builds a
probe project on the package's macros and checks what a user of dbt relies on: hooks inside
and outside the transaction, contracts, Python models, a rebuild over the previous relation
(also of another type), and a failed build that leaves the previous table as it was.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from conftest import read_table, run_dbt, write_macro_probe

pytestmark = pytest.mark.dbt

MODELS = {
    "probe_table.sql": """\
        {{ config(
            materialized='table',
            pre_hook="create or replace table main.hook_pre
                      as select {{ var('hook_version', 0) }} as version",
            post_hook=[
                "create or replace table main.hook_post_inside
                 as select count(*) as n from {{ this }}",
                {"sql": "create or replace table main.hook_post_outside as select 1 as n",
                 "transaction": false},
            ],
        ) }}
        select {{ var('version') }} as version
    """,
    # No hooks, no contract: replaced by one CREATE OR REPLACE TABLE, without a drop.
    "probe_plain.sql": """\
        {{ config(materialized='table') }}
        select {{ var('version') }} as version
    """,
    # A contract and no hooks: dropped first, in the transaction that creates it again.
    "probe_contract.sql": """\
        {{ config(materialized='table') }}
        select {{ var('version') }} as version
    """,
    "probe_view.sql": """\
        {{ config(materialized='view') }}
        select version * 10 as version_tenfold from {{ ref('probe_table') }}
    """,
    "probe_switch.sql": """\
        {{ config(materialized=var('switch', 'table')) }}
        select 1 as one
    """,
    "probe_python.py": """\
        def model(dbt, session):
            dbt.config(materialized="table")
            return dbt.ref("probe_table").df().assign(doubled=lambda frame: frame.version * 2)
    """,
    # A Python model of the version: its job writes the table on a cursor of its own.
    "probe_python_version.py": """\
        def model(dbt, session):
            dbt.config(materialized="table")
            return session.sql(f"select cast({dbt.config.get('version')} as integer) as version")
    """,
    "_probe.yml": """\
        version: 2
        models:
          - name: probe_table
            config:
              contract: {enforced: true}
            columns:
              - name: version
                data_type: integer
          - name: probe_python_version
            config:
              version: "{{ var('version') }}"
          - name: probe_contract
            config:
              contract: {enforced: true}
            columns:
              - name: version
                data_type: integer
    """,
}


def write_probe(project: Path) -> None:
    write_macro_probe(project, "materialization_probe", "model-paths: [models]")
    (project / "models").mkdir(parents=True)
    for name, text in MODELS.items():
        (project / "models" / name).write_text(textwrap.dedent(text))


def relation_types(database: Path) -> dict[str, str]:
    tables = read_table(
        database,
        "select table_name, table_type from information_schema.tables where table_schema = 'main'",
    )
    return dict(zip(tables["table_name"], tables["table_type"], strict=True))


def test_hooks_contracts_python_and_rebuilds(tmp_path: Path) -> None:
    project = tmp_path / "probe"
    write_probe(project)
    database = tmp_path / "probe.duckdb"

    first = run_dbt(
        ["run"],
        database=database,
        work_dir=tmp_path,
        project_dir=project,
        dbt_vars={"version": 1, "hook_version": 1},
    )
    assert first.success, first.output
    assert relation_types(database)["probe_switch"] == "BASE TABLE"
    assert read_table(database, "select * from main.hook_pre")["version"].tolist() == [1]
    # the post-hook inside the transaction sees the new table
    assert read_table(database, "select * from main.hook_post_inside")["n"].tolist() == [1]
    assert "hook_post_outside" in relation_types(database)

    second = run_dbt(
        ["run"],
        database=database,
        work_dir=tmp_path,
        project_dir=project,
        dbt_vars={"version": 2, "switch": "view"},
    )
    assert second.success, second.output
    types = relation_types(database)
    assert types["probe_switch"] == "VIEW"  # the table of the same name was dropped
    assert read_table(database, "select * from main.probe_table")["version"].tolist() == [2]
    assert read_table(database, "select * from main.probe_view")["version_tenfold"].tolist() == [20]
    assert read_table(database, "select * from main.probe_python")["doubled"].tolist() == [4]
    assert read_table(database, "select * from main.probe_plain")["version"].tolist() == [2]
    assert not [name for name in types if "__dbt_tmp" in name or "__dbt_backup" in name]
    log = (tmp_path / "logs" / "dbt.log").read_text()
    assert "__dbt_backup" not in log
    # only the Python models write a temporary name: their jobs run outside the transaction
    assert set(re.findall(r'"(\w+)__dbt_tmp"', log)) == {"probe_python", "probe_python_version"}
    # a table without contract or hooks is replaced, not dropped first; one with them is
    assert 'drop table if exists "probe"."main"."probe_plain"' not in log
    assert 'create or replace table "probe"."main"."probe_plain"' in log
    assert 'drop table if exists "probe"."main"."probe_table"' in log

    back = run_dbt(
        ["run", "--select", "probe_switch"],
        database=database,
        work_dir=tmp_path,
        project_dir=project,
        dbt_vars={"version": 2, "switch": "table"},
    )
    assert back.success, back.output
    assert relation_types(database)["probe_switch"] == "BASE TABLE"  # the view was dropped


@pytest.mark.parametrize(
    ("model", "version", "message"),
    [
        # fails filling the new table, after the drop
        ("probe_table", "cast(error('boom') as integer)", "boom"),
        ("probe_table", "'not a number'", "contract"),  # fails the contract check, after the drop
        # the same without hooks: no hook's statement opens the transaction before the drop
        ("probe_contract", "cast(error('boom') as integer)", "boom"),
        ("probe_contract", "'not a number'", "contract"),
        ("probe_plain", "cast(error('boom') as integer)", "boom"),  # fails its CREATE OR REPLACE
        ("probe_python_version", "cast(error('boom') as integer)", "boom"),  # fails its job
    ],
)
def test_a_failed_build_keeps_the_previous_table(
    tmp_path: Path, model: str, version: str, message: str
) -> None:
    project = tmp_path / "probe"
    write_probe(project)
    database = tmp_path / "probe.duckdb"
    built = run_dbt(
        ["run", "--select", model],
        database=database,
        work_dir=tmp_path,
        project_dir=project,
        dbt_vars={"version": 3},
    )
    assert built.success, built.output

    failed = run_dbt(
        ["run", "--select", model],
        database=database,
        work_dir=tmp_path,
        project_dir=project,
        dbt_vars={"version": version},
    )
    assert not failed.success
    assert message in failed.output.lower(), failed.output
    assert read_table(database, f"select * from main.{model}")["version"].tolist() == [3]
