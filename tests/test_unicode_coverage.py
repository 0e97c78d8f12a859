"""Unicode coverage of string-handling test inputs: the seed's rules, the mart, the gate suite."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import dif_fixtures
import duckdb
import pandas as pd
import pytest
from challenge_fairness.gate import load_suite, validate_suite
from conftest import REPO_ROOT, read_table, run_dbt

SEED = REPO_ROOT / "seeds" / "unicode_input_categories.csv"
CATEGORIES = ["accented_latin", "cjk", "emoji", "right_to_left", "zero_width"]

# Written by hand, independently of the patterns: what each input covers.
EXAMPLES: list[tuple[str, set[str]]] = [
    ("plain ASCII 123 !?", set()),
    ("café", {"accented_latin"}),
    ("cafe\u0301", {"accented_latin"}),  # e + combining acute (decomposed)
    ("Straße Øre ŁÓDŹ Ṽ", {"accented_latin"}),
    ("× ÷ ©", set()),  # Latin-1 symbols are not letters
    ("Ωμέγα Привет", set()),  # Greek and Cyrillic are neither Latin nor CJK nor RTL
    ("漢字", {"cjk"}),
    ("ひらがな カタカナ", {"cjk"}),
    ("한글", {"cjk"}),
    ("😀", {"emoji"}),
    ("🎉✅", {"emoji"}),
    ("🇯🇵", {"emoji"}),
    ("שלום", {"right_to_left"}),
    ("مرحبا", {"right_to_left"}),
    ("ܫܠܡܐ", {"right_to_left"}),  # Syriac
    ("a\u200bb", {"zero_width"}),
    ("\ufeffbom", {"zero_width"}),
    ("word\u2060joiner", {"zero_width"}),
    ("👩\u200d💻", {"emoji", "zero_width"}),  # a ZWJ sequence has a zero-width joiner
    ("über 漢字 😀 שלום \u200c", set(CATEGORIES)),
]


def seed_rows() -> list[dict[str, str]]:
    with SEED.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_seed_lists_the_required_categories_with_descriptions() -> None:
    rows = seed_rows()
    assert [row["category"] for row in rows] == CATEGORIES
    assert all(row["description"].strip() and row["pattern"].strip() for row in rows)


@pytest.mark.parametrize(("text", "expected"), EXAMPLES)
def test_seed_patterns_classify_inputs_as_written_by_hand(text: str, expected: set[str]) -> None:
    connection = duckdb.connect()
    matched = {
        row["category"]
        for row in seed_rows()
        if connection.execute("select regexp_matches(?, ?)", [text, row["pattern"]]).fetchall()[0][
            0
        ]
    }
    assert matched == expected


@pytest.fixture(scope="session")
def builds_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.getbasetemp() / "test_case_detectors"
    path.mkdir(exist_ok=True)
    return path


def coverage_rows(database: Path) -> pd.DataFrame:
    return read_table(
        database, "select * from main.fct_string_challenge_unicode_coverage order by challenge_id"
    ).set_index("challenge_id")


@pytest.mark.dbt
def test_mart_lists_what_each_string_challenge_lacks(builds_dir: Path) -> None:
    planted = dif_fixtures.planted_build(builds_dir)
    rows = coverage_rows(planted["database"])
    assert list(rows.index) == list(dif_fixtures.STRING_CHALLENGES)
    gap_challenge, lacking = dif_fixtures.UNICODE_GAP
    gap = rows.loc[gap_challenge]
    assert list(gap["missing_categories"]) == list(lacking)
    assert list(gap["covered_categories"]) == sorted(set(CATEGORIES) - set(lacking))
    assert not gap["is_fully_covered"] and gap["covered_category_count"] == 3
    assert gap["reason"].startswith("lacks cjk, right_to_left: none of its 6 test inputs")
    complete = rows.loc["ch-s04"]
    assert complete["is_fully_covered"] and list(complete["missing_categories"]) == []
    empty = rows.loc[dif_fixtures.WITHOUT_TEST_CASES]
    assert empty["test_inputs"] == 0 and list(empty["missing_categories"]) == CATEGORIES
    assert empty["reason"].startswith("no test cases: lacks all 5 categories")
    coverage = read_table(
        planted["database"],
        "select * exclude (mart) from main.fct_detector_coverage"
        " where detector = 'unicode_coverage'",
    )
    assert coverage.to_dict("records") == [
        {
            "detector": "unicode_coverage",
            "is_available": True,
            "missing_inputs": None,
            "rows_analysed": 12,
        }
    ]


@pytest.mark.dbt
def test_gate_suite_fails_naming_the_incomplete_challenges_and_passes_complete_ones(
    builds_dir: Path,
) -> None:
    assert load_suite("string_challenges_cover_unicode")["meta"]["mart"] == (
        "fct_string_challenge_unicode_coverage"
    )
    rows = coverage_rows(dif_fixtures.planted_build(builds_dir)["database"]).reset_index()
    [failed] = validate_suite("string_challenges_cover_unicode", rows, {}, "error")
    assert not failed["success"] and failed["failing_rows"] == 2
    message = failed["failure_message"]
    assert "challenge 'ch-s03': test inputs not Unicode-complete: lacks cjk, right_to_left" in (
        message
    )
    assert "challenge 'ch-s06'" in message and "ch-s04" not in message
    fair = coverage_rows(dif_fixtures.fair_build(builds_dir)["database"]).reset_index()
    assert fair["is_fully_covered"].all() and len(fair) == 3
    [passed] = validate_suite("string_challenges_cover_unicode", fair, {}, "error")
    assert passed["success"] and passed["failure_message"] is None


@pytest.mark.dbt
def test_without_test_cases_the_mart_is_empty_and_coverage_says_why(builds_dir: Path) -> None:
    absent = dif_fixtures.absent_build(builds_dir)
    assert coverage_rows(absent["database"]).empty
    coverage = read_table(
        absent["database"],
        "select * exclude (mart) from main.fct_detector_coverage"
        " where detector = 'unicode_coverage'",
    ).iloc[0]
    assert not coverage["is_available"]
    assert coverage["missing_inputs"] == "optional source table absent: test_cases"
    assert coverage["rows_analysed"] == 0


@pytest.mark.dbt
def test_without_a_tagged_challenge_coverage_says_so(builds_dir: Path, tmp_path: Path) -> None:
    fair = dif_fixtures.fair_build(builds_dir)
    database = tmp_path / "copy.duckdb"
    shutil.copy(fair["database"], database)
    run = run_dbt(
        [
            "build",
            "--select",
            "fct_string_challenge_unicode_coverage",
            "fct_detector_coverage",
        ],
        database=database,
        work_dir=tmp_path,
        dbt_vars={"unicode_coverage_tag": "no-such-tag"},
    )
    assert run.success, run.output
    assert coverage_rows(database).empty
    coverage = read_table(
        database,
        "select * exclude (mart) from main.fct_detector_coverage"
        " where detector = 'unicode_coverage'",
    )
    assert coverage.iloc[0]["missing_inputs"] == "no challenge tagged no-such-tag"
    assert not coverage.iloc[0]["is_available"]
