"""The test-code lint end to end: dbt build on a fixture platform whose test cases carry
code (tests/dif_fixtures.py: 'ch-s05-tc3' planted with DIF for family 'mistral'), one test
case with code but no result yet, and briefings that name the solution's entry point."""

from __future__ import annotations

import dif_fixtures
import pandas as pd
import pyarrow as pa
import pytest
from challenge_fairness import test_code_lint as lint
from conftest import read_table, run_dbt

pytestmark = pytest.mark.dbt

BRIEFING = "Implement `normalise(record)` in `solution.py`: it returns the normalised record."
CODE = {
    # the DIF-planted test case: expects a helper the briefing does not name
    "ch-s05-tc3": (
        "python",
        "from solution import normalise, strip_fields\n\n\ndef test_it():\n"
        "    assert strip_fields({'a': ' x '}) == {'a': 'x'}\n",
    ),
    # interface tests, one with its language to infer
    "ch-s05-tc1": (
        "python",
        "from solution import normalise\n\n\ndef test_it():\n"
        "    assert normalise({'a': ' x '}) == {'a': 'x'}\n",
    ),
    "ch-s05-tc2": (
        None,
        "const { spawnSync } = require('child_process');\n"
        "test('cli', () => expect(spawnSync('python', ['solution.py']).status).toBe(0));\n",
    ),
    # a layout check, on a test case no attempt has run yet
    "ch-s07-tc99": (
        "typescript",
        "import { existsSync } from 'fs';\nit('layout', () => "
        "expect(existsSync('src/normalise/index.ts')).toBe(true));\n",
    ),
    # a language the lint does not read
    "ch-s07-tc1": ("ruby", "require 'solution'\n"),
}


def present(value: object) -> object:
    """A mart value as the lint gives it (NULL, read as NaN, as None)."""
    return None if pd.isna(value) else value


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    from challenge_fairness.demo import write_parquet

    work = tmp_path_factory.mktemp("test_code_lint")
    platform = dif_fixtures._platform(seed=11)
    tables = dif_fixtures.build_test_case_tables(platform, biased=[dif_fixtures.PLANTED])
    cases = tables["test_cases"].to_pylist()
    cases.append({"test_case_id": "ch-s07-tc99", "challenge_id": "ch-s07", "input_text": None})
    for case in cases:
        language, code = CODE.get(case["test_case_id"], (None, None))
        case.update(test_code=code, language=language)
    tables["test_cases"] = pa.Table.from_pylist(cases)
    challenges = platform.tables["challenges"]
    platform.tables["challenges"] = challenges.append_column(
        "briefing_text", pa.array([BRIEFING] * challenges.num_rows, pa.string())
    )
    write_parquet(platform, str(work / "raw"))
    dif_fixtures.write_tables_parquet(tables, str(work / "raw"))
    database = work / "marts.duckdb"
    run = run_dbt(
        [
            "build",
            "--select",
            "+rpt_review_queue",
            "+fct_detector_coverage",
            "+fct_test_code_lint",
            "--indirect-selection",
            "cautious",
        ],
        database=database,
        work_dir=work,
        dbt_vars={"raw_parquet_dir": str(work / "raw")},
    )
    assert run.success, run.output
    return {"database": database}


def test_the_mart_is_the_lint_of_each_test_case(build: dict[str, object]) -> None:
    mart = read_table(build["database"], "select * from main.fct_test_code_lint")
    assert sorted(mart.test_case_id) == sorted(CODE)
    for row in mart.itertuples(index=False):
        language, code = CODE[row.test_case_id]
        expected = lint.lint_test_code(code, language, BRIEFING)
        assert row.lint_status == expected.status
        assert row.finding_count == len(expected.findings)
        assert present(row.language) == expected.language
        assert present(row.interface_style) == expected.interface_style
        gated = [f for f in expected.findings if f.category in lint.CATEGORIES[2:]]
        assert row.gated_findings == len(gated) and row.is_gate_passing == (not gated)
        if expected.findings:
            first = expected.findings[0]
            assert (row.first_finding_line, row.first_finding_category) == (
                first.line,
                first.category,
            )
            assert row.first_finding_snippet == first.snippet
    by_case = mart.set_index("test_case_id")
    assert by_case.loc["ch-s05-tc2", "is_language_inferred"]
    assert by_case.loc["ch-s05-tc1", "finding_count"] == 0
    assert by_case.loc["ch-s05-tc1", "interface_style"] == "public_api"
    assert by_case.loc["ch-s07-tc1", "lint_status"] == "unsupported_language"
    coverage = read_table(
        build["database"],
        "select * exclude (mart) from main.fct_detector_coverage where detector = 'test_code_lint'",
    ).iloc[0]
    assert coverage.is_available and coverage.rows_analysed == 4


def test_a_finding_with_dif_is_one_queue_item_and_one_without_attempts_is_an_item(
    build: dict[str, object],
) -> None:
    queue = read_table(
        build["database"], "select * from main.rpt_review_queue where is_latest_week"
    ).set_index("cause_id")
    dif = queue.loc["test_case:ch-s05-tc3"]
    assert dif.detectors == "test_case_bias, test_code_lint" and dif.findings == 2
    assert dif.recommended_action == "fix_tests" and dif.lead_model_family == "mistral"
    assert "line 1 (name_expectation)" in dif.lead_evidence
    assert "'strip_fields'" in dif.lead_evidence
    new = queue.loc["test_case:ch-s07-tc99"]
    assert new.detectors == "test_code_lint" and new.recommended_action == "fix_tests"
    assert "line 2 (implementation_structure)" in new.lead_evidence
    assert new.lead_evidence.endswith("no attempt yet")
    assert "test_case:ch-s05-tc1" not in queue.index
