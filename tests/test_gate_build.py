"""The gate end to end: CI output that carries the findings, errors that fail whatever the
severity, and a gate that cannot pass on unusable input (docs/gate.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from challenge_fairness.demo import PlatformSpec, generate_platform, write_parquet
from conftest import REPO_ROOT, DbtRun, read_table, run_dbt

pytestmark = pytest.mark.dbt

SUITES_DIR = REPO_ROOT / "python_udfs" / "challenge_fairness" / "gx_suites"
# A few family findings on a small platform.
STRICT = {"family_deviation_threshold": 5, "min_attempts": 50}
# Rebuild only the gate on an already built database.
GATE_ONLY = [
    "build",
    "--select",
    "int_fairness_gate_suites_listed+",
    "int_fairness_gate_inputs_checked+",
]


@pytest.fixture(scope="module")
def quiet_build(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A dirty platform built once with the dbt CLI exactly as CI runs it: `dbt --quiet build`."""
    work = tmp_path_factory.mktemp("gate_cli")
    write_parquet(
        generate_platform(PlatformSpec(seed=3, n_attempts=5_000, dirty=True)), str(work / "raw")
    )
    database = work / "gate.duckdb"
    command = [
        str(Path(sys.executable).with_name("dbt")),
        "--quiet",
        "build",
        "--project-dir",
        str(REPO_ROOT),
        "--profiles-dir",
        str(REPO_ROOT),
        "--target-path",
        str(work / "target"),
        "--log-path",
        str(work / "logs"),
        "--vars",
        json.dumps({"raw_parquet_dir": str(work / "raw"), **STRICT}),
    ]
    completed = subprocess.run(
        command,
        cwd=REPO_ROOT,
        env={**os.environ, "CHALLENGE_FAIRNESS_DUCKDB": str(database)},
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    run_results = json.loads((work / "target" / "run_results.json").read_text())
    return {
        "work": work,
        "database": database,
        "returncode": completed.returncode,
        "stdout": completed.stdout,
        "results": {result["unique_id"]: result for result in run_results["results"]},
    }


def rebuild_gate(build: dict[str, Any], tmp_path: Path, **dbt_vars: Any) -> DbtRun:
    """Rebuild only the gate on the built database, with `dbt_vars`."""
    return run_dbt(
        GATE_ONLY,
        database=build["database"],
        work_dir=tmp_path,
        dbt_vars={"raw_parquet_dir": str(build["work"] / "raw"), **dbt_vars},
    )


def gate_test(results: dict[str, dict[str, Any]], name: str) -> dict[str, Any]:
    (result,) = [
        r for uid, r in results.items() if uid.startswith(f"test.challenge_fairness.{name}.")
    ]
    return result


def build_with_column_replaced(
    tmp_path: Path, table: str, column: str, replace: Callable[[pa.ChunkedArray], Any]
) -> tuple[Path, dict[str, Any], DbtRun, pa.Table]:
    """The seed-4 platform of 20k attempts with one raw column rewritten by `replace`,
    built with the gate at warn: (database, vars, the run, the table as generated)."""
    raw = tmp_path / "raw"
    write_parquet(generate_platform(PlatformSpec(seed=4, n_attempts=20_000)), str(raw))
    original = pq.read_table(raw / f"{table}.parquet")
    position = original.schema.get_field_index(column)
    replaced = original.set_column(position, column, replace(original[column]))
    pq.write_table(replaced, raw / f"{table}.parquet")
    database = tmp_path / f"{table}_{column}.duckdb"
    dbt_vars = {"raw_parquet_dir": str(raw), "fairness_gate_severity": "warn"}
    run = run_dbt(["build"], database=database, work_dir=tmp_path, dbt_vars=dbt_vars)
    return database, dbt_vars, run, original


def findings(database: Path, kind: str = "fairness_finding") -> Any:
    return read_table(
        database,
        f"select * from main.fct_fairness_gate_findings where finding_kind = '{kind}'"
        " order by finding_number",
    )


def test_quiet_ci_output_names_every_cause_and_its_first_finding(
    quiet_build: dict[str, Any],
) -> None:
    assert quiet_build["returncode"] == 1, quiet_build["stdout"]
    found = findings(quiet_build["database"])
    families = found[found.check_name == "family_deviation_within_threshold"]
    assert len(families) >= 2 and families.model_family.notna().all()
    stdout = quiet_build["stdout"]
    causes = list(found.cause_id.drop_duplicates())
    assert 1 < len(causes) < len(found)  # one root cause is one entry, not one per row
    assert (
        f"FAIRNESS GATE (error): {len(found)} finding(s) from {len(causes)} root cause(s)"
        " fail the build (fairness_finding)"
    ) in stdout
    lines = {
        number: f"FAIRNESS GATE (error) FAILED {number}/{len(found)} "
        f"[{finding.check_name}] {finding.message}"
        for number, finding in enumerate(found.itertuples(), start=1)
    }
    for index, cause_id in enumerate(causes, start=1):
        cause = found[found.cause_id == cause_id]
        (header,) = [
            line
            for line in stdout.splitlines()
            if line.startswith(f"FAIRNESS GATE (error) CAUSE {index}/{len(causes)} ")
        ]
        assert cause.cause.iloc[0] in header
        assert (f"{len(cause)} findings of " if len(cause) > 1 else "1 finding of ") in header
        for suite, count in cause.check_name.value_counts().items():
            assert (f"{suite} {count}" if len(cause) > 1 else suite) in header
        numbers = [number for number in cause.index + 1]
        assert numbers == list(range(numbers[0], numbers[0] + len(cause)))  # numbered together
        # its first finding in full, printed once (print() only, not also log()); the others
        # are in run_results.json, the stored failures and the log file
        assert stdout.count(lines[numbers[0]]) == 1, lines[numbers[0]]
        assert stdout.splitlines()[stdout.splitlines().index(header) + 1] == lines[numbers[0]]
        for number in numbers[1:]:
            assert lines[number] not in stdout
    assert "every finding, one row each: select * from " in stdout
    # every finding's line, printed or not, is in the log file, also under --quiet
    log = (quiet_build["work"] / "logs" / "dbt.log").read_text(encoding="utf-8")
    assert all(line in log for line in lines.values())
    # raw deviations the ability-adjusted verdict does not flag: one cause per family
    raw = found[found.cause_id.str.startswith("raw_deviation:")]
    assert len(raw) > raw.cause_id.nunique() >= 1
    assert (raw.cause_id == "raw_deviation:" + raw.model_family).all()
    for finding in families.itertuples():
        assert f"challenge '{finding.subject}', family '{finding.model_family}'" in finding.message
        assert f"deviation {finding.value:+.2f} points" in finding.message
        assert finding.threshold == 5 and "threshold of 5 (family_deviation_threshold)" in (
            finding.message
        )
    assert f"Got {len(found)} results, configured to fail if != 0" in stdout


def test_run_results_count_and_carry_findings(quiet_build: dict[str, Any]) -> None:
    found = findings(quiet_build["database"])
    result = gate_test(quiet_build["results"], "fairness_gate")
    assert result["status"] == "fail"
    assert result["failures"] == len(found)  # N counts findings, not suites
    for finding in found.itertuples():
        assert f"[{finding.check_name}] {finding.message}" in result["compiled_code"]
    stored = read_table(quiet_build["database"], f"select * from {result['relation_name']}")
    assert sorted(stored.message) == sorted(found.message)
    usable = gate_test(quiet_build["results"], "fairness_gate_input_usable")
    assert usable["status"] == "pass" and usable["failures"] == 0


def test_dirty_rows_below_the_share_pass_and_above_it_fail_whatever_the_severity(
    quiet_build: dict[str, Any], tmp_path: Path
) -> None:
    database = quiet_build["database"]
    counts = read_table(
        database, "select * from main.fct_source_row_counts where source_table = 'attempts'"
    ).iloc[0]
    share = counts.rejected_rows / counts.raw_rows
    assert 0 < share < 0.05  # the dirty platform is usable by default
    run = rebuild_gate(
        quiet_build,
        tmp_path,
        fairness_gate_severity="warn",
        fairness_gate_max_rejected_share=round(share / 2, 6),
    )
    assert not run.success
    (problem,) = findings(database, "unusable_input").itertuples()
    assert problem.check_name == "rejected_share_above_limit"
    assert f"of the {counts.raw_rows} raw attempts rows were rejected" in problem.message
    # Unusable input is no fairness warning: it fails as an error under warn too.
    assert "FAIRNESS GATE (error) UNUSABLE INPUT 1/1 [rejected_share_above_limit]" in run.output


def test_warn_severity_reads_as_warnings_and_passes(
    quiet_build: dict[str, Any], tmp_path: Path
) -> None:
    database = quiet_build["database"]
    run = rebuild_gate(quiet_build, tmp_path, fairness_gate_severity="warn", **STRICT)
    assert run.success, run.output
    found = findings(database)
    assert len(found) > 0 and (found.severity == "warn").all()
    causes = found.cause_id.nunique()
    assert (
        f"FAIRNESS GATE (warn): {len(found)} fairness finding(s) from {causes} root cause(s)"
        " recorded as warnings"
    ) in run.output
    assert f"FAIRNESS GATE (warn) CAUSE 1/{causes} " in run.output
    assert f"FAIRNESS GATE (warn) WARNING 1/{len(found)} [" in run.output
    assert "FAILED" not in "\n".join(m for m in run.messages if "FAIRNESS GATE" in m)
    results = read_table(database, "select * from main.fct_fairness_gate_results")
    assert set(results.outcome) == {"passed", "warning"}
    assert results.findings_count.sum() == len(found)


@pytest.mark.parametrize("severity", ["error", "warn"])
def test_unknown_suite_fails_the_build_whatever_the_severity(
    quiet_build: dict[str, Any], tmp_path: Path, severity: str
) -> None:
    database = quiet_build["database"]
    run = rebuild_gate(
        quiet_build,
        tmp_path,
        fairness_gate_severity=severity,
        fairness_gate_suites=["family_deviation_within_threshold", "family_deviaton"],
    )
    assert not run.success
    (error,) = findings(database, "suite_error").itertuples()
    assert error.check_name == "family_deviaton" and error.severity == "error"
    assert "suite family_deviaton could not run: no GX suite 'family_deviaton'" in error.message
    assert "FAIRNESS GATE (error) SUITE ERROR 1/1 [family_deviaton]" in run.output
    results = read_table(database, "select * from main.fct_fairness_gate_results")
    assert results.set_index("suite_name").loc["family_deviaton", "outcome"] == "error"


def test_empty_suite_list_fails_unless_a_var_allows_it(
    quiet_build: dict[str, Any], tmp_path: Path
) -> None:
    database = quiet_build["database"]
    empty = {"fairness_gate_severity": "warn", "fairness_gate_suites": []}
    run = rebuild_gate(quiet_build, tmp_path, **empty)
    assert not run.success
    (problem,) = findings(database, "unusable_input").itertuples()
    assert problem.check_name == "no_gate_suites"
    assert "var fairness_gate_suites is empty: the gate would check nothing" in run.output
    allowed = {**empty, "fairness_gate_allow_empty_suites": True}
    run = rebuild_gate(quiet_build, tmp_path, **allowed)
    assert run.success, run.output
    assert read_table(database, "select * from main.fct_fairness_gate_findings").empty


def test_finding_2_every_agent_on_an_unknown_model_fails_the_build(tmp_path: Path) -> None:
    """Issue 15 finding 2: 20000 = 0 clean + 20000 rejected used to give a green gate."""
    raw = tmp_path / "raw"
    write_parquet(generate_platform(PlatformSpec(seed=4, n_attempts=2_000)), str(raw))
    agents = str(raw / "agents.parquet")
    orphans = pq.read_table(agents)
    model_ids = pc.binary_join_element_wise("unknown-", orphans["model_id"], "")
    pq.write_table(orphans.set_column(1, "model_id", model_ids), agents)
    database = tmp_path / "unusable.duckdb"
    run = run_dbt(
        ["build"],
        database=database,
        work_dir=tmp_path,
        dbt_vars={"raw_parquet_dir": str(raw), "fairness_gate_severity": "warn"},
    )
    assert not run.success
    counts = read_table(database, "select * from main.fct_source_row_counts").set_index(
        "source_table"
    )
    assert counts.loc["attempts", "raw_rows"] == 2_000 == counts.loc["attempts", "rejected_rows"]
    problems = findings(database, "unusable_input")
    assert list(zip(problems.check_name, problems.checked_object, strict=True)) == [
        ("required_table_unusable", "agents"),
        ("required_table_unusable", "attempts"),
        ("no_testable_challenge", "challenges"),
    ]
    assert (
        "every row of required table attempts was rejected (2000 raw = 0 clean + 2000 rejected:"
        " unknown_agent_id 2000)"
    ) in run.output
    assert "every row of required table agents was rejected" in run.output
    assert "unknown_model_id" in run.output


def test_two_gate_runs_give_identical_findings_and_messages(
    quiet_build: dict[str, Any], tmp_path: Path
) -> None:
    """Issue 15 finding 10: the order of items inside gate messages used to vary."""
    outputs = []
    for attempt in ("first", "second"):
        run = rebuild_gate(quiet_build, tmp_path / attempt, fairness_gate_severity="warn", **STRICT)
        assert run.success, run.output
        outputs.append(
            (
                read_table(
                    quiet_build["database"], "select * from main.fct_fairness_gate_findings"
                ),
                read_table(
                    quiet_build["database"],
                    "select * exclude (validated_at) from main.fct_fairness_gate_results"
                    " order by suite_name, expectation_type",
                ),
            )
        )
    (findings_1, results_1), (findings_2, results_2) = outputs
    assert len(findings_1) > 10
    first, second = (
        f.sort_values("finding_number").reset_index(drop=True) for f in (findings_1, findings_2)
    )
    assert first.equals(second)
    assert results_1.equals(results_2)


def test_the_gate_runs_the_suites_the_detectors_declare(quiet_build: dict[str, Any]) -> None:
    """Issue 11, item 4: the suite list and thresholds come from detector_registry(). Every
    suite file is declared by exactly one detector, the default run lists them all, and the
    gate's Python model reads every mart a declared suite checks."""
    listed = read_table(
        quiet_build["database"],
        "select * from intermediate.int_fairness_gate_suites_listed order by suite_order",
    )
    suite_files = sorted((SUITES_DIR).glob("*.json"))
    assert sorted(listed.suite_name) == sorted(path.stem for path in suite_files)
    assert listed.detector.notna().all() and listed.suite_name.is_unique
    thresholds = json.loads(listed.thresholds.iloc[0])
    # every threshold a suite compares against is declared (negative_* derive from them)
    used = {
        expectation["meta"]["threshold_parameter"].removeprefix("negative_")
        for path in suite_files
        for expectation in json.loads(path.read_text())["expectations"]
        if (expectation.get("meta") or {}).get("threshold_parameter")
    }
    assert used and used <= set(thresholds), used - set(thresholds)
    assert thresholds["family_deviation_threshold"] == STRICT["family_deviation_threshold"]
    manifest = json.loads((quiet_build["work"] / "target" / "manifest.json").read_text())
    gate = manifest["nodes"]["model.challenge_fairness.int_fairness_expectations_validated"]
    read = {unique_id.split(".")[-1] for unique_id in gate["depends_on"]["nodes"]}
    checked = {json.loads(path.read_text())["meta"]["mart"] for path in suite_files}
    assert checked <= read, checked - read
    coverage = read_table(
        quiet_build["database"], "select detector, mart from main.fct_detector_coverage"
    )
    assert set(listed.detector) <= set(coverage.detector)


def test_scores_between_0_and_1_fail_the_build_unless_a_var_allows_it(tmp_path: Path) -> None:
    """Scores written as fractions (or pass/fail as 0/1) are in range, so no row is
    rejected, but no effect on that scale can reach family_deviation_threshold (10 points):
    every challenge would pass. The gate says so instead of passing."""
    database, dbt_vars, run, _ = build_with_column_replaced(
        tmp_path, "attempts", "score", lambda scores: pc.divide(scores, 100.0)
    )
    assert not run.success
    (problem,) = findings(database, "unusable_input").itertuples()
    assert (problem.check_name, problem.checked_object) == ("scores_not_points", "attempts")
    assert "clean scored attempts scores between 0 and 1 (the highest 1)" in run.output
    assert "multiply the scores by 100" in run.output
    # the summary and the report say so first, not "62 pass" and a green gate
    from challenge_fairness.report import render_report
    from challenge_fairness.summary import build_summary

    text, _ = build_summary(database)
    first = text.splitlines()[1:3]
    assert first[0].startswith("THE GATE FAILED THE BUILD ON 1 INPUT OR SUITE PROBLEM(S)")
    assert first[1].startswith("  UNUSABLE INPUT [scores_not_points] every one of the")
    html = render_report(database)
    assert "The gate failed the build on 1 input or suite problem(s)" in html
    assert "UNUSABLE INPUT [scores_not_points]" in html
    assert "FAILED on scores_not_points" in html and "suites pass" not in html
    allowed = {**dbt_vars, "fairness_gate_allow_unit_scores": True}
    run = run_dbt(GATE_ONLY, database=database, work_dir=tmp_path, dbt_vars=allowed)
    assert run.success, run.output
    assert findings(database, "unusable_input").empty
    assert "GATE FAILED" not in build_summary(database)[0]


def test_family_labels_differing_only_in_case_fail_the_build_unless_a_var_allows_it(
    tmp_path: Path,
) -> None:
    """A models table that labels one gpt model 'GPT ' is clean row by row, but the verdict
    would judge 'GPT ' and 'gpt' as two families, each with part of the attempts. The gate
    says so, naming both labels and their models, instead of judging them apart."""

    def relabel_first_gpt(column: pa.ChunkedArray) -> pa.Array:
        families = column.to_pylist()
        families[families.index("gpt")] = "GPT "
        return pa.array(families, pa.string())

    database, dbt_vars, run, models = build_with_column_replaced(
        tmp_path, "models", "model_family", relabel_first_gpt
    )
    model_id = models["model_id"][models["model_family"].to_pylist().index("gpt")].as_py()
    assert not run.success
    (problem,) = findings(database, "unusable_input").itertuples()
    assert (problem.check_name, problem.checked_object) == ("family_labels_ambiguous", "models")
    assert f'model families "GPT " ({model_id}) and "gpt" (' in run.output
    assert "fairness_gate_allow_similar_family_labels: true" in run.output
    allowed = {**dbt_vars, "fairness_gate_allow_similar_family_labels": True}
    run = run_dbt(GATE_ONLY, database=database, work_dir=tmp_path, dbt_vars=allowed)
    assert run.success, run.output
    assert findings(database, "unusable_input").empty
