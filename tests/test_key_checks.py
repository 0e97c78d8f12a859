"""The cross-table key checks run after staging (issue 34, item 2): each base model applies
the rules of its own table, and int_keyed__rows_rejected rejects a row whose challenge,
agent or model is not clean, with the reason a single pass of every rule would give (a
key rule ranks after the row's id rules and before its value rules) and the raw record as
the raw table holds it, whatever the raw column types (text scores and timestamps,
integer points), although a row clean in staging stores no record of its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import read_table, run_dbt
from hardening_platforms import small_platform, write_raw

pytestmark = pytest.mark.dbt

SELECTION = [
    "+fct_rejected_rows",
    "+fct_source_row_counts",
    "+int_keyed__rubric_items",
    "+int_keyed__attempts",
]

#: attempt id -> (challenge_id, agent_id, raw score, raw submitted_at, expected reason)
PLANTED_ATTEMPTS = {
    "a-unknown-challenge": ("ch-missing", None, " 85", "2026-03-01T12:00:00+02:00",
                            "unknown_challenge_id"),
    "a-unknown-agent": (None, "ag-missing", "40", "2026-03-02 08:30:00", "unknown_agent_id"),
    "a-agent-of-unknown-model": (None, "ag-orphan", "55.5", "2026-03-03T00:00:00Z",
                                 "unknown_agent_id"),
    # a value rule and a key rule: the key rule ranks first
    "a-bad-score-unknown-challenge": ("ch-missing", None, "abc", "2026-03-04 10:00:00",
                                      "unknown_challenge_id"),
    # an id rule and a key rule: the id rule ranks first
    "a-blank-agent-unknown-challenge": ("ch-missing", "  ", "10", "2026-03-05 10:00:00",
                                        "null_agent_id"),
    "a-late-timestamp-unknown-agent": (None, "ag-missing", "20", "2999-01-01 00:00:00",
                                       "unknown_agent_id"),
}  # fmt: skip


def planted_platform(directory: Path) -> dict[str, Any]:
    """A small generated platform written with text scores and timestamps, integer rubric
    points, and rows naming what is not there; returns the clean ids the rows borrow."""
    tables = small_platform(seed=23, n_attempts=600)
    challenge = tables["challenges"][0]["challenge_id"]
    agent = tables["agents"][0]["agent_id"]
    tables["agents"].append({"agent_id": "ag-orphan", "model_id": "model-missing"})
    attempts = [
        {
            **row,
            "score": None if row["score"] is None else repr(row["score"]),
            "submitted_at": None
            if row["submitted_at"] is None
            else row["submitted_at"].strftime("%Y-%m-%dT%H:%M:%S.%f+00:00"),
        }
        for row in tables["attempts"]
    ]
    for attempt_id, (challenge_id, agent_id, score, submitted_at, _) in PLANTED_ATTEMPTS.items():
        attempts.append(
            {
                "attempt_id": attempt_id,
                "challenge_id": challenge_id or challenge,
                "agent_id": agent_id or agent,
                "score": score,
                "submitted_at": submitted_at,
            }
        )
    directory.mkdir(parents=True, exist_ok=True)
    text = pa.string()
    pq.write_table(
        pa.Table.from_pylist(
            attempts,
            schema=pa.schema(
                [("attempt_id", text), ("challenge_id", text), ("agent_id", text),
                 ("score", text), ("submitted_at", text)]
            ),
        ),
        directory / "attempts.parquet",
    )  # fmt: skip
    write_raw({name: tables[name] for name in ("challenges", "agents", "models")}, directory)
    pq.write_table(
        pa.table(
            {
                "rubric_item_id": ["ri-kept", "ri-unknown-challenge"],
                "challenge_id": [challenge, "ch-missing"],
                "description": ["Explains the approach", None],
                "max_points": pa.array([5, 3], pa.int32()),
            }
        ),
        directory / "rubric_items.parquet",
    )
    pq.write_table(
        pa.table(
            {
                "challenge_id": [challenge, "ch-missing"],
                "file_path": ["src/main.py", "src/other.py"],
                "content": ["print(1)\n", "print(2)\n"],
            }
        ),
        directory / "challenge_files.parquet",
    )
    return {"challenge": challenge, "agent": agent}


def raw_records(directory: Path, table: str, key: str, columns: list[str]) -> dict[str, str]:
    """Each raw row's record as staging writes one (ids as text, other values as read)."""
    fields = ", ".join(
        f'"{column}" := {"cast(" + column + " as varchar)" if column.endswith("_id") else column}'
        for column in columns
    )
    with duckdb.connect() as connection:
        connection.sql("set TimeZone = 'UTC'")
        rows = connection.sql(
            f"select cast({key} as varchar), cast(to_json(struct_pack({fields})) as varchar)"
            f" from read_parquet('{directory / (table + '.parquet')}')"
        ).fetchall()
    return dict(rows)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    work = tmp_path_factory.mktemp("key_checks")
    raw = work / "raw"
    planted_platform(raw)
    database = work / "platform.duckdb"
    run = run_dbt(
        ["build", "--select", *SELECTION, "--exclude", "fct_fairness_gate_results"],
        database=database,
        work_dir=work,
        dbt_vars={"raw_parquet_dir": str(raw)},
    )
    assert run.success, run.output
    return {"raw": raw, "database": database}


def test_a_row_naming_what_is_not_clean_is_rejected_with_the_first_rule(
    built: dict[str, Any],
) -> None:
    rejected = read_table(built["database"], "select * from main.fct_rejected_rows")
    reasons = {
        (row.source_table, row.record_id): row.rejection_reason for row in rejected.itertuples()
    }
    for attempt_id, (*_, reason) in PLANTED_ATTEMPTS.items():
        assert reasons[("attempts", attempt_id)] == reason, attempt_id
    assert reasons[("agents", "ag-orphan")] == "unknown_model_id"
    assert reasons[("rubric_items", "ri-unknown-challenge")] == "unknown_challenge_id"
    assert reasons[("challenge_files", "ch-missing / src/other.py")] == "unknown_challenge_id"
    attempts = read_table(built["database"], "select * from intermediate.int_keyed__attempts")
    assert not set(PLANTED_ATTEMPTS) & set(attempts.attempt_id)
    rubric_items = read_table(
        built["database"], "select * from intermediate.int_keyed__rubric_items"
    )
    assert rubric_items.rubric_item_id.tolist() == ["ri-kept"]
    counts = read_table(built["database"], "select * from main.fct_source_row_counts")
    assert counts.is_conserved.all()


def test_the_raw_record_is_the_raw_row_whatever_its_types(built: dict[str, Any]) -> None:
    rejected = read_table(built["database"], "select * from main.fct_rejected_rows").set_index(
        ["source_table", "record_id"]
    )
    attempts = raw_records(
        built["raw"],
        "attempts",
        "attempt_id",
        ["attempt_id", "challenge_id", "agent_id", "score", "submitted_at"],
    )
    for attempt_id in PLANTED_ATTEMPTS:
        got = rejected.loc[("attempts", attempt_id), "raw_record"]
        assert json.loads(got) == json.loads(attempts[attempt_id]), attempt_id
    assert (
        json.loads(rejected.loc[("attempts", "a-unknown-challenge"), "raw_record"])["score"]
        == " 85"
    )
    items = raw_records(
        built["raw"],
        "rubric_items",
        "rubric_item_id",
        ["rubric_item_id", "challenge_id", "description", "max_points"],
    )
    got = rejected.loc[("rubric_items", "ri-unknown-challenge"), "raw_record"]
    assert json.loads(got) == json.loads(items["ri-unknown-challenge"])
    assert json.loads(got)["max_points"] == 3
