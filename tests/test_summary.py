"""`python -m challenge_fairness.summary` (and the report's entry point) on databases it
cannot read, and the summary's wording on small synthetic marts: no traceback, one clear
message and a non-zero exit for a missing, locked, non-DuckDB or unbuilt database; gate
warnings read as warnings; the raw seed rules are labelled as not being verdicts."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pytest
from challenge_fairness import report, summary


@contextmanager
def locked(database: Path) -> Iterator[None]:
    """Another process holds `database` open for writing (as a running dbt build does)."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import duckdb, sys
                connection = duckdb.connect({str(database)!r})
                connection.execute("create table if not exists main.held (a integer)")
                print("holding", flush=True)
                sys.stdin.read()
                """
            ),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        yield
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)


def bad_database(kind: str, tmp_path: Path) -> Path:
    """A database path of one unreadable kind."""
    path = tmp_path / f"{kind}.duckdb"
    if kind == "not_duckdb":
        path.write_text("this is a CSV, not a database\na,b\n1,2\n")
    elif kind == "empty_file":
        path.touch()
    elif kind == "unbuilt":
        duckdb.connect(str(path)).close()
    elif kind == "raw_only":
        with duckdb.connect(str(path)) as connection:
            connection.execute("create schema raw; create table raw.attempts (attempt_id varchar)")
    return path


EXPECTED_MESSAGE = {
    "missing": "no database at",
    "not_duckdb": "is not a DuckDB database file",
    "empty_file": "is not a DuckDB database file",
    "unbuilt": "has no built fairness marts",
    "raw_only": "has no built fairness marts",
    "folder": "is a folder",
}


@pytest.mark.parametrize("kind", sorted(EXPECTED_MESSAGE))
@pytest.mark.parametrize("entry_point", ["summary", "report"])
def test_unreadable_database_gives_one_message_and_exit_2(
    kind: str, entry_point: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path if kind == "folder" else bad_database(kind, tmp_path)
    out = tmp_path / "report.html"
    if entry_point == "summary":
        code = summary.main([str(database)])
    else:
        code = report.main([str(database), "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 2
    assert EXPECTED_MESSAGE[kind] in captured.err
    assert "Traceback" not in captured.err + captured.out
    assert len(captured.err.strip().splitlines()) == 1
    assert not out.exists()
    if kind in ("unbuilt", "raw_only"):  # names what is missing
        assert "fct_challenge_verdicts" in captured.err


@pytest.mark.parametrize("entry_point", ["summary", "report"])
def test_database_held_by_a_build_is_reported_as_locked(
    entry_point: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path / "building.duckdb"
    with locked(database):
        if entry_point == "summary":
            code = summary.main([str(database)])
        else:
            code = report.main([str(database), "--out", str(tmp_path / "r.html")])
    captured = capsys.readouterr()
    assert code == 2
    assert "is locked by another process" in captured.err
    assert "Traceback" not in captured.err


def _verdicts_only(path: Path) -> None:
    with duckdb.connect(str(path)) as connection:
        connection.execute(
            """create table main.fct_challenge_verdicts as
            select * from (values
                ('ch-1', 'flagged', 'family qwen +21.0 points', 0.001),
                ('ch-2', 'pass', 'fine', 0.6)
            ) as t(challenge_id, verdict, reason, q_value)"""
        )


def test_partial_database_prints_what_exists_and_names_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path / "partial.duckdb"
    _verdicts_only(database)
    code = summary.main([str(database)])
    captured = capsys.readouterr()
    assert code == 1
    assert "Verdicts (ability-adjusted, FDR-controlled): 1 flagged, 1 pass" in captured.out
    assert "FLAGGED ch-1: family qwen +21.0 points" in captured.out
    assert "What to do: not built (missing rpt_review_queue)" in captured.out
    assert "Great Expectations gate: not built (missing fct_fairness_gate_results)" in (
        captured.out
    )
    assert "Not built (" in captured.out and "rpt_review_queue" in captured.out
    assert "Traceback" not in captured.err


def _with_gate(path: Path, severity: str, success: bool) -> None:
    _verdicts_only(path)
    with duckdb.connect(str(path)) as connection:
        connection.execute(
            f"""create table main.fct_fairness_gate_results as
            select * from (values
                ('challenge_verdicts_not_flagged', {success}, {0 if success else 1}, '{severity}'),
                ('family_deviation_within_threshold', true, 0, '{severity}')
            ) as t(suite_name, success, failing_rows, severity)"""
        )


def test_warn_mode_gate_results_read_as_warnings(tmp_path: Path) -> None:
    database = tmp_path / "warn.duckdb"
    _with_gate(database, "warn", success=False)
    text = summary.summarise(database)
    gate = text.split("Great Expectations gate")[1]
    assert "FAILED" not in text
    assert "recorded as warnings; the build went on" in gate
    assert "WARNING challenge_verdicts_not_flagged: 1 failing row\n" in gate
    assert "passed: family_deviation_within_threshold" in gate


def test_error_mode_gate_failures_read_as_failures(tmp_path: Path) -> None:
    database = tmp_path / "error.duckdb"
    _with_gate(database, "error", success=False)
    gate = summary.summarise(database).split("Great Expectations gate")[1]
    assert "FAILED the build (severity error)" in gate
    assert "FAILED challenge_verdicts_not_flagged: 1 failing row\n" in gate
    assert "WARNING" not in gate


def test_gate_reads_one_line_per_suite_and_its_root_causes(tmp_path: Path) -> None:
    """A suite of two expectations is one suite (it was two lines, `1 failing rows` each),
    and the findings are counted with the root causes CI prints."""
    database = tmp_path / "suites.duckdb"
    _verdicts_only(database)
    with duckdb.connect(str(database)) as connection:
        connection.execute(
            """create table main.fct_fairness_gate_results as
            select * from (values
                ('challenge_instances_unique', false, 1, 'error'),
                ('challenge_instances_unique', false, 2, 'error'),
                ('family_deviation_within_threshold', true, 0, 'error')
            ) as t(suite_name, success, failing_rows, severity)"""
        )
        connection.execute(
            """create table main.fct_fairness_gate_findings as
            select * from (values
                ('fairness_finding', 'overlap:a/b'), ('fairness_finding', 'overlap:a/b'),
                ('fairness_finding', 'overlap:c/d'), ('unusable_input', null)
            ) as t(finding_kind, cause_id)"""
        )
    gate = summary.summarise(database).split("Great Expectations gate")[1]
    assert "(1 of 2 suites FAILED the build (severity error))" in gate
    assert gate.count("challenge_instances_unique") == 1
    assert "FAILED challenge_instances_unique: 3 failing rows\n" in gate
    assert "3 finding(s) from 2 root cause(s)" in gate


def test_raw_seed_rules_are_counts_labelled_as_not_verdicts(tmp_path: Path) -> None:
    database = tmp_path / "raw.duckdb"
    _verdicts_only(database)
    with duckdb.connect(str(database)) as connection:
        connection.execute(
            """create table main.fct_family_kruskal_wallis as
            select * from (values ('ch-1', 'tested', 1e-9), ('ch-2', 'tested', 1e-4))
                as t(challenge_id, status, p_value);
            create table main.fct_family_effect_sizes as
            select * from (values ('ch-1', true), ('ch-2', false)) as t(challenge_id, is_flagged);
            create table main.fct_family_deviation as
            select * from (values ('ch-1', 'qwen', true), ('ch-2', 'gpt', true))
                as t(challenge_id, model_family, is_flagged)"""
        )
    text = summary.summarise(database)
    raw = text.split("Raw seed rules")[1]
    assert raw.startswith(" (reported for comparison, NOT bias verdicts):")
    assert "Kruskal-Wallis by family: p < 0.05 on 2 of 2 tested challenges" in raw
    assert "2 (challenge, family) pairs, 1 of them on flagged challenges" in raw
    assert "expected to fire wherever families differ in overall skill" in raw
    assert "challenge ch-2: family gpt" not in text  # no per-challenge raw-rule list
    assert text.index("Verdicts") < text.index("Raw seed rules")
