"""The bias scan: int_bias_evidence_unioned, rpt_daily_bias_scan and rpt_review_queue.

Built end to end on the demo platform with every detector's plant (the answer is known), on
a fair platform without optional inputs (empty scan), and run incrementally.
"""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from challenge_fairness.demo import PlatformSpec, generate_platform, write_duckdb
from conftest import read_table, run_dbt

pytestmark = pytest.mark.dbt

SCAN_DATE = "2026-07-01"  # a Wednesday: week_start 2026-06-29
PRECEDENCE = [
    "retire_challenge",
    "fix_tests",
    "fix_rubric",
    "fix_briefing",
    "inspect_new_family",
    "rebalance_combinations",
    "rewrite_challenge",
    "watch",
    "confirm_fix",
    "collect_attempts",
]
UNEXPLAINED = (
    "family bias that no detector attributes to the tests, briefing or rubric:"
    " inspect, and retire if no cause is found"
)
SCAN_MODELS = [
    "int_combination_deviations_measured",
    "fct_combination_difficulty",
    "int_bias_scan_date",
    "int_bias_evidence_unioned",
    "rpt_daily_bias_scan",
    "rpt_review_queue",
]


@pytest.fixture(scope="module")
def plants_build(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The `make demo` platform (every detector planted), built once with a fixed scan date."""
    work = tmp_path_factory.mktemp("bias_scan")
    # = `make demo`; at 30,000 attempts the briefing-style and A/B plants lose power
    platform = generate_platform(PlatformSpec(dirty=True, detector_plants=True))
    database = work / "plants.duckdb"
    write_duckdb(platform, str(database))
    run = run_dbt(
        ["build"],
        database=database,
        work_dir=work,
        dbt_vars={"fairness_gate_severity": "warn", "bias_scan_date": SCAN_DATE},
    )
    assert run.success, run.output
    return {"database": database, "platform": platform, "work": work}


def expected_queue(platform: Any, database: Path) -> dict[str, tuple[set[str], str]]:
    """challenge -> (detectors with a finding, recommended action), from the planted truth;
    an API challenge is rewritten when its own slope interval lies beyond the threshold,
    else watched (never retired on the platform-level trend)."""
    truth = platform.detector_truth
    own_slopes = read_table(
        database,
        """select challenges.challenge_id, challenges.ci_low > apis.slope_threshold as confirms
        from main.fct_api_memorization_challenges as challenges
        inner join main.fct_api_memorization as apis on challenges.api_name = apis.api_name
        where apis.is_flagged""",
    )
    api_action = {
        row.challenge_id: "rewrite_challenge" if row.confirms else "watch"
        for row in own_slopes.itertuples()
    }
    challenges = platform.tables["challenges"].to_pandas()
    detectors: dict[str, set[str]] = {}
    actions: dict[str, set[str]] = {}

    def plant(challenge: str, detector: str, action: str) -> None:
        detectors.setdefault(challenge, set()).add(detector)
        actions.setdefault(challenge, set()).add(action)

    tag = truth["api_memorization"]["tag"]
    for challenge in challenges[challenges.tags.apply(lambda tags: tag in tags)].challenge_id:
        plant(challenge, "api_memorization", api_action[challenge])
    for copy in truth["planted_contamination"]:
        plant(copy["challenge_id"], "challenge_contamination", "retire_challenge")
    for pair in truth["planted_instance_overlap"]:
        for side in ("challenge_a", "challenge_b"):
            plant(pair[side], "challenge_instance_overlap", "retire_challenge")
    test_case = truth["test_case_dif"]["test_case_id"]
    plant(test_case.rsplit("-", 1)[0], "test_case_bias", "fix_tests")
    plant(truth["string_challenge_lacking"]["challenge_id"], "unicode_coverage", "fix_tests")
    for case_id, _category, _line in truth["test_code_lint"]["findings"]:
        plant(case_id.rsplit("-", 1)[0], "test_code_lint", "fix_tests")
    for challenge, (_a, _b, shift, _families) in truth["approaches"].items():
        if shift != 0:
            plant(challenge, "approach_bias", "fix_tests")
    style = truth["briefing_style"]
    briefed = challenges[
        (challenges.template_id == style["template_id"])
        & (challenges.briefing_style == style["style"])
    ].challenge_id
    for challenge in briefed:
        plant(challenge, "briefing_style_sensitivity", "fix_briefing")
    for bias in platform.planted_family_biases.to_pylist():
        # a family bias takes its cause's action; briefing plants explain theirs
        cause = "fix_briefing" if bias["challenge_id"] in set(briefed) else "retire_challenge"
        plant(bias["challenge_id"], "family_verdict", cause)
    audit = truth["briefing_rubric_audit"]  # F6
    for challenge, _rule, _text in audit["locale_findings"]:
        if challenge in audit["competitive_challenges"]:  # only those need review
            plant(challenge, "briefing_locale", "fix_briefing")
    for challenge, _term in audit["domain_assumptions_flagged"]:
        plant(challenge, "briefing_domain_assumptions", "fix_briefing")
    for item in audit["flagged_rubric_items"]:
        plant(item.rsplit("-", 1)[0], "rubric_item_bias", "fix_rubric")
    for hard in platform.planted_hard_combinations.to_pylist():
        combination = challenges[
            (challenges.template_id == hard["template_id"])
            & (challenges.variables.apply(_canonical) == _canonical(hard["variables"]))
        ]
        for challenge in combination.challenge_id:
            plant(challenge, "combination_difficulty", "rebalance_combinations")
    return {
        challenge: (found, min(actions[challenge], key=PRECEDENCE.index))
        for challenge, found in detectors.items()
    }


def dates(column: pd.Series) -> set[dt.date]:
    """The distinct dates of a DATE column as read into pandas."""
    return set(pd.to_datetime(column).dt.date)


def on(history: pd.DataFrame, day: str) -> pd.DataFrame:
    """The rows of one scan date."""
    return history[pd.to_datetime(history.scan_date).dt.date == dt.date.fromisoformat(day)]


def _canonical(variables: str | None) -> str | None:
    """Canonical JSON of a variables object; None for the dirty rows that are not one."""
    import json

    try:
        parsed = json.loads(variables or "{}")
    except json.JSONDecodeError:
        return None
    if not isinstance(parsed, dict):
        return None
    return json.dumps(dict(sorted(parsed.items())), separators=(",", ":"))


def queue_by_challenge(database: Path) -> dict[str, tuple[set[str], str]]:
    """challenge -> (detectors of its findings in the scan, its decisive action over the
    queue items it belongs to, from their challenge_actions)."""
    queue = read_table(
        database,
        "select * from main.rpt_review_queue where is_latest_week"
        " and recommended_action <> 'collect_attempts'",
    )
    scan = read_table(
        database,
        "select challenge_id, detector from main.rpt_daily_bias_scan"
        " where detector <> 'attempts_needed'",
    )
    actions: dict[str, set[str]] = {}
    for item in queue.itertuples():
        for pair in item.challenge_actions.split("; "):
            challenge, action = pair.split(": ")
            actions.setdefault(challenge, set()).add(action)
    detectors = scan.groupby("challenge_id").detector.agg(set).to_dict()
    return {
        challenge: (detectors[challenge], min(found, key=PRECEDENCE.index))
        for challenge, found in actions.items()
    }


def test_queue_lists_every_plant_with_its_action_and_nothing_else(
    plants_build: dict[str, Any],
) -> None:
    database = plants_build["database"]
    queue = read_table(database, "select * from main.rpt_review_queue")
    assert queue_by_challenge(database) == expected_queue(plants_build["platform"], database)
    # one item per cause
    items = queue.set_index("cause_id")
    assert items.index.is_unique
    truth = plants_build["platform"].detector_truth
    api = items.loc[truth["api_memorization"]["tag"]]
    assert api.challenges == truth["api_memorization"]["tagged_challenges"] == api.findings
    assert api.recommended_action in ("rewrite_challenge", "watch")
    assert "retire_challenge" not in api.challenge_actions
    style = truth["briefing_style"]
    briefing = items.loc[f"briefing_style:{style['template_id']}/{style['style']}"]
    assert briefing.recommended_action == "fix_briefing" and briefing.challenges > 1
    assert "family_verdict" in briefing.detectors  # the family biases it explains
    overlap = truth["planted_instance_overlap"][0]
    pair = sorted([overlap["challenge_a"], overlap["challenge_b"]])
    shared = items.loc[f"instance_overlap:{pair[0]}/{pair[1]}"]
    assert shared.challenge_ids == ", ".join(pair) and shared.findings == 2
    locale = items.loc["briefing_locale:ch-s02"]
    assert locale.findings == 3 and locale.challenges == 1
    # the cases the issue names
    actions = queue_by_challenge(database)
    assert actions["ch-s05"][1] == "fix_tests" and actions["ch-s07"][1] == "fix_tests"
    assert actions["ch-t03-01-plain"][1] == "fix_briefing"
    assert actions["ch-s09"][1] == actions["ch-s06"][1] == "retire_challenge"
    assert actions["ch-t01-12"][1] == "rebalance_combinations"
    assert actions["ch-s02"][1] == actions["ch-s08"][1] == "fix_briefing"  # locale, domain term
    # ch-s05: its test case (the lint's finding and the DIF, one cause) and its rubric item
    assert actions["ch-s05"][0] == {"test_case_bias", "test_code_lint", "rubric_item_bias"}
    dif_case = items.loc[f"test_case:{truth['test_case_dif']['test_case_id']}"]
    assert dif_case.detectors == "test_case_bias, test_code_lint"
    causes = {f"test_case:{truth['test_case_dif']['test_case_id']}"} | {
        f"rubric_item:{item}" for item in truth["briefing_rubric_audit"]["flagged_rubric_items"]
    }
    assert causes <= set(items.index)
    assert dates(queue.week_start) == {dt.date(2026, 6, 29)}
    assert dates(queue.scan_date) == {dt.date(2026, 7, 1)} and queue.is_latest_week.all()


def test_gate_findings_name_the_review_queues_causes(plants_build: dict[str, Any]) -> None:
    """The gate's CI output is one entry per root cause: each fairness finding carries the
    cause of its detector's finding (the review queue's), so the planted plain briefing's
    style, verdict and deviation findings are one cause, not one line each."""
    database = plants_build["database"]
    gate = read_table(
        database,
        "select * from main.fct_fairness_gate_findings where finding_kind = 'fairness_finding'"
        " order by finding_number",
    )
    evidence = read_table(database, "select * from intermediate.int_bias_evidence_unioned")
    assert gate.cause_id.notna().all() and gate.cause.notna().all()
    own = gate.cause_id.str.startswith(("leaderboard:", "raw_deviation:"))
    assert set(gate.cause_id[~own]) <= set(evidence.cause_id)
    # a flagged verdict takes the cause its family bias has in the evidence
    family = evidence[evidence.detector == "family_verdict"].set_index(
        ["challenge_id", "model_family"]
    )
    verdicts = gate[gate.check_name == "challenge_verdicts_not_flagged"]
    assert len(verdicts) > 1
    for finding in verdicts.itertuples():
        assert finding.cause_id == family.loc[(finding.subject, finding.model_family), "cause_id"]
    style = plants_build["platform"].detector_truth["briefing_style"]
    briefing = gate[gate.cause_id == f"briefing_style:{style['template_id']}/{style['style']}"]
    assert set(briefing.check_name) == {
        "briefing_style_sensitivity_within_threshold",
        "challenge_verdicts_not_flagged",
        "family_deviation_within_threshold",
    }
    assert (briefing.recommended_action == "fix_briefing").all()
    # findings of one cause are numbered together, the largest cause first
    sizes = gate.groupby("cause_id", sort=False).size()
    assert list(gate.cause_id.drop_duplicates()) == list(sizes.index)
    assert (gate.cause_id != gate.cause_id.shift()).sum() == len(sizes) < len(gate)
    assert sizes.iloc[0] == sizes.max() == len(briefing)


def test_family_bias_takes_the_action_of_its_cause_or_retire_and_inspect(
    plants_build: dict[str, Any],
) -> None:
    family = read_table(
        plants_build["database"],
        "select * from intermediate.int_bias_evidence_unioned where detector = 'family_verdict'",
    ).set_index("challenge_id")
    assert family.loc["ch-s04", "action_reason"] == UNEXPLAINED
    assert family.loc["ch-t02-03", "action_reason"] == UNEXPLAINED
    assert (
        "challenge_contamination finding ch-s09/ref-planted-002"
        in (family.loc["ch-s09", "action_reason"])
    )
    assert "experiment exp-001" in family.loc["ch-s01", "action_reason"]
    assert "ch-s02" in family.loc["ch-s01", "action_reason"]
    # the queue's title says so too, not "no detector explains"
    assert family.loc["ch-s01", "cause"] == (
        "family bias on ch-s01; experiment exp-001 found its arm B (ch-s02) fairer"
    )
    briefing = family.loc["ch-t03-04-plain"]
    assert briefing.recommended_action == "fix_briefing"
    assert "briefing_style_sensitivity finding ch-t03-04-plain/plain" in briefing.action_reason
    assert "in the style markdown" in briefing.action_reason


def test_evidence_carries_each_detector_statistics_unchanged(
    plants_build: dict[str, Any],
) -> None:
    database = plants_build["database"]
    scan = read_table(database, "select * from main.rpt_daily_bias_scan")
    by_detector = {name: frame for name, frame in scan.groupby("detector")}

    effects = read_table(
        database, "select * from main.fct_family_adjusted_effects where is_flagged"
    )
    verdicts = read_table(database, "select challenge_id, q_value from main.fct_challenge_verdicts")
    want = effects.merge(verdicts, on="challenge_id").sort_values("challenge_id")
    got = by_detector["family_verdict"].sort_values("challenge_id")
    assert list(got.challenge_id) == list(want.challenge_id)
    assert list(got.model_family) == list(want.model_family)
    for column, source in [
        ("effect", "adjusted_deviation"),
        ("ci_low", "ci_low"),
        ("ci_high", "ci_high"),
        ("q_value", "q_value"),
    ]:
        np.testing.assert_allclose(got[column], want[source], rtol=1e-12, err_msg=column)
    assert (got.threshold == 10).all()
    np.testing.assert_allclose(got.severity, got.effect.abs() / 10, rtol=1e-12)

    dif = read_table(
        database,
        """select bias.challenge_id, bias.lead_d_dif, bias.gcmh_q_value, family.d_dif_ci_low,
        family.d_dif_ci_high from main.fct_test_case_bias as bias
        inner join main.fct_test_case_family_dif as family
        on bias.test_case_id = family.test_case_id and bias.lead_family = family.model_family
        where bias.is_review_recommended""",
    )
    row = by_detector["test_case_bias"].iloc[0]
    assert len(by_detector["test_case_bias"]) == len(dif) == 1
    assert row.effect == dif.lead_d_dif[0] and row.q_value == dif.gcmh_q_value[0]
    assert row.ci_low == dif.d_dif_ci_low[0] and row.ci_high == dif.d_dif_ci_high[0]
    assert row.model_family == "mistral" and row.effect < -1.5

    approach = read_table(database, "select * from main.fct_approach_bias where is_flagged")
    row = by_detector["approach_bias"].iloc[0]
    assert (row.effect, row.ci_low, row.ci_high, row.q_value) == (
        approach.stratified_gap[0],
        approach.ci_low[0],
        approach.ci_high[0],
        approach.q_value[0],
    )
    contamination = by_detector["challenge_contamination"].set_index("challenge_id")
    assert (contamination.effect == 1.0).all() and (contamination.threshold == 0.5).all()
    assert contamination.q_value.isna().all() and contamination.ci_low.isna().all()
    unicode = by_detector["unicode_coverage"].iloc[0]
    assert unicode.effect == 2 and "cjk, right_to_left" in unicode.evidence
    rubric = by_detector["rubric_item_bias"].iloc[0]
    assert rubric.model_family == "llama" and rubric.effect > 1.5
    assert rubric.ci_low <= rubric.effect <= rubric.ci_high and rubric.q_value < 0.05
    locale = by_detector["briefing_locale"]
    assert set(locale.challenge_id) == {"ch-s02"} and len(locale) == 3
    api = by_detector["api_memorization"]
    assert (api.threshold == 3).all() and (api.effect > 3).all() and api.q_value.lt(0.05).all()
    assert scan.evidence.str.len().gt(40).all() and scan.action_reason.notna().all()
    assert scan.is_new.all() and dates(scan.scan_date) == {dt.date(2026, 7, 1)}


def assert_collect_items_match_the_plans(database: Path) -> None:
    """One collect_attempts item per undecided challenge with a plan, last in the queue,
    naming every family's recommendation of fct_challenge_attempts_needed."""
    plans = read_table(
        database,
        "select challenge_id, model_family, recommendation, challenge_additional_attempts"
        " from main.fct_challenge_attempts_needed"
        " where verdict_window = 'all' and recommendation is not null",
    )
    queue = read_table(
        database, "select * from main.rpt_review_queue where is_latest_week order by priority"
    )
    collect = queue[queue.recommended_action == "collect_attempts"]
    assert set(collect.challenge_ids) == set(plans.challenge_id)
    assert (collect.priority_tier == 4).all()
    assert (queue.priority_tier[queue.recommended_action != "collect_attempts"] < 4).all()
    for item in collect.itertuples():
        assert item.cause_id == f"attempts_needed:{item.challenge_ids}"
        for plan in plans[plans.challenge_id == item.challenge_ids].itertuples():
            assert plan.recommendation in item.lead_evidence
        additional = plans[plans.challenge_id == item.challenge_ids].challenge_additional_attempts
        if additional.notna().any():
            assert f"collect about {int(additional.max())} more" in item.action_reason


def test_undecided_challenges_are_queued_last_with_their_attempts_plan(
    plants_build: dict[str, Any],
) -> None:
    assert_collect_items_match_the_plans(plants_build["database"])


def test_priority_is_tier_then_harm(plants_build: dict[str, Any]) -> None:
    """Items on the challenges' own evidence first, platform trends (rewrite, watch) next,
    fixes to confirm last; within a tier the larger harm (severity x attempts) first."""
    queue = read_table(
        plants_build["database"], "select * from main.rpt_review_queue order by priority"
    )
    assert list(queue.priority) == list(range(1, len(queue) + 1))
    assert (np.diff(queue.priority_tier.to_numpy()) >= 0).all()
    for _, tier in queue.groupby("priority_tier"):
        assert (np.diff(tier.harm_score.to_numpy()) <= 1e-9).all()
    np.testing.assert_allclose(
        queue.harm_score, queue.max_severity.fillna(1.0) * queue.attempts_affected, rtol=1e-12
    )
    verdicts = read_table(
        plants_build["database"], "select challenge_id, attempts from main.fct_challenge_verdicts"
    ).set_index("challenge_id")
    for item in queue.itertuples():
        challenges = item.challenge_ids.split(", ")
        assert item.attempts_affected == verdicts.loc[challenges, "attempts"].sum()
    api = queue[queue.detectors == "api_memorization"]
    assert (api.priority_tier == 2).all()
    # the decisive finding comes first by action precedence
    lead = queue.set_index("cause_id")
    contamination = lead[lead.lead_challenge_id == "ch-s09"]
    assert len(contamination) == 1 and contamination.findings.item() == 2
    assert contamination.recommended_action.item() == "retire_challenge"


def test_incremental_scan_appends_marks_new_findings_and_replaces_a_rerun_day(
    plants_build: dict[str, Any], tmp_path: Path
) -> None:
    database = tmp_path / "history.duckdb"
    shutil.copy(plants_build["database"], database)

    def scan(scan_date: str, full_refresh: bool = False, **dbt_vars: Any) -> pd.DataFrame:
        # `run`: the models' data tests already ran in the fixture's build
        args = ["run", "--select", *SCAN_MODELS] + (["--full-refresh"] if full_refresh else [])
        run = run_dbt(
            args,
            database=database,
            work_dir=tmp_path,
            dbt_vars={"bias_scan_date": scan_date, **dbt_vars},
        )
        assert run.success, run.output
        return read_table(database, "select * from main.rpt_daily_bias_scan")

    first = read_table(database, "select * from main.rpt_daily_bias_scan")
    hard = "combination_difficulty"
    assert (first.detector == hard).sum() == 1

    # a later day whose scan lacks the combination finding (threshold raised)
    history = scan("2026-07-08", combination_deviation_threshold=100)
    day = on(history, "2026-07-08")
    assert dates(history.scan_date) == {dt.date(2026, 7, 1), dt.date(2026, 7, 8)}
    assert len(day) == len(first) - 1 and not day.is_new.any()
    assert len(on(history, "2026-07-01")) == len(first)

    # the next day the combination is back: new again, everything else not
    history = scan("2026-07-09")
    day = on(history, "2026-07-09")
    assert set(day[day.is_new].detector) == {hard} and day.is_new.sum() == 1

    # re-running a day replaces its scan (the vanished finding goes too)
    history = scan("2026-07-09", combination_deviation_threshold=100)
    day = on(history, "2026-07-09")
    assert len(day) == len(first) - 1 and hard not in set(day.detector)
    assert len(history) == 3 * len(first) - 2

    queue = read_table(database, "select * from main.rpt_review_queue")
    assert dates(queue.week_start) == {dt.date(2026, 6, 29), dt.date(2026, 7, 6)}
    latest = queue[queue.is_latest_week]
    assert dates(latest.scan_date) == {dt.date(2026, 7, 9)}
    assert dates(latest.first_scan_date) == {dt.date(2026, 7, 1)}
    assert len(latest) == len(queue[~queue.is_latest_week]) - 1  # its combination left the queue

    # --full-refresh starts the history again
    history = scan("2026-07-10", full_refresh=True)
    assert dates(history.scan_date) == {dt.date(2026, 7, 10)} and history.is_new.all()


def test_fair_platform_without_optional_inputs_gives_an_empty_scan(tmp_path: Path) -> None:
    fair = generate_platform(
        PlatformSpec(
            seed=21, n_attempts=10_000, planted_family_biases=(), planted_hard_combinations=()
        )
    )
    database = tmp_path / "fair.duckdb"
    write_duckdb(fair, str(database))
    run = run_dbt(
        [
            "build",
            "--select",
            "+rpt_review_queue",
            "+fct_detector_coverage",
            "--indirect-selection",
            "cautious",
        ],
        database=database,
        work_dir=tmp_path,
    )
    assert run.success, run.output
    # No finding of bias; undecided verdicts only ask for attempts.
    for mart in ("int_bias_evidence_unioned", "rpt_daily_bias_scan", "rpt_review_queue"):
        schema = "intermediate" if mart.startswith("int_") else "main"
        count = read_table(
            database,
            f"select count(*) as n from {schema}.{mart}"
            " where recommended_action <> 'collect_attempts'",
        )
        assert count.n[0] == 0, mart
    assert_collect_items_match_the_plans(database)
    coverage = read_table(database, "select * exclude (mart) from main.fct_detector_coverage")
    assert not coverage.set_index("detector").loc["test_case_bias", "is_available"]
    scan_date = read_table(database, "select * from intermediate.int_bias_scan_date")
    latest = fair.tables["attempts"].to_pandas().submitted_at.max().date()
    assert dates(scan_date.scan_date) == {latest}
    assert scan_date.scan_date_source[0] == "latest clean attempt"
