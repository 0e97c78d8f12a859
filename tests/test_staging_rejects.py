"""Staging rejects every bad row with its reason and reads only the source contract.

Issue 15, findings 3, 4, 5 and 9: raw extras named like internal columns overrode them
(`variables_text`, `duplicate_kind`, `source_row_number`), a timestamp in year 9999 or
1900 was accepted (the scan date and the history followed it), a NULL template_id was
counted clean and failed a mart contract, and text tags aborted the build.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hardening_platforms import (
    BAD_ROW_CLASSES,
    INTERNAL_COLUMNS,
    build_platform,
    canonical,
    expected_rejections,
    inject,
    small_platform,
)

pytestmark = pytest.mark.dbt

#: Tables whose clean rows must come out the same whatever bad rows sit beside them.
JUDGED_TABLES = (
    "intermediate.int_keyed__attempts",
    "staging.stg_platform__challenges",
    "intermediate.int_keyed__agents",
    "staging.stg_platform__models",
    "intermediate.int_bias_scan_date",
    "main.fct_challenge_verdicts",
    "main.fct_family_adjusted_effects",
    "main.fct_family_deviation",
    "main.fct_combination_difficulty",
    "main.fct_family_kruskal_wallis",
    "main.fct_family_effect_sizes",
    "main.fct_family_pairwise_dunn",
    "main.fct_challenge_verdict_history",
)
SELECTION = [
    "+path:models/marts/fairness",
    "+path:models/marts/data_quality",
    "+fct_challenge_verdict_history",
    "+int_bias_scan_date",
]


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for every build of this module (dbt parses once)."""
    return tmp_path_factory.mktemp("staging_rejects")


@pytest.fixture(scope="module")
def builds(work: Path) -> dict[str, Any]:
    """The same platform built clean, then with one bad row of every class, text tags and
    an extra column named like every internal column in every table."""
    clean = small_platform(seed=13, n_attempts=4_000)
    classes = list(range(len(BAD_ROW_CLASSES)))
    clean_build = build_platform(clean, work, SELECTION)
    dirty_build = build_platform(
        inject(clean, classes, text_tags=True, extra_columns=True), work, SELECTION
    )
    return {"clean": clean_build, "dirty": dirty_build, "classes": classes, "rows": clean}


def test_every_bad_row_is_rejected_with_its_reason(builds: dict[str, Any]) -> None:
    dirty = builds["dirty"]
    assert dirty["run"].success, dirty["run"].output
    rejected = dirty["tables"]["main.fct_rejected_rows"]
    got = rejected.groupby(["source_table", "rejection_reason"]).size().to_dict()
    assert got == expected_rejections(builds["classes"])
    assert rejected.raw_record.notna().all()
    counts = dirty["tables"]["main.fct_source_row_counts"].set_index("source_table")
    for name, rows in builds["rows"].items():
        assert counts.loc[name, "clean_rows"] == len(rows)
    assert (counts.raw_rows == counts.clean_rows + counts.rejected_rows).all()


@pytest.mark.parametrize("table", JUDGED_TABLES)
def test_clean_rows_are_judged_as_without_the_bad_rows(builds: dict[str, Any], table: str) -> None:
    assert builds["clean"]["run"].success, builds["clean"]["run"].output
    assert builds["dirty"]["run"].success, builds["dirty"]["run"].output
    clean = builds["clean"]["tables"][table]
    dirty = builds["dirty"]["tables"][table]
    assert list(dirty.columns) == list(clean.columns)
    assert canonical(dirty) == canonical(clean)


def test_internal_column_names_in_the_source_change_nothing(builds: dict[str, Any]) -> None:
    """Every internal name (INTERNAL_COLUMNS, and every column of a staging model) was an
    extra raw column of every table in the dirty build; the clean rows came out the same
    (test above), and the checks they used to defeat still work."""
    dirty = builds["dirty"]["tables"]
    staging_columns = {
        column
        for name, frame in dirty.items()
        if name.startswith("staging.")
        for column in frame.columns
    }
    contract = {
        "attempt_id", "challenge_id", "agent_id", "score", "submitted_at", "approach",
        "template_id", "variables", "briefing_style", "experiment_id", "experiment_arm",
        "tags", "briefing_text", "model_id", "model_family", "training_cutoff",
        "test_case_id", "input_text", "passed", "file_path", "content", "document_id",
        "source", "published_at", "rubric_item_id", "description", "max_points", "points",
        "test_code", "language",
    }  # fmt: skip
    assert staging_columns - contract <= set(INTERNAL_COLUMNS), (
        "a staging column is missing from INTERNAL_COLUMNS: "
        f"{sorted(staging_columns - contract - set(INTERNAL_COLUMNS))}"
    )
    combinations = dirty["main.fct_combination_difficulty"]
    assert len(combinations) > 0 and (combinations.variable_combination != "{}").any()
    assert dirty["intermediate.int_keyed__attempts"].attempt_id.is_unique


def test_text_tags_are_parsed_per_row(builds: dict[str, Any]) -> None:
    challenges = builds["dirty"]["tables"]["staging.stg_platform__challenges"]
    want = {row["challenge_id"]: list(row["tags"]) for row in builds["rows"]["challenges"]}
    got = {row.challenge_id: list(row.tags) for row in challenges.itertuples()}
    assert got == want


def test_outlier_timestamps_move_neither_scan_date_nor_history(builds: dict[str, Any]) -> None:
    scan = builds["dirty"]["tables"]["intermediate.int_bias_scan_date"]
    assert str(scan.scan_date[0])[:4] == "2026"
    history = builds["dirty"]["tables"]["main.fct_challenge_verdict_history"]
    assert len(history) == len(builds["clean"]["tables"]["main.fct_challenge_verdict_history"])


def test_a_raw_column_named_like_the_readers_row_number_stops_the_build(work: Path) -> None:
    tables = small_platform(seed=13, n_attempts=500)
    for row in tables["agents"]:
        row["file_row_number"] = 1
    build = build_platform(tables, work, ["base_platform__agents"])
    assert not build["run"].success
    assert "raw table agents has a column named 'file_row_number'" in build["run"].output
