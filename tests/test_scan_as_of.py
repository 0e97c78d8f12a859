"""A scan as of a date (var bias_scan_date): computed after later attempts have arrived, it
equals the scan that was run on that day.

One platform (every detector planted, dirty rows) is cut at day D into what had arrived by
then: the attempts submitted on or before D (and those without a readable timestamp, which
cannot be placed later), with their test results and rubric scores; every other table
whole. The build on that data with bias_scan_date = D is the scan run on day D; the build
on all the data with the same var is the scan reproduced later. Every mart must agree
(bench/compare_marts.py, 1e-9), except the data-quality marts, which describe the raw
tables as they are (fct_source_row_counts counts the later rows as outside_scan_rows).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest
from challenge_fairness.demo import PlatformSpec, generate_platform, write_parquet
from conftest import REPO_ROOT, read_table, run_dbt

sys.path.insert(0, str(REPO_ROOT / "bench"))

import compare_marts  # noqa: E402

pytestmark = pytest.mark.dbt

SCAN_DATE = "2026-04-15"  # the platform's attempts run from 2026-01-01 to 2026-06-30
RAW_DESCRIBING_MARTS = {"fct_source_row_counts", "fct_rejected_rows"}
ATTEMPT_TABLES = ("test_results", "rubric_scores")


def cut_at(source: Path, target: Path, day: str) -> dict[str, int]:
    """Copy the parquet platform in `source` to `target` as it stood at the end of `day`;
    return the number of rows left out per table."""
    target.mkdir()
    later = f"""
        select attempt_id from read_parquet('{source}/attempts.parquet')
        where try_cast(submitted_at as date) > date '{day}'
    """
    left_out = {}
    with duckdb.connect() as con:
        for path in sorted(source.glob("*.parquet")):
            table = path.stem
            if table == "attempts":
                keep = f"not coalesce(try_cast(submitted_at as date) > date '{day}', false)"
            elif table in ATTEMPT_TABLES:
                keep = f"attempt_id is null or attempt_id not in ({later})"
            else:
                keep = "true"
            total = con.execute(f"select count(*) from read_parquet('{path}')").fetchone()[0]
            con.execute(
                f"copy (select * from read_parquet('{path}') where {keep}) "
                f"to '{target / path.name}' (format parquet)"
            )
            kept = con.execute(f"select count(*) from read_parquet('{target / path.name}')")
            left_out[table] = total - kept.fetchone()[0]
    return left_out


def build(data: Path, work: Path) -> Path:
    database = work / "scan.duckdb"
    run = run_dbt(
        ["build"],
        database=database,
        work_dir=work,
        dbt_vars={
            "raw_parquet_dir": str(data),
            "bias_scan_date": SCAN_DATE,
            "fairness_gate_severity": "warn",
        },
    )
    assert run.success, run.output
    return database


@pytest.fixture(scope="module")
def scans(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The scan run on day D, and the same scan reproduced after every later attempt."""
    work = tmp_path_factory.mktemp("scan_as_of")
    platform = generate_platform(PlatformSpec(dirty=True, detector_plants=True))
    everything = work / "everything"
    write_parquet(platform, str(everything))
    on_the_day = work / "on_the_day"
    left_out = cut_at(everything, on_the_day, SCAN_DATE)
    (work / "then").mkdir()
    (work / "later").mkdir()
    return {
        "left_out": left_out,
        "then": build(on_the_day, work / "then"),
        "later": build(everything, work / "later"),
    }


def test_the_cut_leaves_later_attempts_and_their_results_out(scans: dict[str, Any]) -> None:
    left_out = scans["left_out"]
    assert left_out["attempts"] > 10_000
    assert left_out["test_results"] > 0 and left_out["rubric_scores"] > 0
    counts = read_table(
        scans["later"],
        "select source_table, outside_scan_rows from main.fct_source_row_counts",
    ).set_index("source_table")["outside_scan_rows"]
    for table in ("attempts", *ATTEMPT_TABLES):
        assert counts[table] == left_out[table], table
    then = read_table(
        scans["then"],
        "select source_table, outside_scan_rows from main.fct_source_row_counts",
    ).set_index("source_table")["outside_scan_rows"]
    assert (then[["attempts", *ATTEMPT_TABLES]] == 0).all()


def test_the_scan_as_of_a_past_day_equals_the_scan_run_that_day(scans: dict[str, Any]) -> None:
    results = compare_marts.compare(
        scans["then"],
        scans["later"],
        "main",
        1e-9,
        RAW_DESCRIBING_MARTS,
        set(compare_marts.RUN_STAMP_COLUMNS),
    )
    assert len(results) > 40
    differing = {r.relation: r.details[:3] for r in results if r.status != "equal"}
    assert not differing, differing
    history = read_table(
        scans["later"], "select max(window_start) as last from main.fct_challenge_verdict_history"
    )
    assert str(history["last"][0])[:10] <= SCAN_DATE


def test_the_scan_reads_only_the_attempts_up_to_the_date(scans: dict[str, Any]) -> None:
    in_scan = read_table(
        scans["later"],
        "select count(*) as n, max(submitted_at) as last from intermediate.int_keyed__attempts",
    )
    counts = read_table(
        scans["later"],
        "select clean_rows - outside_scan_rows as n from main.fct_source_row_counts"
        " where source_table = 'attempts'",
    )
    assert in_scan.n[0] == counts.n[0]
    assert str(in_scan["last"][0])[:10] == SCAN_DATE
