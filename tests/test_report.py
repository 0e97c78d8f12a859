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


def _verdicts() -> pd.DataFrame:
    rows = []
    for challenge_id, verdict, family, effect in (
        ("ch-a", "flagged", "qwen", 21.5),
        ("ch-b", "flagged", "llama", -18.2),
        ("ch-c", "pass", "gpt", 2.0),
        ("ch-d", "insufficient_evidence", "gemini", 9.0),
    ):
        rows.append(
            {
                "challenge_id": challenge_id,
                "template_id": f"tpl-{challenge_id}",
                "verdict": verdict,
                "reason": f"{challenge_id}: family {family} {effect:+.1f} points <test reason>",
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


def _distributions(rng: np.random.Generator) -> pd.DataFrame:
    rows = []
    for challenge_id, lead in (("ch-a", "qwen"), ("ch-b", "llama")):
        for family in ("gpt", "llama", "qwen"):
            shift = 20 if (family == lead and challenge_id == "ch-a") else 0
            shift = -20 if (family == lead and challenge_id == "ch-b") else shift
            scores = np.clip(np.rint(rng.normal(55 + shift, 12, size=90)), 0, 100)
            values, counts = np.unique(scores, return_counts=True)
            for value, count in zip(values, counts, strict=True):
                rows.append(
                    {
                        "challenge_id": challenge_id,
                        "template_id": f"tpl-{challenge_id}",
                        "model_family": family,
                        "score": float(value),
                        "attempts": int(count),
                        "family_attempts": 90,
                        "share_of_family_attempts": count / 90,
                        "is_lead_family": family == lead,
                        "is_flagged_family": family == lead,
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
        "template_id": "tpl-x",
        "detectors": "verdict_family_effects",
        "findings": 1,
        "lead_evidence": "family qwen +21.5 points",
        "verdict": "flagged",
    }
    return pd.DataFrame(
        [
            {
                **base,
                "week_start": pd.Timestamp("2026-03-30"),
                "challenge_id": "ch-old",
                "priority": 1,
                "recommended_action": "fix_rubric",
                "action_reason": "old week",
            },
            {
                **base,
                "week_start": pd.Timestamp("2026-04-06"),
                "challenge_id": "ch-a",
                "priority": 1,
                "recommended_action": "fix_tests",
                "action_reason": "test-case DIF <points> at the tests",
            },
            {
                **base,
                "week_start": pd.Timestamp("2026-04-06"),
                "challenge_id": "ch-b",
                "priority": 2,
                "recommended_action": "fix_briefing",
                "action_reason": "style sensitivity of ch-b",
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


def synthetic_marts() -> dict[str, pd.DataFrame]:
    """Every mart the report reads, with the contracted columns and a known content."""
    rng = np.random.default_rng(20260401)
    return {
        report.VERDICTS: _verdicts(),
        report.SCORE_DISTRIBUTIONS: _distributions(rng),
        report.COMBINATION_DIFFICULTY: _combinations(rng),
        report.PLATFORM_SCORE: _platform_scores(),
        report.VERDICT_HISTORY: _history(),
        report.REVIEW_QUEUE: _review_queue(),
        report.MONTHLY_REPORT: _monthly(),
    }


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
    return render_offline(full_report[0])


def test_every_plot_renders_offline(full_page) -> None:
    """All sections present: every expected plot is drawn with a size, nothing is fetched."""
    assert full_page.requests == []
    assert full_page.console_errors == []
    assert full_page.section_errors == []
    assert full_page.missing_marts == []
    found = sorted(
        (plot["kind"], plot["challenge_id"] or plot["template_id"] or "")
        for plot in full_page.plots
    )
    expected = sorted(
        [("fairness-score-trend", ""), ("verdict-history", "")]
        + [("score-distribution", challenge_id) for challenge_id in FLAGGED]
        + [("combination-heatmap", template_id) for template_id in TEMPLATES]
    )
    assert found == expected
    for plot in full_page.plots:
        assert plot["width"] > 100 and plot["height"] > 100, plot
        assert plot["svg_width"] > 100 and plot["svg_height"] > 100, plot
        assert plot["svg_shapes"] > 10, plot


def test_tables_and_numbers(full_page) -> None:
    """The review queue shows only the latest week, in priority order; the monthly report one
    table per window; the headline the latest window's score."""
    assert full_page.tables == {"review-queue": 2, "monthly-report": 4}
    text = full_page.text
    assert "Platform fairness score 75.0 %" in text  # 9 of 12 eligible pass in April
    assert "(change +15.0 points)" in text  # March: 6 of 10
    assert text.index("test-case DIF <points> at the tests") < text.index(
        "style sensitivity of ch-b"
    )
    assert "old week" not in text
    assert "fix tests" in text
    assert "Lead family qwen: ability-adjusted deviation +21.5 points (95% CI +17.5 to +25.5)" in (
        text
    )
    assert "1 drift window(s), 1 fix(es)" in text
    assert re.search(r"all-time flagged\s*2\b", text), text[:1500]


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
    assert "&lt;test reason&gt;" in text


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
        (report.SCORE_DISTRIBUTIONS,),
        tuple(synthetic_marts()),
    ],
)
def test_absent_marts_show_a_notice(tmp_path: Path, absent: tuple[str, ...]) -> None:
    """A mart that was not built gives a visible notice naming it; the rest still renders."""
    marts = {name: frame for name, frame in synthetic_marts().items() if name not in absent}
    database = tmp_path / "partial.duckdb"
    write_marts(database, marts)
    if not marts:
        duckdb.connect(str(database)).close()
    text = report.render_report(database)
    for mart in absent:
        assert f'data-missing-mart="{mart}"' in text
        assert f"Not available: {mart} was not built." in text
    for mart in set(synthetic_marts()) - set(absent):
        assert f'data-missing-mart="{mart}"' not in text
    assert "data-section-error" not in text
    if report.COMBINATION_DIFFICULTY not in absent:
        assert text.count('data-plot="combination-heatmap"') == len(TEMPLATES)


def test_a_mart_with_unexpected_columns_shows_the_error(tmp_path: Path) -> None:
    """A mart built with other columns than the contract: that section shows the error,
    the report is still written."""
    marts = synthetic_marts()
    marts[report.REVIEW_QUEUE] = marts[report.REVIEW_QUEUE].drop(columns=["priority"])
    database = tmp_path / "renamed.duckdb"
    write_marts(database, marts)
    text = report.render_report(database)
    assert 'data-section-error="review-queue"' in text
    assert text.count('data-plot="score-distribution"') == len(FLAGGED)


def test_empty_marts_say_so(tmp_path: Path) -> None:
    """Marts that exist but have no rows: plain sentences, no plots, no errors."""
    database = tmp_path / "empty.duckdb"
    write_marts(database, {name: frame.iloc[0:0] for name, frame in synthetic_marts().items()})
    text = report.render_report(database)
    assert "data-plot=" not in text
    assert "data-section-error" not in text
    assert "No challenge is flagged." in text
    assert "the review queue is empty" in text


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


@given(
    st.lists(
        st.tuples(st.integers(0, 100), st.integers(1, 50)),
        min_size=1,
        max_size=30,
        unique_by=lambda pair: pair[0],
    )
)
def test_expanded_counts_give_the_raw_quantiles(pairs: list[tuple[int, int]]) -> None:
    """Box plots drawn from (score, count) rows have the quartiles of the raw attempts."""
    raw = np.array([score for score, count in pairs for _ in range(count)], dtype=float)
    expanded = report.expand_counts([p[0] for p in pairs], [p[1] for p in pairs])
    np.testing.assert_allclose(
        np.percentile(expanded, [25, 50, 75]), np.percentile(raw, [25, 50, 75])
    )
    assert expanded.size == raw.size


# ----------------------------------------------------------------------------------------
# End to end: dbt build of a small demo platform -> report -> Chromium


@pytest.mark.dbt
def test_report_of_a_built_demo_platform(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The planted biased challenges get their distribution plots, every template a heatmap;
    the history, score trend, review queue and monthly report render from the built marts."""
    build = small_platform_build(tmp_path_factory)
    database: Path = build["database"]
    out = build["work"] / "fairness_report.html"
    assert report.main([str(database), "--out", str(out)]) == 0
    page = render_offline(out)
    assert page.requests == []
    assert page.console_errors == []
    assert page.section_errors == []
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
        tables = {
            row[0]
            for row in connection.sql(
                "select table_name from information_schema.tables where table_schema = 'main'"
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
    assert {p["challenge_id"] for p in plots if p["kind"] == "score-distribution"} == flagged
    assert {p["template_id"] for p in plots if p["kind"] == "combination-heatmap"} == templates
    assert len(templates) == build["templates"]
    for plot in plots:
        assert plot["svg_width"] > 100 and plot["svg_height"] > 100, plot
    # Every mart the report reads is built, so no section falls back to its notice.
    assert set(report.MARTS_READ) <= tables
    assert page.missing_marts == []
    kinds = {p["kind"] for p in plots}
    assert "fairness-score-trend" in kinds
    # thin monthly windows (20k attempts) may flag nothing: the history section says so
    if monthly_rows:
        assert "verdict-history" in kinds
    else:
        assert "No challenge was flagged in any window." in page.text
    assert page.tables["review-queue"] == queue_rows > 0
    if monthly_rows:
        assert "monthly-report" in page.tables
    else:
        assert "No challenge was flagged or fixed" in page.text
    colours, ink = screenshot_colours(page.screenshot)
    assert colours > 50 and ink > 0.05
