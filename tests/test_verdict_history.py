"""The verdict history (fct_challenge_verdict_history), the platform fairness score and the
monthly bias report, built end to end on a small fixture with a known story:

* ch-s01: family `d` arrives on 2026-04-01 and is 25 points worse there than its ability
  elsewhere predicts (scores stay far from the 0..100 clipping) -> passes in January,
  undecided in March, flagged from April: a drift in 2026-04;
* ch-s02: family `a` is 25 points worse until March, fair from April -> fixed in 2026-04;
* ch-s03 .. ch-s16: fair throughout, except ch-s05: no attempts at all;
* no attempt at all in February (an empty window inside the history).

Every window's verdict must equal the independent pandas + scipy reference
(tests/verdict_reference.py) applied to that window's attempts alone.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import verdict_reference
from challenge_fairness.demo import SCHEMAS, PlatformSpec, generate_platform, write_parquet
from conftest import read_table, run_dbt
from test_dbt_build import assert_frames_match

pytestmark = pytest.mark.dbt

HISTORY = ["+rpt_monthly_bias_report", "+fct_detector_coverage", "+fct_challenge_verdicts"]
ARRIVAL = pd.Timestamp("2026-04-01")
NEVER_ATTEMPTED = "ch-s05"
CHALLENGES = 16
# thinner windows than the default 100 attempts keep the fixture at about 5,000 attempts
SETTINGS = {"min_attempts": 40}
MONTHS = [f"2026-{m:02d}-01" for m in range(1, 7)]


def history_platform(
    seed: int = 3, n_attempts: int = 7_000, challenges: int = 16, noise_sd: float = 4.0
) -> dict[str, pd.DataFrame]:
    """The fixture tables (pandas), built from a small generated platform."""
    platform = generate_platform(
        PlatformSpec(
            seed=seed,
            n_attempts=n_attempts,
            families=("a", "b", "c", "d"),
            models_per_family=1,
            agents_per_model=2,
            n_templates=0,
            n_standalone_challenges=challenges,
            noise_sd=noise_sd,
            planted_family_biases=(),
            planted_hard_combinations=(),
        )
    )
    tables = {name: table.to_pandas() for name, table in platform.tables.items()}
    attempts = tables["attempts"]
    family = attempts.agent_id.map(
        tables["agents"]
        .set_index("agent_id")
        .model_id.map(tables["models"].set_index("model_id").model_family)
    )
    late = attempts.submitted_at >= ARRIVAL
    keep = (
        (family != "d") | late  # family d arrives in April
    ) & (attempts.submitted_at.dt.month != 2)  # nobody attempts anything in February
    keep &= attempts.challenge_id != NEVER_ATTEMPTED
    shift = np.where((attempts.challenge_id == "ch-s01") & (family == "d"), -25.0, 0.0)
    shift += np.where((attempts.challenge_id == "ch-s02") & (family == "a") & ~late, -25.0, 0.0)
    attempts = attempts.assign(score=(attempts.score + shift).clip(0, 100))[keep]
    return {**tables, "attempts": attempts.reset_index(drop=True)}


def write_fixture(tables: dict[str, pd.DataFrame], directory: Path) -> None:
    """Write the pandas tables as the raw parquet files dbt reads."""
    platform = generate_platform(PlatformSpec(n_attempts=0, planted_family_biases=()))
    arrow = {
        name: pa.Table.from_pandas(frame, schema=SCHEMAS[name], preserve_index=False)
        for name, frame in tables.items()
    }
    write_parquet(dataclasses.replace(platform, tables=arrow), str(directory))


def build(work: Path, tables: dict[str, pd.DataFrame], select: list[str], **dbt_vars) -> Path:
    """Build `select` on the fixture; return the database."""
    write_fixture(tables, work / "raw")
    database = work / "history.duckdb"
    run = run_dbt(
        ["build", "--indirect-selection", "cautious", "--select", *select],
        database=database,
        work_dir=work,
        dbt_vars={"raw_parquet_dir": str(work / "raw"), **SETTINGS, **dbt_vars},
    )
    assert run.success, run.output
    return database


@pytest.fixture(scope="module")
def monthly(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    work = tmp_path_factory.mktemp("history_month")
    tables = history_platform()
    return {"database": build(work, tables, HISTORY), "tables": tables}


def window_subset(tables: dict[str, pd.DataFrame], start: str, end: str) -> dict[str, pd.DataFrame]:
    """The tables with only the attempts submitted in [start, end)."""
    attempts = tables["attempts"]
    inside = (attempts.submitted_at >= pd.Timestamp(start)) & (
        attempts.submitted_at < pd.Timestamp(end)
    )
    return {**tables, "attempts": attempts[inside]}


def history(database: Path) -> pd.DataFrame:
    return read_table(
        database, "select * from main.fct_challenge_verdict_history order by all"
    ).assign(window_start=lambda f: f.window_start.astype(str))


def test_every_window_equals_the_reference_on_its_own_attempts(monthly) -> None:
    rows = history(monthly["database"])
    windows = read_table(
        monthly["database"], "select * from intermediate.int_verdict_windows_spined"
    )
    assert [str(w) for w in windows.window_start.astype(str)] == MONTHS
    effects = read_table(
        monthly["database"],
        "select *, verdict_window as window_start from intermediate.int_family_effects_flagged"
        " where verdict_window <> 'all' and adjusted_deviation is not null",
    ).assign(window_start=lambda f: f.window_start.astype(str))
    columns = ["adjusted_deviation", "standard_error", "degrees_of_freedom", "t_statistic"]
    columns += ["p_value", "p_value_sidak", "ci_low", "ci_high", "is_significant", "is_flagged"]
    tested_windows = 0
    bounds = zip(windows.window_start.astype(str), windows.window_end.astype(str), strict=True)
    for start, end in bounds:
        subset = window_subset(monthly["tables"], start, end)
        if subset["attempts"].empty:
            continue  # February: see test_windows_without_attempts_are_insufficient_evidence
        expected_verdicts, expected_effects = verdict_reference.verdicts(subset, SETTINGS)
        got = rows[rows.window_start == start]
        assert_frames_match(
            got[["challenge_id", "verdict", "p_value", "q_value"]],
            expected_verdicts[["challenge_id", "verdict", "p_value", "q_value"]],
            ["challenge_id"],
        )
        if len(expected_effects):
            tested_windows += 1
            assert_frames_match(
                effects.loc[
                    effects.window_start == start, ["challenge_id", "model_family", *columns]
                ],
                expected_effects[["challenge_id", "model_family", *columns]],
                ["challenge_id", "model_family"],
            )
    assert tested_windows == 5  # every window but the empty February


def test_all_time_verdict_still_equals_the_reference(monthly) -> None:
    expected, _ = verdict_reference.verdicts(monthly["tables"], SETTINGS)
    verdicts = read_table(monthly["database"], "select * from main.fct_challenge_verdicts")
    assert_frames_match(
        verdicts[["challenge_id", "verdict", "p_value", "q_value"]],
        expected[["challenge_id", "verdict", "p_value", "q_value"]],
        ["challenge_id"],
    )


def test_drift_when_a_family_arrives_and_fixed_when_a_bias_goes(monthly) -> None:
    rows = history(monthly["database"]).set_index(["challenge_id", "window_start"])
    drift = rows.loc["ch-s01"]
    assert list(drift.verdict) == [
        "pass",
        "insufficient_evidence",  # February: no attempts
        "insufficient_evidence",  # March: an interval straddles the threshold
        "flagged",
        "flagged",
        "flagged",
    ]
    assert list(drift.index[drift.is_drift]) == ["2026-04-01"]
    april = drift.loc["2026-04-01"]
    # the previous DECIDED verdict is January's: February and March decided nothing
    assert april.previous_decided_verdict == "pass" and april.lead_family == "d"
    assert april.lead_ci_low < -25 < april.lead_ci_high and april.new_families == "d"
    assert drift.loc["2026-01-01"].new_families == "a,b,c"  # first attempts of the others
    assert drift.loc["2026-05-01"].previous_decided_verdict == "flagged"

    fixed = rows.loc["ch-s02"]
    assert list(fixed.verdict) == [
        "flagged",
        "insufficient_evidence",
        "flagged",
        "pass",
        "pass",
        "insufficient_evidence",
    ]
    assert list(fixed.index[fixed.is_fixed]) == ["2026-04-01"]
    assert fixed.loc["2026-03-01"].lead_family == "a"
    assert fixed.loc["2026-03-01"].lead_adjusted_deviation < -10

    assert rows.is_drift.sum() == 1 and rows.is_fixed.sum() == 1  # nothing else changed
    fair = rows.drop(index=["ch-s01", "ch-s02"], level="challenge_id")
    assert set(fair.verdict) == {"pass", "insufficient_evidence"}  # no false flag
    assert rows.loc[(slice(None), "2026-06-01"), "is_latest_window"].all()
    assert rows.is_latest_window.sum() == CHALLENGES


def test_fixes_and_drifts_name_the_family_whose_bias_changed(monthly) -> None:
    """A fix names the family that WAS flagged (not the window's new lead family) with its
    effect before and after; a drift the family flagged now (no effect before: it arrived)."""
    database = monthly["database"]
    rows = history(database).set_index(["challenge_id", "window_start"])
    effects = read_table(
        database,
        "select *, verdict_window as window_start from intermediate.int_family_effects_flagged"
        " where verdict_window <> 'all'",
    ).assign(window_start=lambda f: f.window_start.astype(str))
    effect = effects.set_index(["challenge_id", "model_family", "window_start"]).adjusted_deviation

    fixed = rows.loc[("ch-s02", "2026-04-01")]
    assert fixed.changed_family == "a"  # flagged in March (the previous decided window)
    assert fixed.previous_decided_window_start is not None
    assert str(fixed.previous_decided_window_start)[:10] == "2026-03-01"
    assert fixed.changed_family_effect_before == pytest.approx(effect["ch-s02", "a", "2026-03-01"])
    assert fixed.changed_family_effect_after == pytest.approx(effect["ch-s02", "a", "2026-04-01"])
    assert fixed.changed_family_effect_before < -10 < fixed.changed_family_effect_after < 10

    drift = rows.loc[("ch-s01", "2026-04-01")]
    assert drift.changed_family == "d" == drift.lead_family
    assert pd.isna(drift.changed_family_effect_before)  # d had no attempts before April
    assert drift.changed_family_effect_after == pytest.approx(drift.lead_adjusted_deviation)
    assert str(drift.previous_decided_window_start)[:10] == "2026-01-01"  # Feb, Mar undecided

    unchanged = rows[~(rows.is_drift | rows.is_fixed)]
    assert unchanged.changed_family.isna().all()
    assert unchanged.changed_family_effect_before.isna().all()

    report = read_table(
        database, "select * from main.rpt_monthly_bias_report where item_status = 'fixed'"
    )
    assert list(report.changed_family) == ["a"]
    assert report.changed_family_effect_before[0] == pytest.approx(
        fixed.changed_family_effect_before
    )


def test_windows_without_attempts_are_insufficient_evidence(monthly) -> None:
    rows = history(monthly["database"])
    february = rows[rows.window_start == "2026-02-01"]
    never = rows[rows.challenge_id == "ch-s05"]
    for empty in (february, never):
        assert (empty.verdict == "insufficient_evidence").all()
        assert (empty.attempts == 0).all() and empty.lead_family.isna().all()
        assert empty.reason.str.startswith("no scored attempts in this window").all()
    assert len(rows) == CHALLENGES * 6  # every challenge x every window from January to June
    score = read_table(monthly["database"], "select * from main.rpt_platform_fairness_score")
    feb = score[score.window_start.astype(str) == "2026-02-01"].iloc[0]
    assert feb.eligible_challenges == 0 and pd.isna(feb.platform_fairness_score)
    assert feb.challenges_with_attempts == 0


def test_fairness_score_arithmetic(monthly) -> None:
    rows = history(monthly["database"])
    score = read_table(
        monthly["database"], "select * from main.rpt_platform_fairness_score order by window_start"
    )
    expected = []
    for start, group in rows.groupby("window_start"):
        eligible = int(group.is_tested.sum())
        passing = int((group.verdict == "pass").sum())
        expected.append(
            {
                "window_start": start,
                "challenges_with_attempts": int((group.attempts > 0).sum()),
                "eligible_challenges": eligible,
                "passing_challenges": passing,
                "flagged_challenges": int((group.verdict == "flagged").sum()),
                "uncertain_challenges": int(
                    (group.is_tested & (group.verdict == "insufficient_evidence")).sum()
                ),
                "platform_fairness_score": passing / eligible if eligible else np.nan,
                "fixed_challenges": int(group.is_fixed.sum()),
                "drifted_challenges": int(group.is_drift.sum()),
            }
        )
    expected_frame = pd.DataFrame(expected)
    expected_frame["score_change"] = expected_frame.platform_fairness_score.diff()
    expected_frame.loc[0, "score_change"] = np.nan
    assert_frames_match(
        score.assign(window_start=score.window_start.astype(str)), expected_frame, ["window_start"]
    )
    april = score[score.window_start.astype(str) == "2026-04-01"].iloc[0]
    assert april.drifted_challenges == 1 and april.fixed_challenges == 1
    # the known story: in March ch-s01 passes and ch-s02 is flagged; in April the reverse
    march = score[score.window_start.astype(str) == "2026-03-01"].iloc[0]
    assert march.flagged_challenges == 1 and april.flagged_challenges == 1


def test_monthly_bias_report_lists_fixed_new_and_remaining_items(monthly) -> None:
    report = read_table(
        monthly["database"], "select * from main.rpt_monthly_bias_report order by all"
    ).assign(window_start=lambda f: f.window_start.astype(str))
    items = list(zip(report.window_start, report.challenge_id, report.item_status, strict=True))
    assert items == [
        ("2026-01-01", "ch-s02", "newly_flagged"),
        ("2026-03-01", "ch-s02", "still_flagged"),
        ("2026-04-01", "ch-s01", "newly_flagged"),
        ("2026-04-01", "ch-s02", "fixed"),
        ("2026-05-01", "ch-s01", "still_flagged"),
        ("2026-06-01", "ch-s01", "still_flagged"),
    ]
    score = read_table(monthly["database"], "select * from main.rpt_platform_fairness_score")
    by_window = dict(
        zip(score.window_start.astype(str), score.platform_fairness_score, strict=True)
    )
    for _, row in report.iterrows():
        assert row.platform_fairness_score == pytest.approx(by_window[row.window_start])


def test_quarter_windows(tmp_path: Path) -> None:
    tables = history_platform()
    database = build(
        tmp_path, tables, ["+fct_challenge_verdict_history"], verdict_history_window="quarter"
    )
    rows = history(database)
    assert sorted(set(rows.window_start)) == ["2026-01-01", "2026-04-01"]
    assert set(rows.window_end.astype(str)) == {"2026-04-01", "2026-07-01"}
    assert set(rows.window_grain) == {"quarter"}
    for start, end in (("2026-01-01", "2026-04-01"), ("2026-04-01", "2026-07-01")):
        expected, _ = verdict_reference.verdicts(window_subset(tables, start, end), SETTINGS)
        got = rows[rows.window_start == start]
        assert_frames_match(
            got[["challenge_id", "verdict", "p_value", "q_value"]],
            expected[["challenge_id", "verdict", "p_value", "q_value"]],
            ["challenge_id"],
        )
    s01 = rows[rows.challenge_id == "ch-s01"].set_index("window_start")
    assert list(s01.verdict) == ["pass", "flagged"] and s01.loc["2026-04-01"].is_drift


def test_week_windows_start_on_mondays(tmp_path: Path) -> None:
    tables = history_platform()
    tables["attempts"] = tables["attempts"][tables["attempts"].submitted_at < "2026-01-20"]
    database = build(tmp_path, tables, ["+int_challenges_tested"], verdict_history_window="week")
    windows = read_table(
        database, "select * from intermediate.int_verdict_windows_spined order by window_start"
    )
    starts = pd.to_datetime(windows.window_start).sort_values()
    assert list(starts.dt.strftime("%Y-%m-%d")) == [
        "2025-12-29",
        "2026-01-05",
        "2026-01-12",
        "2026-01-19",
    ]
    assert (starts.dt.dayofweek == 0).all()
    assert (
        (pd.to_datetime(windows.window_end) - pd.to_datetime(windows.window_start))
        .eq(pd.Timedelta(days=7))
        .all()
    )


def test_unknown_window_is_a_compile_error(tmp_path: Path) -> None:
    run = run_dbt(
        ["compile", "--select", "int_attempt_scores_counted"],
        database=tmp_path / "bad.duckdb",
        work_dir=tmp_path,
        dbt_vars={"verdict_history_window": "fortnight"},
    )
    assert not run.success
    assert (
        "verdict_history_window must be 'week', 'month' or 'quarter', got 'fortnight'" in run.output
    )


def test_without_timestamps_the_history_is_empty_and_says_why(tmp_path: Path) -> None:
    tables = history_platform()
    tables["attempts"] = tables["attempts"].assign(submitted_at=pd.NaT)
    database = build(tmp_path, tables, HISTORY)
    for mart in (
        "fct_challenge_verdict_history",
        "rpt_platform_fairness_score",
        "rpt_monthly_bias_report",
    ):
        assert read_table(database, f"select count(*) as n from main.{mart}").n[0] == 0
    coverage = read_table(
        database,
        "select * exclude (mart) from main.fct_detector_coverage"
        " where detector = 'verdict_history'",
    )
    assert coverage.to_dict("records") == [
        {
            "detector": "verdict_history",
            "is_available": False,
            "missing_inputs": "attempts.submitted_at: NULL on every clean attempt",
            "rows_analysed": 0,
        }
    ]
    verdicts = read_table(database, "select count(*) as n from main.fct_challenge_verdicts")
    assert verdicts.n[0] == CHALLENGES  # the all-time verdict does not need timestamps


def test_demo_drift_plant_is_off_by_default_and_arrives_in_april() -> None:
    from challenge_fairness.demo import VERDICT_DRIFT_PLANT

    plain = generate_platform(PlatformSpec(seed=5, n_attempts=3_000))
    assert "deepseek" not in set(plain.tables["models"].column("model_family").to_pylist())
    drifted = generate_platform(PlatformSpec(seed=5, n_attempts=3_000, verdict_drift=True))
    # the other tables are only appended to: the default platform is a prefix
    for name in ("attempts", "agents", "models"):
        prefix = drifted.tables[name].slice(0, plain.tables[name].num_rows)
        assert prefix.equals(plain.tables[name])
    tables = {name: table.to_pandas() for name, table in drifted.tables.items()}
    joined = tables["attempts"].merge(tables["agents"], on="agent_id").merge(tables["models"])
    late = joined[joined.model_family == VERDICT_DRIFT_PLANT["family"]]
    assert late.submitted_at.min() >= pd.Timestamp(VERDICT_DRIFT_PLANT["arrives_at"])
    # it attempts the whole catalogue, not only the challenge it is biased on
    assert late.challenge_id.nunique() > drifted.tables["challenges"].num_rows / 2
    assert drifted.detector_truth["verdict_drift"]["drift_window_start"] == "2026-04-01"
    planted = drifted.planted_family_biases.to_pylist()
    assert {"challenge_id": "ch-s12", "model_family": "deepseek", "shift": 20.0} in planted
    # the popular challenge: enough attempts every month for a confident verdict
    on_target = joined[joined.challenge_id == VERDICT_DRIFT_PLANT["challenge_id"]]
    assert on_target.groupby(on_target.submitted_at.dt.month).size().min() > 1_000
