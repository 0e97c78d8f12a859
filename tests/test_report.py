"""The offline HTML report: synthetic marts -> HTML -> headless Chromium with no network;
and end to end from a dbt build of a small demo platform."""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
from challenge_fairness import report
from hypothesis import given
from hypothesis import strategies as st
from offline_browser import (
    external_references,
    markup_resource_references,
    render_offline,
    screenshot_colours,
)
from report_fixtures import small_platform_build

WINDOWS = pd.to_datetime(["2026-01-01", "2026-02-01", "2026-03-01", "2026-04-01"])
FLAGGED = ("ch-a", "ch-b")
TEMPLATES = {  # template -> variables (values)
    "tpl-2d": {"language": ["Go", "Python", "Rust"], "format": ["csv", "json"]},
    "tpl-3v": {"db": ["Postgres", "SQLite"], "auth": ["jwt", "session"], "ui": ["React"]},
    "tpl-1v": {"framework": ["Hono", "Express", "FastAPI"]},
}
HISTORY_VERDICTS = {  # challenge -> verdict per window
    "ch-a": ["pass", "pass", "flagged", "flagged"],  # drift in window 3
    "ch-b": ["flagged", "insufficient_evidence", "flagged", "pass"],  # fixed in window 4
    "ch-c": ["pass", "pass", "pass", "pass"],
    "ch-d": ["not_testable", "insufficient_evidence", "pass", "pass"],
}


VERDICT_ROWS = (  # challenge, verdict, lead family, lead effect
    ("ch-a", "flagged", "qwen", 21.5),
    ("ch-b", "flagged", "llama", -18.2),
    ("ch-c", "pass", "gpt", 2.0),
    ("ch-d", "insufficient_evidence", "gemini", 9.0),
)
FAMILIES = ("gemini", "gpt", "llama", "qwen")


def _verdicts() -> pd.DataFrame:
    rows = []
    for challenge_id, verdict, family, effect in VERDICT_ROWS:
        rows.append(
            {
                "challenge_id": challenge_id,
                "template_id": f"tpl-{challenge_id}",
                "verdict": verdict,
                "reason": f"{challenge_id}: family {family} {effect:+.1f} points <test reason>"
                " and larger than family_deviation_threshold = 10",
                "attempts": 300,
                "families": 3,
                "smallest_family_attempts": 80,
                "flagged_families": 1 if verdict == "flagged" else 0,
                "lead_family": family,
                "lead_adjusted_deviation": effect,
                "lead_ci_low": effect - 4.0,
                "lead_ci_high": effect + 4.0,
                "interval_level": 0.95,
                "p_value": 1e-8 if verdict == "flagged" else 0.4,
                "q_value": 2e-7 if verdict == "flagged" else 0.6,
            }
        )
    return pd.DataFrame(rows)


def _effects() -> pd.DataFrame:
    """Every family on every challenge; the lead family carries the verdict's effect."""
    rows = []
    for challenge_id, verdict, lead, effect in VERDICT_ROWS:
        for family in FAMILIES:
            value = effect if family == lead else -effect / 6
            rows.append(
                {
                    "challenge_id": challenge_id,
                    "model_family": family,
                    "adjusted_deviation": value,
                    "ci_low": value - 4.0,
                    "ci_high": value + 4.0,
                    "is_challenge_tested": verdict != "not_testable",
                    "is_flagged": verdict == "flagged" and family == lead,
                }
            )
    return pd.DataFrame(rows)


def _combinations(rng: np.random.Generator) -> pd.DataFrame:
    rows = []
    for template_id, variables in TEMPLATES.items():
        names = list(variables)
        grids = np.meshgrid(*variables.values(), indexing="ij")
        combos = [
            dict(zip(names, values, strict=True))
            for values in zip(*(g.ravel() for g in grids), strict=True)
        ]
        for index, combo in enumerate(combos):
            deviation = -25.0 if (template_id == "tpl-2d" and index == 0) else rng.normal(0, 4)
            rows.append(
                {
                    "template_id": template_id,
                    "variable_combination": json.dumps(
                        dict(sorted(combo.items())), separators=(",", ":")
                    ),
                    "challenges": 1,
                    "attempts": 200,
                    "mean_score": 55 + deviation,
                    "template_combinations": len(combos),
                    "template_mean": 55.0,
                    "deviation": deviation,
                    "is_flagged": abs(deviation) > 20,
                    "difficulty_rank": index + 1,
                }
            )
    return pd.DataFrame(rows)


def _platform_scores() -> pd.DataFrame:
    passing = [6, 7, 6, 9]
    flagged = [2, 1, 3, 1]
    uncertain = [2, 2, 1, 2]
    rows = []
    previous = None
    for index, start in enumerate(WINDOWS):
        eligible = passing[index] + flagged[index] + uncertain[index]
        score = passing[index] / eligible
        rows.append(
            {
                "window_start": start,
                "window_end": start + pd.offsets.MonthBegin(1),
                "challenges_with_attempts": 12,
                "eligible_challenges": eligible,
                "passing_challenges": passing[index],
                "flagged_challenges": flagged[index],
                "uncertain_challenges": uncertain[index],
                "platform_fairness_score": score,
                "score_change": None if previous is None else score - previous,
                "fixed_challenges": index % 2,
                "drifted_challenges": 1 if index == 2 else 0,
            }
        )
        previous = score
    return pd.DataFrame(rows)


def _history() -> pd.DataFrame:
    rows = []
    for challenge_id, verdicts in HISTORY_VERDICTS.items():
        previous_decided = None
        for start, verdict in zip(WINDOWS, verdicts, strict=True):
            rows.append(
                {
                    "challenge_id": challenge_id,
                    "template_id": f"tpl-{challenge_id}",
                    "window_start": start,
                    "window_end": start + pd.offsets.MonthBegin(1),
                    "window_grain": "month",
                    "verdict": verdict,
                    "reason": f"{verdict} in this window",
                    "attempts": 100,
                    "families": 3,
                    "flagged_families": int(verdict == "flagged"),
                    "lead_family": "qwen",
                    "lead_adjusted_deviation": 12.0,
                    "lead_ci_low": 8.0,
                    "lead_ci_high": 16.0,
                    "q_value": 0.01,
                    "previous_decided_verdict": previous_decided,
                    "is_drift": verdict == "flagged" and previous_decided == "pass",
                    "is_fixed": verdict == "pass" and previous_decided == "flagged",
                    "new_families": None,
                    "is_latest_window": start == WINDOWS[-1],
                }
            )
            if verdict in ("pass", "flagged"):
                previous_decided = verdict
    return pd.DataFrame(rows)


def _review_queue() -> pd.DataFrame:
    base = {
        "findings": 1,
        "lead_evidence": "family qwen +21.5 points",
        "challenge_actions": "ch-a: fix_tests",
        "harm_score": 1000.0,
    }
    return pd.DataFrame(
        [
            {
                **base,
                "week_start": pd.Timestamp("2026-03-30"),
                "cause_id": "old",
                "cause": "old week cause",
                "challenge_ids": "ch-old",
                "priority": 1,
                "recommended_action": "fix_rubric",
                "action_reason": "old week",
            },
            {
                **base,
                "week_start": pd.Timestamp("2026-04-06"),
                "cause_id": "test_case:ch-a-tc1",
                "cause": "test case ch-a-tc1 functions differently by family",
                "challenge_ids": "ch-a",
                "priority": 1,
                "recommended_action": "fix_tests",
                "action_reason": "test-case DIF <points> at the tests",
                "harm_score": 5000.0,
            },
            {
                **base,
                "week_start": pd.Timestamp("2026-04-06"),
                "cause_id": "api:stripe",
                "cause": "newer models memorised api:stripe",
                "challenge_ids": "ch-b, ch-c, ch-d, ch-e, ch-f, ch-g",
                "challenge_actions": "ch-b: watch; ch-c: rewrite_challenge",
                "priority": 2,
                "recommended_action": "rewrite_challenge",
                "action_reason": "platform trend of ch-b",
                "harm_score": 90000.0,
            },
        ]
    )


def _monthly() -> pd.DataFrame:
    rows = []
    for start, challenge_id, status in (
        (WINDOWS[2], "ch-a", "newly_flagged"),
        (WINDOWS[2], "ch-b", "still_flagged"),
        (WINDOWS[3], "ch-b", "fixed"),
        (WINDOWS[3], "ch-a", "still_flagged"),
    ):
        rows.append(
            {
                "window_start": start,
                "window_end": start + pd.offsets.MonthBegin(1),
                "challenge_id": challenge_id,
                "template_id": f"tpl-{challenge_id}",
                "item_status": status,
                "lead_family": "qwen",
                "lead_adjusted_deviation": 15.0,
                "lead_ci_low": 11.0,
                "lead_ci_high": 19.0,
                "q_value": 0.002,
                "reason": f"{challenge_id} {status}",
                "changed_family": "llama" if status == "fixed" else None,
                "changed_family_effect_before": -20.5 if status == "fixed" else None,
                "changed_family_effect_after": 2.8 if status == "fixed" else None,
                "platform_fairness_score": 0.6,
            }
        )
    return pd.DataFrame(rows)


DATE_COLUMNS = {"window_start", "window_end", "week_start"}


def write_marts(database: Path, marts: dict[str, pd.DataFrame]) -> None:
    """Write DataFrames as tables of schema main (date columns as DATE)."""
    with duckdb.connect(str(database)) as connection:
        for name, frame in marts.items():
            connection.register("frame", frame)
            columns = ", ".join(
                f'cast("{column}" as date) as "{column}"'
                if column in DATE_COLUMNS
                else f'"{column}"'
                for column in frame.columns
            )
            connection.execute(
                f"create or replace table main.{name} as select {columns} from frame"
            )
            connection.unregister("frame")


def _detector_marts() -> dict[str, pd.DataFrame]:
    """One finding per detector (with the columns the report shows)."""
    return {
        "fct_challenge_contamination": pd.DataFrame(
            [
                {
                    "challenge_id": "ch-a",
                    "best_document_id": "doc-1",
                    "best_file_path": "src/a.py",
                    "similarity": 0.93,
                    "containment": 0.97,
                    "flag_rule": "similarity_and_containment",
                    "match_level": "raw",
                    "is_flagged": True,
                }
            ]
        ),
        "fct_challenge_instance_overlap": pd.DataFrame(
            [
                {
                    "challenge_a": "ch-a",
                    "challenge_b": "ch-b",
                    "similarity": 0.31,
                    "containment": 0.95,
                    "contained_file_path": "src/main.py",
                    "is_same_template": True,
                }
            ]
        ),
        "fct_test_case_bias": pd.DataFrame(
            [
                {
                    "test_case_id": "ch-a-tc1",
                    "lead_family": "qwen",
                    "lead_d_dif": -2.5,
                    "gcmh_q_value": 1e-5,
                    "reason": "family qwen passes it <less> often",
                    "is_review_recommended": True,
                }
            ]
        ),
        "fct_test_code_lint": pd.DataFrame(
            [
                {
                    "test_case_id": "ch-a-tc2",
                    "first_finding_line": 5,
                    "first_finding_category": "exact_output_format",
                    "first_finding_snippet": "assert total() == '<b>$1.00</b>'",
                    "first_finding_rewrite": "parse the amount and compare numbers",
                    "finding_count": 2,
                },
                {
                    "test_case_id": "ch-a-tc3",
                    "first_finding_line": None,
                    "first_finding_category": None,
                    "first_finding_snippet": None,
                    "first_finding_rewrite": None,
                    "finding_count": 0,
                },
            ]
        ),
        "fct_rubric_item_bias": pd.DataFrame(
            [
                {
                    "rubric_item_id": "ch-b-r1",
                    "description": "Uses functional patterns",
                    "lead_family": "llama",
                    "lead_d_dif": 3.1,
                    "reason": "style, not result",
                    "is_flagged": True,
                }
            ]
        ),
        "fct_experiment_results": pd.DataFrame(
            [
                {
                    "experiment_id": "exp-1",
                    "verdict": "success",
                    "variance_reduction": 0.8,
                    "mean_change": -1.0,
                    "reason": "every criterion passes",
                }
            ]
        ),
        "fct_challenge_irt": pd.DataFrame(
            [
                {
                    "challenge_id": c,
                    "discrimination": d,
                    "difficulty": 0.1,
                    "pass_rate": 0.5,
                    "fit_status": "ok",
                }
                for c, d in (("ch-a", 0.4), ("ch-b", 0.9))
            ]
        ),
        "fct_api_memorization": pd.DataFrame(
            [
                {
                    "tag": "api:stripe",
                    "tagged_challenges": 6,
                    "slope_difference": 4.3,
                    "ci_low": 3.8,
                    "q_value": 1e-9,
                    "is_flagged": True,
                }
            ]
        ),
        "fct_approach_bias": pd.DataFrame(
            [
                {
                    "challenge_id": "ch-c",
                    "approach_a": "app-router",
                    "approach_b": "pages-router",
                    "stratified_gap": 14.2,
                    "q_value": 1e-6,
                    "is_flagged": True,
                }
            ]
        ),
        report.GATE_RESULTS: pd.DataFrame(
            [
                {
                    "suite_name": "challenge_verdicts_not_flagged",
                    "success": False,
                    "failing_rows": 2,
                    "severity": "warn",
                    "failure_message": "ch-a flagged",
                },
                {
                    "suite_name": "family_deviation_within_threshold",
                    "success": True,
                    "failing_rows": 0,
                    "severity": "warn",
                    "failure_message": None,
                },
                {  # a suite's second expectation: still one suite
                    "suite_name": "family_deviation_within_threshold",
                    "success": True,
                    "failing_rows": 0,
                    "severity": "warn",
                    "failure_message": None,
                },
            ]
        ),
        report.SOURCE_COUNTS: pd.DataFrame(
            [{"source_table": "attempts", "raw_rows": 1002, "clean_rows": 1000, "rejected_rows": 2}]
        ),
        report.REJECTED_ROWS: pd.DataFrame(
            [{"source_table": "attempts", "rejection_reason": r} for r in ("a", "b")]
        ),
    }


def synthetic_marts() -> dict[str, pd.DataFrame]:
    """Every mart the report reads, with the contracted columns and a known content."""
    rng = np.random.default_rng(20260401)
    return {
        report.VERDICTS: _verdicts(),
        report.EFFECTS: _effects(),
        report.COMBINATION_DIFFICULTY: _combinations(rng),
        report.PLATFORM_SCORE: _platform_scores(),
        report.VERDICT_HISTORY: _history(),
        report.REVIEW_QUEUE: _review_queue(),
        report.MONTHLY_REPORT: _monthly(),
        report.ATTEMPTS_NEEDED: _attempts_needed(),
        "fct_leaderboard": _leaderboard(),
        **_detector_marts(),
    }


def _leaderboard() -> pd.DataFrame:
    """Three ranked agents: the bias-adjusted leaderboard swaps the first two, beyond
    chance for one of them; a fourth agent below the minimums is not ranked."""
    rows = []
    for agent, family, rank, adjusted, beyond in (
        ("agent-a", "gpt", 1, 2, True),
        ("agent-b", "llama", 2, 1, False),
        ("agent-c", "qwen", 3, 3, False),
        ("agent-d", "qwen", None, None, None),
    ):
        ranked = rank is not None
        change = adjusted - rank if ranked else None
        rows.append(
            {
                "agent_id": agent,
                "model_id": f"{family}-m1",
                "model_family": family,
                "leaderboard_score": "challenge_mean",
                "challenges": 12 if ranked else 2,
                "score": 70.0 - 5 * rank if ranked else None,
                "rank": rank,
                "rank_ci_low": rank,
                "rank_ci_high": rank + 1 if ranked else None,
                "interval_level": 0.95,
                "rank_upper_bound": rank,
                "score_without_flagged": 70.0 - 5 * adjusted if ranked else None,
                "rank_without_flagged": adjusted,
                "rank_change_without_flagged": change,
                "change_without_flagged_ci_low": min(change, 0) if ranked else None,
                "change_without_flagged_ci_high": max(change, 0) if ranked else None,
                "is_change_without_flagged_beyond_chance": beyond,
                "score_bias_adjusted": 70.0 - 5 * adjusted if ranked else None,
                "rank_bias_adjusted": adjusted,
                "rank_change_bias_adjusted": change,
                "change_bias_adjusted_ci_low": change
                if beyond
                else (min(change, 0) if ranked else None),
                "change_bias_adjusted_ci_high": max(change, 0) if ranked else None,
                "is_change_bias_adjusted_beyond_chance": beyond,
                "is_moved_by_bias": change != 0 if ranked else None,
                "status": "ok" if ranked else "not_ranked",
                "reason": None if ranked else "fewer challenges than leaderboard_min_challenges",
            }
        )
    return pd.DataFrame(rows)


def _attempts_needed() -> pd.DataFrame:
    """One undecided challenge (two families) all-time, and the same in one window."""
    rows = []
    for window in ("all", "2026-05-01"):
        for family, extra in (("qwen", 40), ("llama", None)):
            rows.append(
                {
                    "verdict_window": window,
                    "challenge_id": "ch-thin",
                    "eligibility": "insufficient_evidence",
                    "model_family": family,
                    "additional_family_attempts": extra,
                    "challenge_additional_attempts": 150,
                    "challenge_plan_family_attempts": 60,
                    "challenge_plan_reason": None,
                    "recommendation": (
                        f"collect about {extra} more scored attempts from family {family}"
                        if extra
                        else f"family {family} alone cannot settle it: collect about 35 more"
                        " from it as part of the challenge plan"
                    ),
                }
            )
    return pd.DataFrame(rows)


SCREENSHOTS = Path(__file__).resolve().parents[1] / "target" / "report_screenshots"
FIRST_SCREEN = 900  # px: the height of a 1280 x 900 viewport
FIRST_SCREEN_BOXES = ("[data-verdict-counts]", 'table[data-table="top-actions"]')
DETECTOR_SECTIONS = (
    "contamination",
    "instance-overlap",
    "test-case-dif",
    "test-code-lint",
    "rubric-dif",
    "experiments",
    "irt",
    "other-detectors-api",
    "other-detectors-approach",
    "gate",
    "rejected-rows",
)


def save_screenshots(page, name: str) -> None:
    """Keep the first screen and the full page for a person to look at."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    (SCREENSHOTS / f"{name}_first_screen.png").write_bytes(page.first_screen)
    (SCREENSHOTS / f"{name}_full_page.png").write_bytes(page.screenshot)


@pytest.fixture(scope="module")
def full_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    work = tmp_path_factory.mktemp("report")
    database = work / "marts.duckdb"
    write_marts(database, synthetic_marts())
    out = work / "out" / "fairness_report.html"
    assert report.main([str(database), "--out", str(out)]) == 0
    return out, out.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def full_page(full_report: tuple[Path, str]):
    page = render_offline(full_report[0], boxes=FIRST_SCREEN_BOXES)
    save_screenshots(page, "synthetic")
    return page


def test_first_screen_answers_what_is_biased_and_what_to_do(full_page) -> None:
    """Within the first 1280 x 900 viewport: the verdict counts and the top review items."""
    for selector in FIRST_SCREEN_BOXES:
        box = full_page.boxes[selector]
        assert box["y"] + box["height"] <= FIRST_SCREEN, (selector, box)
    first = full_page.first_screen_text
    assert re.search(r"2\s*flagged", first) and re.search(r"1\s*pass", first), first
    assert "2 of 4 challenges are biased" in first
    assert "test case ch-a-tc1 functions differently by family" in first  # top item
    assert "newer models memorised api:stripe" in first
    assert first.index("ch-a-tc1") < first.index("api:stripe")  # priority order
    assert "1 of 2 suites with warnings (severity warn)" in first  # suites, not expectations
    assert "old week cause" not in full_page.text
    colours, ink = screenshot_colours(full_page.first_screen)
    assert colours > 20 and ink > 0.05


def test_every_section_is_there_in_reading_order(full_page) -> None:
    sections = full_page.sections
    assert sections[:3] == ["answer", "adjusted-effects", "review-queue"]
    assert set(DETECTOR_SECTIONS) <= set(sections)
    assert {"combination-difficulty", "fairness-trend", "verdict-history", "monthly-report"} <= (
        set(sections)
    )
    assert "attempts-needed" in sections
    for key in (
        "contamination",
        "test-case-dif",
        "test-code-lint",
        "rubric-dif",
        "experiments",
        "gate",
    ):
        assert full_page.tables[key] >= 1, key


def test_every_plot_renders_offline(full_page) -> None:
    """Every expected plot is drawn with a size (folded ones are in the page), nothing is
    fetched; the forest plot draws what the verdict judged."""
    assert full_page.requests == []
    assert full_page.console_errors == []
    assert full_page.section_errors == []
    assert full_page.missing_marts == []
    found = sorted(
        (plot["kind"], plot["challenge_id"] or plot["template_id"] or "")
        for plot in full_page.plots
    )
    expected = sorted(
        [("adjusted-effects-forest", ""), ("fairness-score-trend", ""), ("verdict-history", "")]
        + [("leaderboard-slope", "")]
        + [("combination-heatmap", template_id) for template_id in TEMPLATES]
    )
    assert found == expected
    for plot in full_page.plots:
        assert plot["svg_shapes"] > 10, plot
        if plot["visible"]:
            assert plot["width"] > 100 and plot["height"] > 100, plot
            assert plot["svg_width"] > 100 and plot["svg_height"] > 100, plot
    visible = {
        p["template_id"]
        for p in full_page.plots
        if p["kind"] == "combination-heatmap" and p["visible"]
    }
    assert visible == {"tpl-2d"}  # the template with a flagged combination is open


def test_forest_plot_rows_are_the_flagged_and_uncertain_effects() -> None:
    rows = report.effect_rows(_effects(), _verdicts())
    assert sorted(zip(rows.challenge_id, rows.model_family, strict=True)) == [
        ("ch-a", "qwen"),
        ("ch-b", "llama"),
        ("ch-d", "gemini"),
    ]
    assert list(rows.is_flagged) == [True, False, True]  # sorted by effect: -18.2, 9, 21.5
    assert report._family_threshold(_verdicts()) == 10.0


def test_tables_and_numbers(full_page) -> None:
    """One queue item per cause in priority order; the fixed item names its family with its
    before and after effects; the headline the latest window's score."""
    assert full_page.tables["review-queue"] == 2
    assert full_page.tables["top-actions"] == 2
    assert full_page.tables["monthly-report"] == 4
    text = full_page.text
    assert "Platform fairness score 75.0 %" in text  # 9 of 12 eligible pass in April
    assert "(change +15.0 points)" in text  # March: 6 of 10
    assert "fix tests" in text and "rewrite challenge" in text
    assert "llama: -20.5 -> +2.8" in text  # the fix names llama, not the lead family
    assert "1 drift window(s), 1 fix(es)" in text
    assert "+2 more" in text  # the API's six challenges fold after four


def test_page_is_short_and_identifiers_never_break(
    full_report: tuple[Path, str], full_page
) -> None:
    _, text = full_report
    # 6000 px until the leaderboard and test-code lint sections came (6126 px with both)
    assert full_page.height < 6400
    assert "overflow-wrap: anywhere" not in text
    assert "word-break: keep-all" in text
    assert '<code class="id">ch-a-tc1</code>' in text


def test_screenshot_is_not_blank(full_page) -> None:
    colours, ink = screenshot_colours(full_page.screenshot)
    assert colours > 50
    assert ink > 0.05


def test_no_network_references(full_report: tuple[Path, str]) -> None:
    """No src/href/url()/@import to a network address, no scripts, style sheets or fonts to
    fetch; and no http(s) address anywhere (the SVG namespaces and DTDs are stripped)."""
    _, text = full_report
    assert external_references(text) == []
    assert markup_resource_references(text) == []
    assert re.search(r"https?://", text) is None
    assert "<script" not in text.lower()
    assert "<link" not in text.lower()
    assert "@font-face" not in text.lower()


def test_html_is_escaped(full_report: tuple[Path, str]) -> None:
    """Text from the marts is escaped, never interpreted as markup."""
    _, text = full_report
    assert "&lt;points&gt;" in text and "<points>" not in text
    assert "&lt;less&gt;" in text and "<less>" not in text
    assert "&lt;b&gt;$1.00&lt;/b&gt;" in text and "<b>$1.00</b>" not in text  # test code


def test_external_reference_detector_catches_resources() -> None:
    """The checker used above does find network resources (so a pass means something)."""
    assert external_references('<img src="https://cdn.example/a.png">')
    assert external_references("<link href='//fonts.example/css'>")
    assert external_references("body { background: url( 'http://x/y.png') }")
    assert external_references('@import "https://x/y.css";')
    assert external_references('<a href="#flagged-challenges">') == []
    assert markup_resource_references('<script src="https://cdn.example/x.js"></script>')
    assert markup_resource_references("<style>@font-face {src: url(//f.example/a.woff)}</style>")
    assert markup_resource_references('<svg><image href="http://x/y.png"/></svg>')
    assert markup_resource_references('<script>var a = "<img src=//x>";</script>') == []


@pytest.mark.parametrize(
    "absent",
    [
        (report.REVIEW_QUEUE,),
        (report.VERDICT_HISTORY, report.PLATFORM_SCORE, report.MONTHLY_REPORT),
        (report.EFFECTS, "fct_test_case_bias", report.GATE_RESULTS),
    ],
)
def test_absent_marts_show_a_notice_and_exit_1(
    tmp_path: Path, absent: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    """A mart that was not built gives a visible notice naming it; the rest still renders;
    the command says which marts are missing and exits 1."""
    marts = {name: frame for name, frame in synthetic_marts().items() if name not in absent}
    database = tmp_path / "partial.duckdb"
    write_marts(database, marts)
    text = report.render_report(database)
    for mart in absent:
        assert f'data-missing-mart="{mart}"' in text
        assert f"Not available: {mart} was not built." in text
    for mart in set(synthetic_marts()) - set(absent):
        assert f'data-missing-mart="{mart}"' not in text
    assert "data-section-error" not in text
    assert text.count('data-plot="combination-heatmap"') == len(TEMPLATES)
    out = tmp_path / "r.html"
    assert report.main([str(database), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert out.exists() and all(mart in err for mart in absent)


def test_a_mart_with_unexpected_columns_shows_the_error(tmp_path: Path) -> None:
    """A mart built with other columns than the contract: that section shows the error,
    the report is still written."""
    marts = synthetic_marts()
    marts[report.REVIEW_QUEUE] = marts[report.REVIEW_QUEUE].drop(columns=["priority"])
    database = tmp_path / "renamed.duckdb"
    write_marts(database, marts)
    text = report.render_report(database)
    assert 'data-section-error="review-queue"' in text
    assert text.count('data-plot="adjusted-effects-forest"') == 1


def test_empty_marts_say_so(tmp_path: Path) -> None:
    """Marts that exist but have no rows: plain sentences, no plots, no errors."""
    database = tmp_path / "empty.duckdb"
    write_marts(database, {name: frame.iloc[0:0] for name, frame in synthetic_marts().items()})
    text = report.render_report(database)
    assert "data-plot=" not in text
    assert "data-section-error" not in text
    assert "No family effect is flagged or uncertain." in text
    assert "the review queue is empty" in text
    assert "No test case functions differently by family." in text


def test_attempts_needed_section_gives_each_undecided_challenge_its_plan(full_page) -> None:
    text = full_page.text
    assert "collect about 40 more scored attempts from family qwen" in text
    assert "about 150 more in all (each family to about 60)" in text
    assert "2 more rows give the same plan per history window" in text


def test_missing_database_exits_2(tmp_path: Path) -> None:
    assert report.main([str(tmp_path / "nope.duckdb"), "--out", str(tmp_path / "r.html")]) == 2


combination_values = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=6
)


@given(
    st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=3, unique=True).flatmap(
        lambda keys: st.lists(
            st.fixed_dictionaries({key: combination_values for key in keys}),
            min_size=1,
            max_size=12,
            unique_by=lambda combo: tuple(sorted(combo.items())),
        )
    )
)
def test_heatmap_layout_places_every_combination_once(combinations: list[dict[str, str]]) -> None:
    """Each combination gets its own cell; a 2-D grid exactly when there are two variables,
    and the cell's row and column labels are that combination's values."""
    rows, columns, cells, row_name, column_name = report.heatmap_layout(combinations)
    assert len(set(cells)) == len(combinations)
    assert all(0 <= r < len(rows) and 0 <= c < len(columns) for r, c in cells)
    keys = sorted(combinations[0])
    if len(keys) == 2:
        assert (row_name, column_name) == (keys[0], keys[1])
        for combination, (r, c) in zip(combinations, cells, strict=True):
            assert (rows[r], columns[c]) == (combination[keys[0]], combination[keys[1]])
    else:
        assert columns == [""] and len(rows) == len(combinations)
        for combination, (r, _) in zip(combinations, cells, strict=True):
            assert rows[r] == ", ".join(f"{k}={v}" for k, v in sorted(combination.items()))


def test_parse_combination_reads_json_objects_only() -> None:
    assert report.parse_combination('{"b":1,"a":"x"}') == {"b": "1", "a": "x"}
    assert report.parse_combination("[1, 2]") == {"combination": "[1, 2]"}
    assert report.parse_combination("not json") == {"combination": "not json"}


# ----------------------------------------------------------------------------------------
# End to end: dbt build of a small demo platform -> report -> Chromium


@pytest.mark.dbt
def test_report_of_a_built_demo_platform(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every section renders from the built marts: the first screen answers, the forest plot
    shows the planted biases, every template has a heatmap."""
    build = small_platform_build(tmp_path_factory)
    database: Path = build["database"]
    out = build["work"] / "fairness_report.html"
    assert report.main([str(database), "--out", str(out)]) == 0
    page = render_offline(out, boxes=FIRST_SCREEN_BOXES)
    save_screenshots(page, "built_platform")
    assert page.requests == []
    assert page.console_errors == []
    assert page.section_errors == []
    assert page.missing_marts == []
    with duckdb.connect(str(database), read_only=True) as connection:
        flagged = {
            row[0]
            for row in connection.sql(
                "select challenge_id from fct_challenge_verdicts where verdict = 'flagged'"
            ).fetchall()
        }
        templates = {
            row[0]
            for row in connection.sql(
                "select distinct template_id from fct_combination_difficulty"
            ).fetchall()
        }
        [(queue_rows,)] = connection.sql(
            f"select count(*) from {report.REVIEW_QUEUE} where is_latest_week"
        ).fetchall()
        [(monthly_rows,)] = connection.sql(
            f"select count(*) from {report.MONTHLY_REPORT}"
        ).fetchall()
    planted = {challenge_id for challenge_id, _, _ in build["planted_biases"]}
    assert flagged == planted  # the fixture's known answer
    plots = page.plots
    assert {p["template_id"] for p in plots if p["kind"] == "combination-heatmap"} == templates
    assert len(templates) == build["templates"]
    kinds = {p["kind"] for p in plots}
    assert {"adjusted-effects-forest", "fairness-score-trend"} <= kinds
    for selector in FIRST_SCREEN_BOXES:
        box = page.boxes[selector]
        assert box["y"] + box["height"] <= FIRST_SCREEN, (selector, box)
    assert f"{len(flagged)}\nflagged" in page.first_screen_text or re.search(
        rf"{len(flagged)}\s*flagged", page.first_screen_text
    )
    assert set(DETECTOR_SECTIONS) <= set(page.sections)
    if monthly_rows:
        assert "verdict-history" in kinds
        assert "monthly-report" in page.tables
    else:
        assert "No challenge was flagged in any window." in page.text
        assert "No challenge was flagged or fixed" in page.text
    assert page.tables["review-queue"] == queue_rows > 0
    colours, ink = screenshot_colours(page.screenshot)
    assert colours > 50 and ink > 0.05
