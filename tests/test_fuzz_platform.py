"""Fuzzing (issue 15, item 9): random small platforms with bad rows of every class.

Each example generates a small platform (random seed, size and number of families),
injects a random mix of bad rows (BAD_ROW_CLASSES: implausible timestamps, non-finite and
out-of-range scores, NULL ids, unknown references, NULL template_id, text tags that do
not parse, malformed JSON, NULL model family), maybe stores the tags as text and adds
raw columns named like internal ones, builds the verdict and data-quality marts with
dbt, and asserts: no crash; no NaN or inf in any mart; raw = clean + rejected, with the
expected reasons; the verdicts equal a build on the clean rows alone.
Few, small examples: every example costs two dbt builds (partial parsing keeps each to
seconds of parsing).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hardening_platforms import (
    BAD_ROW_CLASSES,
    build_platform,
    canonical,
    expected_rejections,
    inject,
    small_platform,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.dbt

TAGS_NOT_LIST = next(
    index for index, (_, reason) in enumerate(BAD_ROW_CLASSES) if reason == "tags_not_list"
)
VERDICT_MARTS = (
    "main.fct_challenge_verdicts",
    "main.fct_family_adjusted_effects",
    "main.fct_family_deviation",
    "main.fct_combination_difficulty",
)


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for every build (same paths and vars: dbt parses once)."""
    return tmp_path_factory.mktemp("fuzz")


@settings(
    max_examples=3,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(min_value=0, max_value=10_000),
    n_attempts=st.integers(min_value=800, max_value=2_500),
    families=st.integers(min_value=2, max_value=4),
    classes=st.lists(
        st.integers(min_value=0, max_value=len(BAD_ROW_CLASSES) - 1), min_size=1, max_size=10
    ),
    text_tags=st.booleans(),
    extra_columns=st.booleans(),
)
def test_random_dirty_platforms_are_judged_like_their_clean_rows(
    work: Path,
    seed: int,
    n_attempts: int,
    families: int,
    classes: list[int],
    text_tags: bool,
    extra_columns: bool,
) -> None:
    clean = small_platform(seed, n_attempts=n_attempts, families=families)
    text_tags = text_tags or TAGS_NOT_LIST in classes
    dirty = build_platform(inject(clean, classes, text_tags, extra_columns), work)
    assert dirty["run"].success, dirty["run"].output
    assert {column: n for column, n in dirty["non_finite"].items() if n} == {}

    counts = dirty["tables"]["main.fct_source_row_counts"].set_index("source_table")
    assert (counts.raw_rows == counts.clean_rows + counts.rejected_rows).all()
    for name, rows in clean.items():
        assert counts.loc[name, "clean_rows"] == len(rows), name
    rejected = dirty["tables"]["main.fct_rejected_rows"]
    got: dict[Any, int] = rejected.groupby(["source_table", "rejection_reason"]).size().to_dict()
    assert got == expected_rejections(classes)

    alone = build_platform(clean, work)
    assert alone["run"].success, alone["run"].output
    for mart in VERDICT_MARTS:
        # lead_*: the family ranked first; a tie is broken by floating noise (see
        # tests/test_byte_stable.py, TIE_PREFIX)
        columns = [c for c in alone["tables"][mart].columns if not c.startswith("lead_")]
        assert canonical(dirty["tables"][mart][columns]) == canonical(
            alone["tables"][mart][columns]
        ), mart
