"""bench/compare_marts.py: equal builds pass, float noise within tolerance passes, real
differences, missing rows, changed types and removed marts fail."""

from __future__ import annotations

import sys
from pathlib import Path

import duckdb
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import compare_marts  # noqa: E402


def build(path: Path, statements: list[str]) -> Path:
    with duckdb.connect(str(path)) as connection:
        for statement in statements:
            connection.execute(statement)
    return path


BASE = [
    "create table fct_a (id varchar, family varchar, value double, n bigint, tags varchar[])",
    "insert into fct_a values ('c1', 'x', 1.5, 3, ['a']), ('c1', 'y', null, 4, []),"
    " ('c2', 'x', 'nan'::double, 5, null)",
    "create table fct_b (id varchar, score double)",
    "insert into fct_b values ('c1', 100.0), ('c2', -2.0)",
]


@pytest.fixture
def old(tmp_path: Path) -> Path:
    return build(tmp_path / "old.duckdb", BASE)


def run(old: Path, new: Path, *extra: str) -> tuple[int, list[compare_marts.Comparison]]:
    code = compare_marts.main([str(old), str(new), *extra])
    return code, compare_marts.compare(old, new, "main", 1e-9, set())


def test_identical_builds_in_another_row_order_are_equal(old: Path, tmp_path: Path) -> None:
    shuffled = [
        *BASE[:1],
        "insert into fct_a values ('c2', 'x', 'nan'::double, 5, null), ('c1', 'y', null, 4, []),"
        " ('c1', 'x', 1.5, 3, ['a'])",
        *BASE[2:],
    ]
    code, results = run(old, build(tmp_path / "new.duckdb", shuffled))
    assert code == 0
    assert {r.status for r in results} == {"equal"}


def test_float_noise_within_the_tolerance_is_equal(old: Path, tmp_path: Path) -> None:
    noisy = [*BASE, "update fct_b set score = score * (1 + 1e-12)"]
    code, _ = run(old, build(tmp_path / "new.duckdb", noisy))
    assert code == 0


@pytest.mark.parametrize(
    ("change", "detail"),
    [
        ("update fct_b set score = score + 1e-6 where id = 'c1'", "column score: 1 of 2"),
        ("delete from fct_b where id = 'c2'", "rows: 2 -> 1"),
        ("update fct_a set n = 6 where id = 'c2'", "column n: 1 of 3"),
        ("update fct_a set value = 0 where family = 'y'", "column value: 1 of 3"),
        ("alter table fct_b alter score type float", "column score: DOUBLE -> FLOAT"),
    ],
)
def test_a_real_difference_fails(old: Path, tmp_path: Path, change: str, detail: str) -> None:
    code, results = run(old, build(tmp_path / "new.duckdb", [*BASE, change]))
    assert code == 1
    details = [d for r in results for d in r.details]
    assert any(d.startswith(detail) for d in details), details


def test_a_removed_mart_fails_and_an_added_one_is_listed(old: Path, tmp_path: Path) -> None:
    removed = build(tmp_path / "removed.duckdb", [*BASE, "drop table fct_b"])
    code, results = run(old, removed)
    assert code == 1
    assert {(r.relation, r.status) for r in results} >= {("fct_b", "removed")}

    added = build(tmp_path / "added.duckdb", [*BASE, "create table fct_c (id varchar)"])
    code, results = run(old, added)
    assert code == 0
    assert ("fct_c", "added") in {(r.relation, r.status) for r in results}


def test_ignored_relations_are_left_out(old: Path, tmp_path: Path) -> None:
    changed = build(tmp_path / "new.duckdb", [*BASE, "delete from fct_b"])
    code, _ = run(old, changed, "--ignore", "fct_b")
    assert code == 0


def test_ignored_columns_and_run_stamps_are_left_out(old: Path, tmp_path: Path) -> None:
    changed = build(tmp_path / "new.duckdb", [*BASE, "update fct_b set score = 0"])
    assert run(old, changed)[0] == 1
    assert run(old, changed, "--ignore-column", "fct_b.score")[0] == 0

    stamped = [
        "create table fct_fairness_gate_results (check_name varchar, validated_at timestamp)",
        "insert into fct_fairness_gate_results values ('a', now())",
    ]
    first = build(tmp_path / "first.duckdb", [*BASE, *stamped])
    second = build(tmp_path / "second.duckdb", [*BASE, *stamped])
    assert compare_marts.main([str(first), str(second)]) == 0
    assert compare_marts.main([str(first), str(second), "--keep-run-stamps"]) == 1
