"""Incremental runs equal a full refresh.

A platform (dirty rows and every detector's tables included) arrives in k random
increments, appended to its raw attempts, test results and rubric scores in arrival order,
with what daily operation brings: late attempts (an old submitted_at arriving last),
corrections (an existing attempt_id again with another score: every copy conflicts; the
same for a test result or a rubric score), exact repeats, results and scores that arrive
before their attempt, an attempt whose agent is registered only later, a challenge that a
later conflicting row makes unusable (its test cases and rubric items with it: the last
run validates the results and scores again in full), and a rejected row fixed in place.
After each increment `dbt build` runs on the same database; after the last, every mart and
every staging relation equal one full build of the final data (1e-9). A raw row edited in
place after it was validated stops the run, asking for --full-refresh.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest
from challenge_fairness.demo import PlatformSpec, generate_platform, write_duckdb
from conftest import REPO_ROOT, read_table, run_dbt

sys.path.insert(0, str(REPO_ROOT / "bench"))

import compare_marts  # noqa: E402

pytestmark = pytest.mark.dbt

# The first increment may hold too few attempts for any challenge to be testable.
VARS = {"fairness_gate_severity": "warn", "fairness_gate_allow_no_testable_challenges": True}
# The daily scan and the queue are the history of the runs themselves (one scan per run).
RUN_HISTORIES = {"rpt_daily_bias_scan", "rpt_review_queue"}
# Watermarks: a count keeps the largest row it ever held; a row, the attempts' when it was written.
RUN_BOOKKEEPING = {
    "int_keyed__test_results_checked.last_source_row_number",
    "int_keyed__test_results_checked.last_attempt_row_number",
    "int_keyed__rubric_scores_checked.last_attempt_row_number",
}
LATE_AGENT = "agent-registered-late"
# The raw tables that grow by appended rows (the others are dimensions, edited below).
STREAMED = ("attempts", "test_results", "rubric_scores")
# The challenge that a conflicting row makes unusable in the third increment.
CONFLICTING_CHALLENGE = (
    "select challenge_id from raw.attempts where challenge_id like 'ch-s%'"
    " group by challenge_id order by challenge_id limit 1"
)


def arrival_order(database: Path, rng: np.random.Generator) -> list[int]:
    """Add the planted rows to `plan.final_attempts` (arrival position `arrival`) and return
    the arrival positions that cut the rows into the four increments."""
    with duckdb.connect(str(database)) as con:
        con.execute("create schema plan")
        con.execute(
            "create table plan.final_attempts as"
            " select *, cast(rowid as double) as arrival from raw.attempts"
        )
        n = con.execute("select count(*) from plan.final_attempts").fetchone()[0]
        clean = con.execute(
            "select rowid from raw.attempts where score between 0 and 100"
            " and attempt_id like 'att-%' order by rowid"
        ).fetchall()
        picks = rng.choice(len(clean), size=6, replace=False)
        corrected, repeated = [clean[i][0] for i in picks[:3]], [clean[i][0] for i in picks[3:5]]
        # each planted row arrives somewhere after its original (fractional positions)
        for kind, rowids in (("corrected", corrected), ("repeated", repeated)):
            for rowid in rowids:
                arrival = rng.uniform(rowid + 1, n)
                score = "(cast(score as bigint) + 7) % 100" if kind == "corrected" else "score"
                con.execute(
                    "insert into plan.final_attempts by name select attempt_id, challenge_id,"
                    f" agent_id, {score} as score, submitted_at, {arrival} as arrival"
                    f" from raw.attempts where rowid = {rowid}"
                )
        template = clean[picks[5]][0]
        for index in range(5):
            con.execute(
                "insert into plan.final_attempts by name select 'late-' || "
                f"{index} as attempt_id, challenge_id, agent_id, 40 + {index} as score,"
                " timestamp '2026-01-02 08:00:00' as submitted_at,"
                f" {rng.uniform(n / 2, n)} as arrival from raw.attempts where rowid = {template}"
            )
        con.execute(
            "insert into plan.final_attempts by name select 'by-late-agent' as attempt_id,"
            f" challenge_id, '{LATE_AGENT}' as agent_id, 55 as score, submitted_at,"
            f" {rng.uniform(0, n / 5)} as arrival from raw.attempts where rowid = {template}"
        )
        # a test result or rubric score arrives about with its attempt, some before it (an
        # unknown attempt until then); then 3 corrections and 2 exact repeats of each. One
        # correction and one repeat are of a row that came in the first increment, with a
        # clean attempt, and arrive last: the last run (a delta) must read the old row again
        early = (
            "attempt_id in (select attempt_id from plan.final_attempts where arrival < ?"
            f" and attempt_id like 'att-%' and challenge_id <> ({CONFLICTING_CHALLENGE})"
            " group by attempt_id having count(*) = 1)"
        )
        for table, value, other in (
            ("test_results", "passed", "not passed"),
            ("rubric_scores", "points", "points + 0.5"),
        ):
            con.execute(
                f"create table plan.final_{table} as select rows.*, coalesce(("
                " select min(arrival) from plan.final_attempts"
                " where final_attempts.attempt_id = rows.attempt_id), 0)"
                f" + (hash(rows.rowid, 2026) % 1000 / 1000 - 0.3) * {n / 50} as arrival"
                f" from raw.{table} as rows"
            )
            picks = con.execute(
                f"select rowid from raw.{table} where {value} is not null order by rowid"
            ).fetchall()
            early_picks = con.execute(
                f"select rowid from raw.{table} where {value} is not null and {early}"
                " order by rowid",
                [n / 10],
            ).fetchall()
            last = rng.choice(len(early_picks), size=2, replace=False)
            for position, index in enumerate(rng.choice(len(picks), size=5, replace=False)):
                changed = other if position < 3 else value
                rowid, arrival = picks[index][0], rng.uniform(n / 2, n)
                if position in (0, 3):
                    rowid, arrival = early_picks[last[position // 3]][0], n + 1 + position
                con.execute(
                    f"insert into plan.final_{table} by name select * exclude ({value}),"
                    f" {changed} as {value}, {arrival} as arrival"
                    f" from raw.{table} where rowid = {rowid}"
                )
    return sorted(rng.choice(np.arange(n // 5, n - n // 5), size=3, replace=False).tolist())


def apply_events(con: duckdb.DuckDBPyConnection, step: int, last: bool) -> None:
    """Changes to the other raw tables: the late agent from the second increment on; the
    conflicting challenge row and the fix in place in the third (`last`); the fourth only
    appends."""
    if step == 1:
        con.execute(
            f"insert into raw.agents select '{LATE_AGENT}', model_id from raw.agents"
            " where model_id is not null order by agent_id limit 1"
        )
    if last:
        con.execute(
            "insert into raw.challenges by name select challenge_id, 'tpl-conflict'"
            f" as template_id from raw.challenges where challenge_id = ({CONFLICTING_CHALLENGE})"
        )
        con.execute(
            "update raw.attempts set score = 50 where rowid = ("
            "select min(rowid) from raw.attempts where score > 100)"
        )


def load(con: duckdb.DuckDBPyConnection, since: float, upto: float) -> None:
    """Append, in arrival order, the rows of STREAMED that arrived in [since, upto)."""
    for table in STREAMED:
        con.execute(
            f"insert into raw.{table} by name select * exclude (arrival)"
            f" from plan.final_{table} where arrival >= ? and arrival < ? order by arrival",
            [since, upto],
        )


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    work = tmp_path_factory.mktemp("incremental")
    platform = generate_platform(
        PlatformSpec(seed=5, n_attempts=20_000, dirty=True, detector_plants=True)
    )
    rng = np.random.default_rng(2026)
    source = work / "source.duckdb"
    write_duckdb(platform, str(source))
    cuts = arrival_order(source, rng)

    incremental = work / "incremental.duckdb"
    shutil.copy(source, incremental)
    with duckdb.connect(str(incremental)) as con:
        # new, empty tables: appended rows are numbered (rowid) from 0 in arrival order
        for table in STREAMED:
            con.execute(f"create or replace table raw.{table} as from raw.{table} limit 0")
    steps = [*cuts, float("inf")]
    for step, upto in enumerate(steps):
        with duckdb.connect(str(incremental)) as con:
            load(con, since=steps[step - 1] if step else float("-inf"), upto=upto)
            apply_events(con, step, last=step == len(steps) - 2)
        # the runs between the first and the last are daily ones, which check no history
        checks_history = step in (0, len(steps) - 1)
        run = run_dbt(
            ["build"],
            database=incremental,
            work_dir=work / f"step{step}",
            dbt_vars=VARS | {"check_history": checks_history},
        )
        assert run.success, run.output

    full = work / "full.duckdb"
    with duckdb.connect(str(full)) as con:
        # the final raw tables, row for row in the same order (same source_row_number)
        con.execute(f"attach '{incremental}' as grown (read_only)")
        con.execute("create schema raw")
        tables = con.execute(
            "select table_name from duckdb_tables() where database_name = 'grown'"
            " and schema_name = 'raw'"
        ).fetchall()
        for (table,) in tables:
            con.execute(f"create table raw.{table} as from grown.raw.{table} order by rowid")
    run = run_dbt(["build"], database=full, work_dir=work / "full", dbt_vars=VARS)
    assert run.success, run.output
    return {"incremental": incremental, "full": full, "work": work, "steps": len(steps)}


def test_the_increments_hold_every_planted_case(builds: dict[str, Any]) -> None:
    reasons = read_table(
        builds["full"],
        "select rejection_reason, count(*) as n from intermediate.int_keyed__rows_rejected"
        " where source_table = 'attempts' group by all",
    ).set_index("rejection_reason")["n"]
    assert reasons["conflicting_attempt_id"] >= 6
    assert reasons["duplicate_attempt_id"] >= 2
    assert reasons["unknown_challenge_id"] > 100  # the attempts of the conflicting challenge
    late = read_table(
        builds["full"],
        "select count(*) as n from intermediate.int_keyed__attempts"
        f" where attempt_id like 'late-%' or agent_id = '{LATE_AGENT}'",
    )
    assert late.n[0] == 6
    reasons = read_table(
        builds["full"],
        "select rejection_reason, sum(results) as n"
        " from intermediate.int_keyed__test_results_checked group by all",
    ).set_index("rejection_reason")["n"]
    assert reasons["conflicting_test_result_id"] >= 6
    assert reasons["duplicate_test_result_id"] >= 2
    assert reasons["unknown_attempt_id"] > 100  # those of attempts rejected since
    reasons = read_table(
        builds["full"],
        "select rejection_reason, count(*) as n from intermediate.int_keyed__rubric_scores_checked"
        " group by all",
    ).set_index("rejection_reason")["n"]
    assert reasons["conflicting_rubric_score_id"] >= 6
    assert reasons["duplicate_rubric_score_id"] >= 2


INCREMENTAL_FACTS = (
    "base_platform__attempts",
    "int_keyed__test_results_checked",
    "int_keyed__rubric_scores_checked",
    "int_attempt_score_cells_counted",
)


def test_a_daily_run_reads_past_the_watermark(builds: dict[str, Any]) -> None:
    """The second and the last run fold only the changed rows into every fact (the third
    validates the results and scores in full: their test cases and rubric items changed)."""
    for step in (1, builds["steps"] - 1):
        compiled = builds["work"] / f"step{step}" / "target" / "compiled"
        for model in INCREMENTAL_FACTS:
            (sql,) = compiled.rglob(f"{model}.sql")
            assert "watermark as (" in sql.read_text(), (step, model)


def test_the_key_checks_probe_only_the_attempts_that_can_change(builds: dict[str, Any]) -> None:
    """int_keyed__rows_rejected checks every attempt when the staged agents or challenges
    changed (the late agent in the second run, the conflicting challenge in the third), and
    only the new, rejected and formerly rejected attempts otherwise (the last run)."""
    steps = range(1, builds["steps"])
    probed = {}
    for step in steps:
        compiled = builds["work"] / f"step{step}" / "target" / "compiled"
        (sql,) = compiled.rglob("int_keyed__rows_rejected.sql")
        probed[step] = "rejected_before" in sql.read_text()
    assert probed == {step: step == builds["steps"] - 1 for step in steps}


# The models that fold in the delta of the attempt cells' run, not every cell.
DELTA_FOLDS = ("int_attempt_scores_counted", "int_agent_challenge_scores_summarised")


def test_the_sums_of_cells_fold_in_the_cells_delta(builds: dict[str, Any]) -> None:
    """Every daily run (a late agent added, a challenge made unusable, appends) sums only
    the delta of the cells' run: the chain of runs holds, and no agent changed family."""
    for step in range(1, builds["steps"]):
        compiled = builds["work"] / f"step{step}" / "target" / "compiled"
        for model in DELTA_FOLDS:
            (sql,) = compiled.rglob(f"{model}.sql")
            assert "int_attempt_score_cells_counted__delta" in sql.read_text(), (step, model)


def sums_of_cells_recounted(database: Path) -> dict[str, Any]:
    """int_attempt_scores_counted's all-time rows and int_agent_challenge_scores_summarised
    counted from the cells as they are, beside the two models' rows."""
    families = (
        "from intermediate.int_attempt_score_cells_counted as cells"
        " inner join intermediate.int_keyed__agents as agents using (agent_id)"
        " inner join staging.stg_platform__models as models using (model_id)"
        " where cells.source_row_number is null and cells.is_in_scan"
    )
    queries = {
        "counted": (
            "select challenge_id, model_family, score, attempts"
            " from intermediate.int_attempt_scores_counted where verdict_window = 'all'",
            "select challenge_id, model_family, score, cast(sum(attempts) as bigint)"
            f" as attempts {families} group by all",
        ),
        "summarised": (
            "select challenge_id, agent_id, scored_attempts, passes"
            " from intermediate.int_agent_challenge_scores_summarised",
            "select challenge_id, agent_id, cast(sum(attempts) as bigint) as scored_attempts,"
            " cast(coalesce(sum(attempts) filter (where score >= 50), 0) as bigint) as passes"
            f" {families} and score is not null group by all",
        ),
    }
    found = {}
    for name, queries_of_name in queries.items():
        frames = []
        for query in queries_of_name:
            frame = read_table(database, query)
            frame = frame.sort_values(list(frame.columns[:3]), na_position="first")
            frames.append(frame.reset_index(drop=True))
        found[name] = frames
    return found


def test_a_skipped_run_of_the_sums_makes_them_count_every_cell_again(
    builds: dict[str, Any], tmp_path: Path
) -> None:
    """The cells fold two days while the models summing them run on the second only: the
    second day's delta does not follow what they summed, so they count every cell again
    (folding that delta alone would miss the first day's attempts)."""
    database = tmp_path / "skipped.duckdb"
    shutil.copy(builds["incremental"], database)
    selections = (["+int_attempt_score_cells_counted"], [f"+{model}" for model in DELTA_FOLDS])
    for day, selected in enumerate(selections):
        with duckdb.connect(str(database)) as con:
            con.execute(
                f"insert into raw.attempts by name select attempt_id || '-again-{day}'"
                " as attempt_id, challenge_id, agent_id, score, submitted_at"
                " from raw.attempts where score between 0 and 100 order by rowid limit 500"
            )
        run = run_dbt(
            ["run", "--select", *selected],
            database=database,
            work_dir=tmp_path / f"day{day}",
            dbt_vars=VARS,
        )
        assert run.success, run.output
    for model in DELTA_FOLDS:
        (sql,) = (tmp_path / "day1" / "target" / "compiled").rglob(f"{model}.sql")
        assert "int_attempt_score_cells_counted__delta" not in sql.read_text(), model
    for name, (stored, recounted) in sums_of_cells_recounted(database).items():
        assert len(stored) > 100, name
        pd.testing.assert_frame_equal(stored, recounted, obj=name)


def assert_equal_to_full_refresh(
    full: Path, incremental: Path, staging_ignore: frozenset[str] = frozenset()
) -> None:
    """Every relation of `main` (the run histories left out), of `staging` (but
    `staging_ignore`) and of `intermediate` (the key checks after staging and every model
    after them) is the same in both databases, to 1e-9, the watermarks left out."""
    for schema, ignore in (
        ("main", RUN_HISTORIES),
        ("staging", staging_ignore),
        ("intermediate", frozenset()),
    ):
        results = compare_marts.compare(
            full,
            incremental,
            schema,
            1e-9,
            set(ignore),
            set(compare_marts.RUN_STAMP_COLUMNS) | RUN_BOOKKEEPING,
        )
        assert len(results) > 10
        differing = {r.relation: r.details[:3] for r in results if r.status != "equal"}
        assert not differing, (schema, differing)


def test_incremental_builds_equal_a_full_refresh(builds: dict[str, Any]) -> None:
    assert_equal_to_full_refresh(builds["full"], builds["incremental"])


EDITS_IN_PLACE = {
    "base_platform__attempts": "update raw.attempts set score = score + 1 where rowid = ("
    "select min(source_row_number) from staging.base_platform__attempts"
    " where rejection_reason is null and attempt_id_copies = 1 and score < 90)",
    # a clean result (not among the rejected rows, hence counted) flips
    "int_keyed__test_results_checked": "update raw.test_results set passed = not passed"
    " where rowid = (select min(rowid) from raw.test_results where passed is not null"
    " and rowid not in (select source_row_number from intermediate.int_keyed__test_results_checked"
    " where source_row_number is not null))",
    "int_keyed__rubric_scores_checked": "update raw.rubric_scores set points = points + 0.25"
    " where rowid = (select min(source_row_number)"
    " from intermediate.int_keyed__rubric_scores_checked where rejection_reason is null)",
}


@pytest.mark.parametrize("model", sorted(EDITS_IN_PLACE))
def test_a_raw_row_edited_in_place_stops_the_run(
    builds: dict[str, Any], tmp_path: Path, model: str
) -> None:
    database = tmp_path / "edited.duckdb"
    shutil.copy(builds["incremental"], database)
    with duckdb.connect(str(database)) as con:
        con.execute(EDITS_IN_PLACE[model])
    run = run_dbt(["run", "--select", model], database=database, work_dir=tmp_path)
    assert not run.success
    assert "append-only log; run dbt build --full-refresh" in run.output
    run = run_dbt(
        ["run", "--select", model, "--full-refresh"], database=database, work_dir=tmp_path
    )
    assert run.success, run.output


def test_a_daily_run_counts_the_history_without_reading_it(
    builds: dict[str, Any], tmp_path: Path
) -> None:
    """With var check_history false the raw rows already folded are counted, not read (but
    for the first history_head_rows): a deleted row still stops the run, an edit in place in
    the head too, one past it waits for a run that checks."""
    model, daily = "base_platform__attempts", {"check_history": False}
    edited, deleted = tmp_path / "edited.duckdb", tmp_path / "deleted.duckdb"
    for database in (edited, deleted):
        shutil.copy(builds["incremental"], database)
    with duckdb.connect(str(edited)) as con:
        con.execute(EDITS_IN_PLACE[model])
    with duckdb.connect(str(deleted)) as con:
        con.execute(
            "delete from raw.attempts where rowid = (select min(source_row_number)"
            " from staging.base_platform__attempts where rejection_reason is null)"
        )
    # the edit is in the table's head (its first clean row): every run checks the head's
    # checksum (var history_head_rows), so even the daily run stops
    run = run_dbt(
        ["run", "--select", model], database=edited, work_dir=tmp_path / "e0", dbt_vars=daily
    )
    assert not run.success
    assert "append-only log; run dbt build --full-refresh" in run.output
    # an edit past the head (here: no head checked) waits for a run that checks the history
    run = run_dbt(
        ["run", "--select", model],
        database=edited,
        work_dir=tmp_path / "e1",
        dbt_vars={**daily, "history_head_rows": 0},
    )
    assert run.success, run.output
    run = run_dbt(["run", "--select", model], database=edited, work_dir=tmp_path / "e2")
    assert not run.success
    assert "append-only log; run dbt build --full-refresh" in run.output
    run = run_dbt(
        ["run", "--select", model], database=deleted, work_dir=tmp_path / "d1", dbt_vars=daily
    )
    assert not run.success
    assert "append-only log; run dbt build --full-refresh" in run.output
