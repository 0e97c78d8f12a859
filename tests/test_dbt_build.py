"""Tier 3: `dbt build` end to end on fixtures whose answers are computed independently."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pandas_reference
import pyarrow as pa
import pytest
from challenge_fairness.demo import SCHEMAS, PlatformSpec, generate_platform, write_parquet
from conftest import read_table, run_dbt

pytestmark = pytest.mark.dbt
RTOL = 1e-9

KEYS = {
    "fct_family_deviation": ["challenge_id", "model_family"],
    "fct_combination_difficulty": ["template_id", "variable_combination"],
    "fct_family_kruskal_wallis": ["challenge_id"],
    "fct_family_effect_sizes": ["challenge_id", "family_a", "family_b"],
}


def edge_case_tables(tables: dict[str, pa.Table]) -> dict[str, pa.Table]:
    """Append challenges that exercise every degenerate path to generated tables."""
    agents = tables["agents"].to_pandas().merge(tables["models"].to_pandas(), on="model_id")
    by_family = {
        family: list(group["agent_id"]) for family, group in agents.groupby("model_family")
    }
    families = sorted(by_family)
    rng = np.random.default_rng(5)
    rows: list[dict[str, object]] = []

    def add(challenge_id: str, family: str, score: float | None) -> None:
        rows.append(
            {
                "attempt_id": f"edge-{len(rows):05d}",
                "challenge_id": challenge_id,
                "agent_id": by_family[family][len(rows) % len(by_family[family])],
                "score": score,
                "submitted_at": pd.Timestamp("2026-03-01") + pd.Timedelta(minutes=len(rows)),
            }
        )

    for _ in range(120):  # one family only
        add("edge-one-family", families[0], float(rng.integers(0, 101)))
    for index in range(150):  # every score identical
        add("edge-constant", families[index % len(families)], 50.0)
    for index in range(20):  # fewer than min_attempts
        add("edge-thin", families[index % 2], float(rng.integers(0, 101)))
    add("edge-singleton", families[0], 80.0)  # a family with a single attempt
    for index in range(150):
        family = families[1 + index % (len(families) - 1)]
        add("edge-singleton", family, round(float(rng.normal(55, 12)), 1))  # non-integer scores
    for index in range(30):  # two families, each constant but different
        add("edge-two-constants", families[index % 2], 10.0 if index % 2 else 90.0)
    add("edge-unscored", families[0], None)
    extra_attempts = pa.Table.from_pylist(rows, schema=SCHEMAS["attempts"])

    edge_ids = sorted({str(row["challenge_id"]) for row in rows} | {"edge-no-attempts"})
    extra_challenges = pa.Table.from_pylist(
        [
            {
                "challenge_id": challenge_id,
                "template_id": f"tpl-{challenge_id}",
                "variables": "{}",
                "briefing_style": None,
                "experiment_id": None,
                "experiment_arm": None,
                "tags": [],
            }
            for challenge_id in edge_ids
        ],
        schema=SCHEMAS["challenges"],
    )
    return {
        **tables,
        "attempts": pa.concat_tables([tables["attempts"], extra_attempts]),
        "challenges": pa.concat_tables([tables["challenges"], extra_challenges]),
    }


@pytest.fixture(scope="session")
def platform_build(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """Generated platform + edge cases as parquet, built once with dbt."""
    work = tmp_path_factory.mktemp("platform")
    platform = generate_platform(PlatformSpec(seed=11, n_attempts=30_000))
    platform = dataclasses.replace(platform, tables=edge_case_tables(platform.tables))
    write_parquet(platform, str(work / "raw"))
    database = work / "marts.duckdb"
    run = run_dbt(
        ["build"],
        database=database,
        work_dir=work,
        dbt_vars={"raw_parquet_dir": str(work / "raw"), "fairness_gate_severity": "warn"},
    )
    assert run.success, run.output
    tables = {name: table.to_pandas() for name, table in platform.tables.items()}
    return {"database": database, "tables": tables, "platform": platform, "work": work}


def assert_frames_match(actual: pd.DataFrame, expected: pd.DataFrame, keys: list[str]) -> None:
    """Same keys, and every shared column equal (floats to RTOL, NaN == NULL)."""
    actual = actual.sort_values(keys).reset_index(drop=True)
    expected = expected.sort_values(keys).reset_index(drop=True)
    assert len(actual) == len(expected)
    pd.testing.assert_frame_equal(actual[keys], expected[keys], check_dtype=False)
    for column in expected.columns:
        if column in keys:
            continue
        want, got = expected[column], actual[column]
        if pd.api.types.is_float_dtype(want) or pd.api.types.is_float_dtype(got):
            want_values = want.astype(float).to_numpy()
            got_values = got.astype(float).to_numpy()
            np.testing.assert_array_equal(np.isnan(got_values), np.isnan(want_values), column)
            np.testing.assert_allclose(
                got_values, want_values, rtol=RTOL, atol=1e-9, err_msg=column
            )
        else:
            assert list(got.astype(object).where(got.notna(), None)) == list(
                want.astype(object).where(want.notna(), None)
            ), column


@pytest.mark.parametrize("mart", list(KEYS))
def test_mart_equals_independent_pandas_scipy_computation(
    platform_build: dict[str, object], mart: str
) -> None:
    expected = pandas_reference.compute_marts(platform_build["tables"])[mart]
    actual = read_table(platform_build["database"], f"select * from main.{mart}")
    assert_frames_match(actual, expected, KEYS[mart])


def test_degenerate_challenges_get_null_statistics_with_reasons(
    platform_build: dict[str, object],
) -> None:
    kw = read_table(
        platform_build["database"],
        "select * from main.fct_family_kruskal_wallis where challenge_id like 'edge-%'",
    ).set_index("challenge_id")
    assert kw.loc["edge-one-family", "status"] == "not_testable"
    assert "fewer than two families" in kw.loc["edge-one-family", "reason"]
    assert kw.loc["edge-constant", "status"] == "not_testable"
    assert "identical" in kw.loc["edge-constant", "reason"]
    assert kw.loc["edge-thin", "status"] == "insufficient_evidence"
    assert kw.loc["edge-no-attempts", "attempts"] == 0
    assert kw.loc["edge-no-attempts", "status"] == "insufficient_evidence"
    assert pd.isna(kw.loc["edge-no-attempts", "h_statistic"])
    assert kw.loc["edge-singleton", "status"] == "tested"

    effects = read_table(
        platform_build["database"],
        "select * from main.fct_family_effect_sizes where challenge_id like 'edge-%'",
    )
    singleton = effects[(effects.challenge_id == "edge-singleton") & (effects.attempts_a == 1)]
    assert len(singleton) > 0 and singleton.cohens_d.isna().all()
    assert (singleton.status == "not_computable").all()
    assert singleton.reason.str.contains("fewer than two").all()
    constants = effects[effects.challenge_id == "edge-two-constants"]
    assert constants.cohens_d.isna().all() and (constants.pooled_sd == 0).all()


def test_unscored_attempts_are_counted_not_rejected(platform_build: dict[str, object]) -> None:
    tables = platform_build["tables"]
    counts = read_table(
        platform_build["database"], "select * from main.fct_source_row_counts"
    ).set_index("source_table")
    assert counts.loc["attempts", "unscored_rows"] == tables["attempts"]["score"].isna().sum()
    assert counts.loc["attempts", "rejected_rows"] == 0
    deviation = read_table(
        platform_build["database"],
        "select sum(unscored_attempts) as n from main.fct_family_deviation",
    )
    assert deviation.n[0] <= counts.loc["attempts", "unscored_rows"]


def test_rejects_keep_every_bad_row_with_its_reason(tmp_path: Path) -> None:
    platform = generate_platform(PlatformSpec(seed=3, n_attempts=5_000, dirty=True))
    write_parquet(platform, str(tmp_path / "raw"))
    database = tmp_path / "dirty.duckdb"
    run = run_dbt(
        [
            "build",
            "--select",
            "+fct_rejected_rows",
            "+fct_source_row_counts",
            "--indirect-selection",
            "cautious",
        ],
        database=database,
        work_dir=tmp_path,
        dbt_vars={"raw_parquet_dir": str(tmp_path / "raw")},
    )
    assert run.success, run.output
    rejected = read_table(database, "select * from main.fct_rejected_rows")
    expected = platform.dirty_rows.to_pandas()
    got = rejected.groupby(["source_table", "rejection_reason"]).size().sort_index()
    want = expected.groupby(["source_table", "expected_reason"]).size().sort_index()
    want.index = want.index.set_names(["source_table", "rejection_reason"])
    pd.testing.assert_series_equal(got, want, check_names=False)
    assert rejected.raw_record.notna().all()

    counts = read_table(database, "select * from main.fct_source_row_counts").set_index(
        "source_table"
    )
    for name, table in platform.tables.items():
        assert counts.loc[name, "raw_rows"] == table.num_rows
        assert (
            counts.loc[name, "raw_rows"]
            == counts.loc[name, "clean_rows"] + counts.loc[name, "rejected_rows"]
        )
    assert counts.is_conserved.all()


def test_gate_fails_the_build_naming_challenge_family_value_and_threshold(
    platform_build: dict[str, object], tmp_path: Path
) -> None:
    database = tmp_path / "gate.duckdb"
    run = run_dbt(
        ["build"],
        database=database,
        work_dir=tmp_path,
        dbt_vars={"raw_parquet_dir": str(platform_build["work"] / "raw")},
    )
    assert not run.success
    found = read_table(
        database,
        "select * from main.fct_fairness_gate_findings where finding_kind = 'fairness_finding'"
        " order by finding_number",
    )
    # CI prints each root cause; every finding's own line is in the log file
    log = (tmp_path / "logs" / "dbt.log").read_text(encoding="utf-8")
    for number, finding in enumerate(found.itertuples(), start=1):
        assert f"FAILED {number}/{len(found)} [{finding.check_name}] {finding.message}" in log
    headers = [line for line in run.output.splitlines() if " CAUSE " in line]
    assert len(headers) == found.cause_id.nunique() < len(found)
    assert all(cause in run.output for cause in found.cause)
    deviations = found[found.check_name == "family_deviation_within_threshold"].set_index(
        ["subject", "model_family"]
    )
    planted = platform_build["platform"].planted_family_biases.to_pylist()
    for bias in planted:
        message = deviations.loc[(bias["challenge_id"], bias["model_family"]), "message"]
        assert message.startswith(
            f"challenge '{bias['challenge_id']}', family '{bias['model_family']}'"
        )
        assert "exceeds the threshold of 10 (family_deviation_threshold)" in message
    assert found.message.str.contains("(combination_deviation_threshold)", regex=False).any()
    results = read_table(database, "select * from main.fct_fairness_gate_results")
    core_suites = {
        "challenge_verdicts_not_flagged",
        "family_deviation_within_threshold",
        "combination_difficulty_within_threshold",
    }
    assert core_suites <= set(results.suite_name)
    assert not results[results.suite_name.isin(core_suites)].success.any()
    verdicts = read_table(
        database, "select * from main.fct_challenge_verdicts where verdict = 'flagged'"
    )
    # the gate's line is the verdict's own reason, which names every flagged family (the
    # largest |effect| first, which need not be the lead family)
    for verdict in verdicts.itertuples():
        assert f"family {verdict.lead_family} " in verdict.reason
        assert f"challenge '{verdict.challenge_id}' flagged: {verdict.reason}\n" in log


def test_lower_threshold_fails_and_warn_severity_records_but_passes(
    platform_build: dict[str, object], tmp_path: Path
) -> None:
    raw = str(platform_build["work"] / "raw")
    strict = {
        "raw_parquet_dir": raw,
        "family_deviation_threshold": 3,
        "combination_deviation_threshold": 100,
    }
    database = tmp_path / "strict.duckdb"
    run = run_dbt(["build"], database=database, work_dir=tmp_path, dbt_vars=strict)
    assert not run.success
    assert "exceeds the threshold of 3 (family_deviation_threshold)" in run.output
    flagged = read_table(
        database, "select count(*) as n from main.fct_family_deviation where is_flagged"
    )
    results = read_table(database, "select * from main.fct_fairness_gate_results").set_index(
        "suite_name"
    )
    assert results.loc["family_deviation_within_threshold", "failing_rows"] == flagged.n[0] > 3
    assert bool(results.loc["combination_difficulty_within_threshold", "success"])

    run = run_dbt(
        ["build"],
        database=database,
        work_dir=tmp_path,
        dbt_vars={**strict, "fairness_gate_severity": "warn"},
    )
    assert run.success, run.output
    assert "FAIRNESS GATE (warn)" in run.output
    results = read_table(database, "select * from main.fct_fairness_gate_results")
    assert (results.severity == "warn").all()
    assert not results.set_index("suite_name").loc["family_deviation_within_threshold", "success"]


def test_gate_passes_on_a_fair_platform(tmp_path: Path) -> None:
    fair = generate_platform(
        PlatformSpec(
            seed=21, n_attempts=30_000, planted_family_biases=(), planted_hard_combinations=()
        )
    )
    write_parquet(fair, str(tmp_path / "raw"))
    database = tmp_path / "fair.duckdb"
    run = run_dbt(
        ["build"],
        database=database,
        work_dir=tmp_path,
        dbt_vars={"raw_parquet_dir": str(tmp_path / "raw")},
    )
    assert run.success, run.output
    results = read_table(database, "select * from main.fct_fairness_gate_results")
    assert results.success.all()
    core = results[results.suite_name.str.contains("verdicts|family_deviation|combination")]
    assert len(core) == 3 and (core.evaluated_rows > 0).all()


def test_unknown_gate_severity_is_a_clear_error(
    platform_build: dict[str, object], tmp_path: Path
) -> None:
    run = run_dbt(
        ["build", "--select", "fct_fairness_gate_results"],
        database=platform_build["database"],
        work_dir=tmp_path,
        dbt_vars={"fairness_gate_severity": "loud"},
    )
    assert not run.success
    assert "fairness_gate_severity must be 'error' or 'warn'" in run.output


def test_adjusted_effects_and_verdicts_equal_an_independent_computation(
    platform_build: dict[str, object],
) -> None:
    import verdict_reference

    expected_verdicts, expected_effects = verdict_reference.verdicts(platform_build["tables"])
    effects = read_table(
        platform_build["database"],
        "select * from main.fct_family_adjusted_effects where adjusted_deviation is not null",
    )
    columns = [
        "adjusted_deviation",
        "standard_error",
        "degrees_of_freedom",
        "t_statistic",
        "p_value",
        "p_value_sidak",
        "ci_low",
        "ci_high",
        "is_significant",
        "is_flagged",
    ]
    assert_frames_match(
        effects[["challenge_id", "model_family", *columns]],
        expected_effects[["challenge_id", "model_family", *columns]],
        ["challenge_id", "model_family"],
    )
    verdicts = read_table(platform_build["database"], "select * from main.fct_challenge_verdicts")
    assert_frames_match(
        verdicts[["challenge_id", "verdict", "p_value", "q_value"]],
        expected_verdicts[["challenge_id", "verdict", "p_value", "q_value"]],
        ["challenge_id"],
    )


def test_every_challenge_has_one_verdict_with_a_reason(platform_build: dict[str, object]) -> None:
    verdicts = read_table(
        platform_build["database"], "select * from main.fct_challenge_verdicts"
    ).set_index("challenge_id")
    challenges = platform_build["tables"]["challenges"]
    assert sorted(verdicts.index) == sorted(challenges.challenge_id)
    assert verdicts.reason.notna().all() and (verdicts.reason.str.len() > 10).all()
    expected = {
        "edge-one-family": "not_testable",
        "edge-constant": "not_testable",
        "edge-thin": "insufficient_evidence",
        "edge-no-attempts": "insufficient_evidence",
        "edge-singleton": "insufficient_evidence",  # one family has a single attempt
        "edge-unscored": "insufficient_evidence",
    }
    for challenge, verdict in expected.items():
        assert verdicts.loc[challenge, "verdict"] == verdict, verdicts.loc[challenge, "reason"]
    assert "min_family_attempts" in verdicts.loc["edge-singleton", "reason"]
    planted = platform_build["platform"].planted_family_biases.to_pandas()
    flagged = verdicts[verdicts.verdict == "flagged"]
    assert set(flagged.index) == set(planted.challenge_id)
    for _, bias in planted.iterrows():
        row = verdicts.loc[bias.challenge_id]
        assert row.lead_family == bias.model_family
        assert np.sign(row.lead_adjusted_deviation) == np.sign(bias["shift"])
        assert row.lead_ci_low < bias["shift"] < row.lead_ci_high
    thin = verdicts[verdicts.attempts < 100]
    assert (thin.verdict != "pass").all()


def test_dunn_pairs_name_the_biased_family_on_flagged_challenges(
    platform_build: dict[str, object],
) -> None:
    planted = platform_build["platform"].planted_family_biases.to_pandas()
    dunn = read_table(platform_build["database"], "select * from main.fct_family_pairwise_dunn")
    for _, bias in planted.iterrows():
        pairs = dunn[dunn.challenge_id == bias.challenge_id]
        significant = pairs[pairs.is_significant]
        involved = set(significant.family_a) | set(significant.family_b)
        assert bias.model_family in involved
        with_biased = pairs[
            (pairs.family_a == bias.model_family) | (pairs.family_b == bias.model_family)
        ]
        assert with_biased.is_significant.mean() >= 0.8


def test_demo_reports_its_planted_biases_and_nothing_else(tmp_path: Path) -> None:
    from challenge_fairness.demo import QUICKSTART_DEMO, write_duckdb
    from challenge_fairness.summary import summarise

    demo = generate_platform(QUICKSTART_DEMO)  # = `make demo`
    database = tmp_path / "demo.duckdb"
    write_duckdb(demo, str(database))
    run = run_dbt(
        ["build"], database=database, work_dir=tmp_path, dbt_vars={"fairness_gate_severity": "warn"}
    )
    assert run.success, run.output
    planted = {
        (b["challenge_id"], b["model_family"]) for b in demo.planted_family_biases.to_pylist()
    }
    flagged = read_table(
        database, "select * from main.fct_family_adjusted_effects where is_flagged"
    )
    assert set(zip(flagged.challenge_id, flagged.model_family, strict=True)) == planted
    raw = read_table(database, "select * from main.fct_family_deviation where is_flagged")
    assert set(zip(raw.challenge_id, raw.model_family, strict=True)) == planted
    combinations = read_table(
        database, "select * from main.fct_combination_difficulty where is_flagged"
    )
    hard = demo.planted_hard_combinations.to_pylist()
    assert list(zip(combinations.template_id, combinations.variable_combination, strict=True)) == [
        (h["template_id"], h["variables"]) for h in hard
    ]
    summary = summarise(database)
    for challenge, family in planted:
        assert f"FLAGGED {challenge}: family {family}" in summary
    assert summary.count("FLAGGED ch") == len(planted)
    assert f"Marts are tables in {database}" in summary
    assert "DRIFT ch-s12 in window 2026-04-01: family deepseek no attempts before -> +" in (
        summary
    )  # the late family
    # the bias removed in May names llama (its -20 before, near 0 after), not the new lead
    fixed = re.search(
        r"FIXED ch-s04 in window 2026-05-01: family llama ([-+][0-9.]+) points -> "
        r"([-+][0-9.]+) points",
        summary,
    )
    assert fixed is not None, summary
    assert float(fixed.group(1)) < -10 < float(fixed.group(2))
    assert summary.index("Verdicts (") < summary.index("What to do (") < summary.index("Raw seed")
    assert "FAILED" not in summary  # the demo gate runs under warn: warnings, not failures
    changes = read_table(
        database,
        "select challenge_id, window_start, is_drift from main.fct_challenge_verdict_history"
        " where is_drift or is_fixed order by window_start",
    )
    assert [(c, str(w)[:10], d) for c, w, d in changes.itertuples(index=False)] == [
        ("ch-s12", "2026-04-01", True),
        ("ch-s04", "2026-05-01", False),
    ]
    assert demo.detector_truth["bias_fix"]["fixed_window_start"] == "2026-05-01"
    queue = read_table(
        database,
        "select * from main.rpt_review_queue where is_latest_week"
        " and recommended_action <> 'collect_attempts' order by priority",
    )
    items = queue.set_index("cause_id")
    assert items.loc["family_bias:ch-s04", "recommended_action"] == "confirm_fix"  # fixed in May
    late = items.loc["family_bias:ch-s12"]  # the drift began when deepseek arrived
    assert late.recommended_action == "inspect_new_family"
    assert "when family deepseek first attempted" in late.action_reason
    assert "2026-04-01" in late.cause
    api = items.loc["api:stripe"]  # one item for the API, never retire on the platform trend
    assert api.challenges == demo.detector_truth["api_memorization"]["tagged_challenges"]
    assert api.recommended_action in ("rewrite_challenge", "watch")
    assert "retire" not in api.challenge_actions
    assert (queue.detectors == "api_memorization").sum() == 1
    # challenge-level items first, by harm; then the trend; the fix to confirm last
    assert list(queue.priority_tier) == sorted(queue.priority_tier)
    assert queue.cause_id.iloc[-1] == "family_bias:ch-s04"
    first_tier = queue[queue.priority_tier == 1]
    assert (np.diff(first_tier.harm_score.to_numpy()) <= 0).all()
    assert len(queue) == 18, queue[["cause_id", "recommended_action"]]
    assert_test_code_lint_found_its_plants(demo, database, items)
    # Every other detector finds its plant, and nothing else.
    detector_lines = summary.split("Other detectors:")[1].split("Great Expectations gate:")[0]
    findings = [line.strip() for line in detector_lines.strip().splitlines()]
    briefing = [f for f in findings if f.startswith("briefing style:")]
    assert len(briefing) == 6 and all(
        "template tpl-03" in f and "family llama" in f for f in briefing
    )
    assert any(f.startswith("A/B experiment: exp-001 SUCCESS") for f in findings)
    assert any(f.startswith("A/B experiment: exp-002 FAILURE") for f in findings)
    api = [f for f in findings if f.startswith("API memorisation:")]
    assert len(api) == 1 and "api:stripe" in api[0]
    tests = [f for f in findings if f.startswith("test case to review:")]
    assert len(tests) == 1 and "ch-s05-tc3" in tests[0] and "mistral" in tests[0]
    unicode = [f for f in findings if f.startswith("Unicode coverage:")]
    assert unicode == ["Unicode coverage: ch-s03: " + unicode[0].split("ch-s03: ", 1)[1]]
    assert "cjk, right_to_left" in unicode[0]
    approach = [f for f in findings if f.startswith("approach bias:")]
    assert len(approach) == 1 and "ch-s07: app-router vs pages-router" in approach[0]
    assert not any(f.startswith("family clustering: FLAGGED") for f in findings)
    contaminated = sorted(f.split(": ")[1] for f in findings if f.startswith("contaminated"))
    assert [c.split(":")[0] for c in contaminated] == ["ch-s06", "ch-s09"]
    shared = [f for f in findings if f.startswith("shared instance code:")]
    assert len(shared) == 1 and "ch-t03-01 and ch-t03-02" in shared[0]
    assert not any("not run, missing" in f for f in findings)
    assert_audit_found_exactly_its_plants(demo, database, findings)


def assert_test_code_lint_found_its_plants(demo: Any, database: Path, items: Any) -> None:
    """The test-code lint reports the demo's planted findings exactly; the DIF-planted test
    case is one queue item citing its line and family; the others are items of their own."""
    truth = demo.detector_truth["test_code_lint"]
    found = read_table(
        database,
        "select test_case_id, finding.category, finding.line"
        " from intermediate.int_test_case_code_linted, unnest(findings) as listed(finding)",
    )
    assert sorted(map(list, found.itertuples(index=False))) == truth["findings"]
    linted = read_table(database, "select * from main.fct_test_code_lint").set_index("test_case_id")
    assert len(linted) == 6 * len(truth["challenges"])
    assert linted.loc["ch-s07-tc1", "is_language_inferred"]
    assert set(linted.interface_style) == {"cli", "internal_api"}
    assert list(linted.index[~linted.is_gate_passing]) == ["ch-s05-tc5", "ch-s07-tc2"]
    dif = items.loc["test_case:ch-s05-tc3"]  # the lint finding and the DIF: one cause
    assert dif.detectors == "test_case_bias, test_code_lint" and dif.findings == 2
    assert dif.lead_model_family == "mistral" and "line 1 (name_expectation)" in dif.lead_evidence
    for case_id in ("ch-s05-tc5", "ch-s07-tc2"):
        item = items.loc[f"test_case:{case_id}"]
        assert item.detectors == "test_code_lint" and item.recommended_action == "fix_tests"
    gate = read_table(
        database,
        "select * from main.fct_fairness_gate_results"
        " where suite_name = 'test_code_checks_behaviour'",
    )
    assert list(gate.outcome) == ["warning"] and list(gate.failing_rows) == [2]


# --- F6 briefing and rubric audit: the demo's audit plants, exactly -------------------------


def assert_audit_found_exactly_its_plants(demo: Any, database: Path, findings: list[str]) -> None:
    """Locale findings, flagged domain assumptions and flagged rubric items equal the plants."""
    truth = demo.detector_truth["briefing_rubric_audit"]
    locale = read_table(database, "select * from main.fct_briefing_locale_findings")
    assert (
        sorted(
            map(list, zip(locale.challenge_id, locale.rule_id, locale.matched_text, strict=True))
        )
        == (truth["locale_findings"])
    )
    assert set(locale.challenge_id[locale.needs_review]) == set(truth["competitive_challenges"])
    domain = read_table(database, "select * from main.fct_briefing_domain_assumptions")
    flagged = domain[domain.is_flagged]
    assert (
        sorted(map(list, zip(flagged.challenge_id, flagged.term_id, strict=True)))
        == (truth["domain_assumptions_flagged"])
    )
    defined = domain[~domain.is_flagged]
    assert (
        sorted(map(list, zip(defined.challenge_id, defined.term_id, strict=True)))
        == (truth["domain_assumptions_defined"])
    )
    rubric = read_table(database, "select * from main.fct_rubric_item_bias")
    assert rubric.rubric_item_id[rubric.is_flagged].tolist() == truth["flagged_rubric_items"]
    fair = rubric[rubric.rubric_item_id == truth["fair_paradigm_independent_item"]].iloc[0]
    assert fair.verdict == "no_large_dif"
    lines = [f for f in findings if f.startswith(("locale finding:", "domain assumption:"))]
    assert len(lines) == len(truth["locale_findings"]) + len(truth["domain_assumptions_flagged"])
    for challenge_id, rule_id, text in truth["locale_findings"]:
        assert any(f'{challenge_id}: {rule_id} "{text}"' in line for line in lines)
    rubric_lines = [f for f in findings if f.startswith("rubric item to review:")]
    assert len(rubric_lines) == 1 and truth["style_item"]["description"] in rubric_lines[0]
    assert "family llama" in rubric_lines[0] and "paradigm_name" in rubric_lines[0]
