"""The gate's Python side: suites that cannot run are errors, findings are sorted."""

from __future__ import annotations

import json
import string
from pathlib import Path

import pandas as pd
import pytest
from challenge_fairness import gate

THRESHOLDS = {"family_deviation_threshold": 10.0, "api_memorization_slope_threshold": 2.0}
SUITE = "family_deviation_within_threshold"
# a suite with a row condition and a threshold parameter in its expectation
PARAMETER_SUITE = "api_memorization_within_threshold"


def deviations(order: list[int] | None = None) -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "challenge_id": ["ch-b", "ch-a", "ch-c", "ch-d"],
            "model_family": ["gpt", "llama", "claude", "qwen"],
            "deviation": [12.5, -15.25, 1.0, 30.0],
            "is_eligible": [True, True, True, False],
        }
    )
    frame = flagged(frame)
    return frame.iloc[order] if order else frame


def flagged(frame: pd.DataFrame) -> pd.DataFrame:
    """is_flagged as the mart decides it: eligible and |deviation| (to 9 decimals) beyond
    the threshold."""
    return frame.assign(is_flagged=frame.is_eligible & (frame.deviation.abs().round(9) > 10.0))


def api_slopes() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "api_name": ["pandas.read_csv", "numpy.einsum"],
            "slope_difference": [3.5, 0.5],
            "ci_low": [1.0, -1.0],
            "ci_high": [6.0, 2.0],
            "interval_level": [0.95, 0.95],
            "q_value": [0.01, 0.4],
            "tested_challenges": [12, 9],
            "is_significant": [True, False],
        }
    )


@pytest.fixture
def suites_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the shipped suites the test may break."""
    for path in gate.SUITES_DIRECTORY.glob("*.json"):
        (tmp_path / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(gate, "SUITES_DIRECTORY", tmp_path)
    return tmp_path


def edit_suite(directory: Path, name: str, change: dict[str, object]) -> None:
    path = directory / f"{name}.json"
    suite = json.loads(path.read_text(encoding="utf-8"))
    suite["expectations"][0]["kwargs"].update(change)
    path.write_text(json.dumps(suite), encoding="utf-8")


def test_findings_name_subject_family_value_threshold_and_are_sorted() -> None:
    rows = gate.validate_suite(SUITE, deviations(), THRESHOLDS, "error")
    assert [row["status"] for row in rows] == ["failed"]
    findings = json.loads(rows[0]["findings"])
    assert [(f["subject"], f["model_family"], f["value"]) for f in findings] == [
        ("ch-a", "llama", -15.25),
        ("ch-b", "gpt", 12.5),
    ]
    assert findings[0]["message"] == (
        "challenge 'ch-a', family 'llama': deviation -15.25 points exceeds the threshold "
        "of 10 (family_deviation_threshold)"
    )
    assert all(tuple(finding) == gate.FINDING_FIELDS for finding in findings)
    # what ties it to its root cause: the detector finding, else the suite's own cause
    assert findings[0]["evidence"] == {"finding_id": "ch-a/llama"}
    assert findings[0]["cause_id"] == "raw_deviation:llama"
    assert findings[0]["cause"].startswith("family llama deviates beyond the threshold")
    # Byte-stable: the mart's row order does not change the message or the findings.
    shuffled = gate.validate_suite(SUITE, deviations([3, 1, 2, 0]), THRESHOLDS, "error")
    assert shuffled[0]["failure_message"] == rows[0]["failure_message"]
    assert shuffled[0]["findings"] == rows[0]["findings"]


def test_passing_suite_has_no_findings() -> None:
    fair = deviations().assign(deviation=[1.0, 2.0, 3.0, 4.0], is_flagged=False)
    (row,) = gate.validate_suite(SUITE, fair, THRESHOLDS, "error")
    assert row["status"] == "passed" and row["success"] and row["findings"] == "[]"


def test_unknown_suite_is_an_error_row_not_an_exception() -> None:
    result = gate.validate_marts({}, ["no_such_suite"], THRESHOLDS, "warn")
    (row,) = result.to_dict("records")
    assert row["status"] == "error" and not row["success"]
    assert (
        "suite no_such_suite could not run: no GX suite 'no_such_suite'" in row["failure_message"]
    )
    assert SUITE in row["failure_message"]  # lists the known suites


def test_malformed_suite_file_is_an_error(suites_dir: Path) -> None:
    (suites_dir / f"{SUITE}.json").write_text('{"name": "x", "expectations": [', encoding="utf-8")
    result = gate.validate_marts(
        {"fct_family_deviation": deviations()}, [SUITE], THRESHOLDS, "warn"
    )
    (row,) = result.to_dict("records")
    assert row["status"] == "error"
    assert "is not valid JSON" in row["failure_message"]


def test_suite_without_mart_is_an_error(suites_dir: Path) -> None:
    (suites_dir / "no_mart.json").write_text('{"name": "no_mart", "expectations": []}')
    (row,) = gate.validate_marts({}, ["no_mart"], THRESHOLDS, "warn").to_dict("records")
    assert row["status"] == "error" and "names no mart" in row["failure_message"]


def test_suite_on_a_mart_the_gate_does_not_have_is_an_error() -> None:
    (row,) = gate.validate_marts({}, [SUITE], THRESHOLDS, "warn").to_dict("records")
    assert row["status"] == "error" and "fct_family_deviation" in row["failure_message"]


def test_missing_column_is_an_error_not_a_failed_expectation(suites_dir: Path) -> None:
    edit_suite(suites_dir, SUITE, {"column": "deviaton"})
    (row,) = gate.validate_suite(SUITE, deviations(), THRESHOLDS, "warn")
    assert row["status"] == "error" and row["findings"] == "[]"
    assert "'deviaton'" in row["failure_message"]
    assert 'The column "deviaton" in BatchData does not exist' in row["failure_message"]


def test_missing_condition_column_is_an_error() -> None:
    (row,) = gate.validate_suite(
        PARAMETER_SUITE, api_slopes().drop(columns=["is_significant"]), THRESHOLDS, "warn"
    )
    assert row["status"] == "error" and "is_significant" in row["failure_message"]
    # The process-wide GX context forgot the failed run: the same suite runs again.
    (again,) = gate.validate_suite(PARAMETER_SUITE, api_slopes(), THRESHOLDS, "warn")
    assert again["status"] == "failed"
    assert [f["subject"] for f in json.loads(again["findings"])] == ["api:pandas.read_csv"]


def test_a_deviation_equal_to_the_threshold_passes_as_the_mart_decides() -> None:
    """The suite reads the mart's decision (is_flagged, to 9 decimals): a deviation of 10
    computed as 10.000000000000004 is within the threshold of 10, as the mart says."""
    frame = flagged(
        deviations().assign(deviation=[10.000000000000004, -9.999999999999993, 1.0, 30.0])
    )
    (row,) = gate.validate_suite(SUITE, frame, THRESHOLDS, "error")
    assert row["status"] == "passed", row["failure_message"]


def test_bad_parameter_is_an_error(suites_dir: Path) -> None:
    edit_suite(suites_dir, PARAMETER_SUITE, {"max_value": {"$PARAMETER": "no_such_threshold"}})
    (row,) = gate.validate_suite(PARAMETER_SUITE, api_slopes(), THRESHOLDS, "warn")
    assert row["status"] == "error", row
    assert "no_such_threshold" in row["failure_message"]


def test_unknown_threshold_parameter_is_an_error() -> None:
    (row,) = gate.validate_suite(SUITE, deviations(), {}, "warn")
    assert row["status"] == "error"
    assert "threshold_parameter 'family_deviation_threshold'" in row["failure_message"]


def test_invalid_expectation_is_an_error(suites_dir: Path) -> None:
    path = suites_dir / f"{SUITE}.json"
    suite = json.loads(path.read_text(encoding="utf-8"))
    suite["expectations"][0]["type"] = "expect_column_values_to_be_fair"
    path.write_text(json.dumps(suite), encoding="utf-8")
    (row,) = gate.validate_suite(SUITE, deviations(), THRESHOLDS, "warn")
    assert row["status"] == "error"
    assert "expect_column_values_to_be_fair" in row["failure_message"]


def test_every_shipped_suite_declares_its_finding_fields() -> None:
    for path in sorted(gate.SUITES_DIRECTORY.glob("*.json")):
        suite = gate.load_suite(path.stem)
        for expectation in suite["expectations"]:
            finding = expectation["meta"]["finding"]
            columns = set(expectation["meta"]["identifying_columns"]) | {
                expectation["kwargs"]["column"]
            }
            assert "subject" in finding, path.name
            for key in ("family_column", "value_column"):
                if key in finding:
                    assert finding[key] in columns, (path.name, key)
            # what ties a finding to its root cause: evidence keys and the suite's own cause,
            # templates over the row's columns only
            evidence = finding.get("evidence", {})
            assert set(evidence) <= {
                "finding_id",
                "challenge_id",
                "cause_id",
                "template_id",
                "variable_combination",
            }, path.name
            assert ("template_id" in evidence) == ("variable_combination" in evidence)
            assert evidence or "cause_id" in finding, path.name
            templates = [*evidence.values(), finding.get("cause_id", ""), finding.get("cause", "")]
            for template in templates:
                fields = {name for _, name, _, _ in string.Formatter().parse(template) if name}
                assert fields <= columns | {"threshold"}, (path.name, template)
