"""The grouped `row_checks` test: each assertion it carries fails on exactly its bad rows.

The per-column not_null / accepted_range / accepted_values tests and the per-model
expression_is_true / unique / unique_combination tests are one `row_checks` test per model
(one dbt node, one scan instead of one each). This builds a probe project on the package's
macros, with a seed that breaks each kind of assertion a known number of times, and reads
the failing assertions back.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import read_table, run_dbt, write_macro_probe

pytestmark = pytest.mark.dbt

SEED = """\
id,kind,score,low,high
1,a,10,1,2
2,b,-1,1,2
2,b,101,3,2
2,b,50,1,2
3,z,50,1,
4,,,,
"""

SCHEMA = """\
version: 2
seeds:
  - name: probe_rows
    config:
      column_types: {id: integer, kind: varchar, score: double, low: integer, high: integer}
    data_tests:
      - row_checks:
          name: probe_broken
          config: {store_failures: true}
          arguments:
            unique_keys:
              - [id]
              - [id, kind]
              - [kind, score]
            not_null: [id, kind]
            accepted_range:
              score: {min_value: 0, max_value: 100}
              low: {min_value: 1}
            accepted_values:
              kind: [a, b, "it's"]
            expressions:
              - "low <= high"
              - "id > 0"
      - row_checks:
          name: probe_sound
          arguments:
            unique_keys: [[id, score]]
            not_null: [id]
            accepted_range: {high: {max_value: 2}}
            expressions: ["score is null or score = score"]
"""


def write_probe(project: Path) -> None:
    write_macro_probe(project, "row_checks_probe", "seed-paths: [seeds]")
    (project / "seeds").mkdir(parents=True)
    (project / "seeds" / "probe_rows.csv").write_text(SEED)
    (project / "seeds" / "_seeds.yml").write_text(SCHEMA)


def test_each_assertion_fails_on_its_bad_rows_only(tmp_path: Path) -> None:
    project = tmp_path / "probe"
    write_probe(project)
    database = tmp_path / "probe.duckdb"
    run = run_dbt(["build"], database=database, work_dir=tmp_path, project_dir=project)
    assert not run.success
    statuses = {result.node.name: (result.status, result.failures) for result in run.result.result}
    assert statuses["probe_sound"] == ("pass", 0)
    assert statuses["probe_broken"] == ("fail", 6)
    failures = read_table(
        database, "select check_name, failing_rows from dbt_test__audit.probe_broken"
    )
    assert dict(zip(failures["check_name"], failures["failing_rows"].astype(int), strict=True)) == {
        "unique(id)": 1,  # id 2 three times: one repeated value
        "unique(id, kind)": 1,  # (2, b) three times; (4, NULL) once
        "not_null(kind)": 1,  # row 4
        "accepted_range(score: 0..100)": 2,  # -1 and 101; NULL passes
        "accepted_values(kind)": 1,  # z; NULL passes
        "expression(low <= high)": 3,  # 3 > 2, and the two NULL comparisons fail
    }


def test_no_assertion_is_an_error(tmp_path: Path) -> None:
    project = tmp_path / "probe"
    write_probe(project)
    (project / "seeds" / "_seeds.yml").write_text(
        "version: 2\nseeds:\n  - name: probe_rows\n    data_tests: [row_checks]\n"
    )
    run = run_dbt(
        ["build"], database=tmp_path / "empty.duckdb", work_dir=tmp_path, project_dir=project
    )
    assert not run.success
    assert any("no assertion given" in message for message in run.messages), run.messages
