"""Rubric-item DIF and the style-wording lint end to end (dbt build on fixtures).

Fixture (tests/audit_fixtures.py, the demo's audit plants on a 12-challenge platform):
P(earn) = sigmoid((score - difficulty) / 8) for every rubric item; the style-worded item
ch-s05-r4 ("Uses functional programming patterns") is earned by family llama at log-odds
+2.5 at equal score; ch-s05-r2 ("No side effects in core logic") is fair. Bad raw rows of
every kind are appended to rubric_items and rubric_scores. The statistics are compared with
the independent loop implementations of tests/test_test_case_bias.py and with scipy.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import audit_fixtures
import duckdb
import numpy as np
import pandas as pd
import pytest
from challenge_fairness.gate import validate_suite
from conftest import read_table, run_dbt
from scipy import stats
from test_test_case_bias import reference_gcmh, reference_purified_dif

pytestmark = pytest.mark.dbt
BANDS = 10
MIN_RESULTS = 10

# (table, raw row, expected rejection reason); rubric_scores.points is made VARCHAR to
# carry a non-numeric value.
BAD_ITEMS = [
    ((None, "ch-s01", "no id", 5.0), "null_rubric_item_id"),
    (
        ("ch-s01-r1", "ch-s01", "Handles invalid input with a clear error", 10.0),
        "duplicate_rubric_item_id",
    ),
    (("bad-conflict", "ch-s01", "a", 5.0), "conflicting_rubric_item_id"),
    (("bad-conflict", "ch-s01", "b", 5.0), "conflicting_rubric_item_id"),
    (("bad-no-challenge", None, "x", 5.0), "null_challenge_id"),
    (("bad-unknown", "ch-zz", "x", 5.0), "unknown_challenge_id"),
    (("bad-null-max", "ch-s01", "x", None), "null_max_points"),
    (("bad-zero-max", "ch-s01", "x", 0.0), "max_points_not_positive"),
    (("bad-inf-max", "ch-s01", "x", float("inf")), "max_points_not_finite"),
]


def bad_scores(
    clean: pd.Series, unscored: dict[str, list[str]]
) -> list[tuple[tuple[Any, ...], str]]:
    """Bad rubric score rows: `clean` is a clean score row to repeat exactly; `unscored`
    lists attempts without rubric scores per challenge (no clean copy to conflict with)."""
    a1 = clean.attempt_id
    a2, a3, a4 = unscored["ch-s02"][0], unscored["ch-s03"][0], unscored["ch-s03"][1]
    return [
        ((None, "ch-s01-r1", "1"), "null_attempt_id"),
        ((a1, None, "1"), "null_rubric_item_id"),
        ((a1, clean.rubric_item_id, str(clean.points)), "duplicate_rubric_score_id"),
        (("att-unknown", "ch-s01-r1", "1"), "unknown_attempt_id"),
        ((a1, "ch-zz-r1", "1"), "unknown_rubric_item_id"),
        ((a2, "ch-s01-r1", "1"), "rubric_item_of_other_challenge"),
        ((a2, "bad-zero-max", "1"), "unknown_rubric_item_id"),  # a rejected item
        ((a2, "ch-s02-r1", None), "null_points"),
        ((a2, "ch-s02-r2", "lots"), "points_not_numeric"),
        ((a2, "ch-s02-r3", "nan"), "points_not_finite"),
        ((a3, "ch-s03-r1", "-1"), "points_negative"),
        ((a4, "ch-s03-r3", "6"), "points_above_max_points"),
    ]


@pytest.fixture(scope="module")
def rubric_build(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    work = tmp_path_factory.mktemp("rubric_audit")
    tables, truth = audit_fixtures.audit_platform(n_attempts=10_000)
    database = work / "rubric.duckdb"
    audit_fixtures.write_platform(tables, database)
    scores = tables["rubric_scores"].to_pandas()
    attempts = tables["attempts"].to_pandas()
    unscored = attempts[attempts.score.isna()].groupby("challenge_id").attempt_id.agg(list)
    clean = scores[scores.rubric_item_id == "ch-s01-r1"].iloc[0]
    score_rows = bad_scores(clean, unscored.to_dict())
    with duckdb.connect(str(database)) as connection:
        connection.execute("alter table raw.rubric_scores alter points type varchar")
        connection.executemany(
            "insert into raw.rubric_items values (?, ?, ?, ?)", [r for r, _ in BAD_ITEMS]
        )
        connection.executemany(
            "insert into raw.rubric_scores values (?, ?, ?)", [r for r, _ in score_rows]
        )
    run = run_dbt(
        ["build", "--indirect-selection", "cautious", "--select", *audit_fixtures.AUDIT_SELECTOR],
        database=database,
        work_dir=work,
    )
    assert run.success, run.output
    expected = [("rubric_items", reason) for _, reason in BAD_ITEMS] + [
        ("rubric_scores", reason) for _, reason in score_rows
    ]
    return {"database": database, "tables": tables, "truth": truth, "expected": expected}


def bias_of(build: dict[str, Any]) -> pd.DataFrame:
    return read_table(build["database"], "select * from main.fct_rubric_item_bias").set_index(
        "rubric_item_id"
    )


def test_the_planted_style_item_is_the_only_one_flagged(rubric_build: dict[str, Any]) -> None:
    bias = bias_of(rubric_build)
    truth = rubric_build["truth"]
    assert bias.index[bias.is_flagged].tolist() == truth["flagged_rubric_items"] == ["ch-s05-r4"]
    row = bias.loc["ch-s05-r4"]
    assert row.description == "Uses functional programming patterns"
    assert row.lead_family == "llama" and row.lead_ets_class == "C"
    # log-odds +2.5 for the focal family is D-DIF = 2.35 x 2.5 = 5.9 on the delta scale
    assert 2.35 * 2.5 - 3 * row.lead_d_dif_se < row.lead_d_dif < 2.35 * 2.5 + 3 * row.lead_d_dif_se
    assert row.gcmh_q_value < 0.05
    assert "family llama earns it more often" in row.reason
    assert row.style_rule_ids == "paradigm_name" and bool(row.has_style_wording)
    assert 'paradigm_name: "functional programming"' in row.style_matches
    fair = bias.loc[truth["fair_paradigm_independent_item"]]
    assert fair.description == "No side effects in core logic"
    assert not fair.is_flagged and not fair.has_style_wording
    assert fair.verdict == "no_large_dif"
    assert set(bias.verdict) == {"review_recommended", "no_large_dif"}
    assert bias.has_style_wording.sum() == 1


def test_dif_equals_the_independent_loop_computation_and_bh(rubric_build: dict[str, Any]) -> None:
    tables = rubric_build["tables"]
    scores = tables["rubric_scores"].to_pandas()
    items = tables["rubric_items"].to_pandas()
    attempts = (
        tables["attempts"]
        .to_pandas()
        .merge(tables["agents"].to_pandas(), on="agent_id")
        .merge(tables["models"].to_pandas(), on="model_id")
    )
    data = scores.merge(items, on="rubric_item_id").merge(attempts, on="attempt_id")
    data = data[data.score.notna()].copy()
    data["band"] = np.minimum(np.floor(data.score * BANDS / 100), BANDS - 1).astype(int)
    data["passes"] = (data.points >= data.max_points).astype(int)  # rubric_earned_share = 1
    data["failures"] = 1 - data.passes
    counts = data.groupby(["rubric_item_id", "model_family", "band"])[["passes", "failures"]].sum()
    counts = counts.reset_index()
    bias = bias_of(rubric_build)
    family_dif = read_table(
        rubric_build["database"],
        "select * from intermediate.int_rubric_item_family_dif where status = 'tested'",
    ).set_index(["rubric_item_id", "model_family"])
    p_values = {}
    compared = 0
    for item_id, cells in counts.groupby("rubric_item_id"):
        passes = cells.pivot_table(
            index="model_family", columns="band", values="passes", fill_value=0
        )
        failures = cells.pivot_table(
            index="model_family", columns="band", values="failures", fill_value=0
        ).reindex_like(passes)
        assert ((passes + failures).sum(axis=1) >= MIN_RESULTS).all()
        statistic, df = reference_gcmh(passes.to_numpy(float), (passes + failures).to_numpy(float))
        assert bias.loc[item_id, "gcmh_statistic"] == pytest.approx(statistic, rel=1e-7)
        assert bias.loc[item_id, "gcmh_df"] == df
        p_values[item_id] = stats.chi2.sf(statistic, df)
        purified = reference_purified_dif(passes.to_numpy(), failures.to_numpy(), 0.05)
        for family, expected in zip(passes.index, purified, strict=True):
            if expected is None:
                continue
            row = family_dif.loc[(item_id, family)]
            assert row.d_dif == pytest.approx(expected["d_dif"], rel=1e-8, abs=1e-12)
            assert row.d_dif_se == pytest.approx(expected["d_dif_se"], rel=1e-8)
            compared += 1
    assert compared == len(family_dif) == 37 * 6
    p = pd.Series(p_values)
    q = pd.Series(stats.false_discovery_control(p.to_numpy()), index=p.index)
    for item_id in p.index:
        assert bias.loc[item_id, "gcmh_q_value"] == pytest.approx(q[item_id], rel=1e-7)
    assert (bias.gcmh_q_value >= bias.gcmh_p_value - 1e-12).all()


def test_bad_rows_are_rejected_with_their_reasons_and_conserved(
    rubric_build: dict[str, Any],
) -> None:
    rejected = read_table(
        rubric_build["database"],
        "select source_table, rejection_reason from main.fct_rejected_rows"
        " where source_table in ('rubric_items', 'rubric_scores')",
    )
    assert Counter(map(tuple, rejected.to_numpy().tolist())) == Counter(rubric_build["expected"])
    counts = read_table(
        rubric_build["database"],
        "select * from main.fct_source_row_counts"
        " where source_table in ('rubric_items', 'rubric_scores') order by source_table",
    )
    tables = rubric_build["tables"]
    assert counts.is_conserved.all()
    assert counts.clean_rows.tolist() == [
        tables["rubric_items"].num_rows,
        tables["rubric_scores"].num_rows,
    ]


def test_rubric_gate_suite_fails_naming_the_flagged_item(rubric_build: dict[str, Any]) -> None:
    bias = bias_of(rubric_build).reset_index()
    failed = validate_suite(
        "rubric_items_without_large_dif", bias, {"dif_large_d_dif": 1.5}, "warn"
    )
    assert len(failed) == 1 and not failed[0]["success"] and failed[0]["failing_rows"] == 1
    message = failed[0]["failure_message"]
    assert "rubric item 'ch-s05-r4'" in message and "family llama" in message
    assert "Uses functional programming patterns" in message and "|D-DIF| >= 1.5" in message
    passed = validate_suite(
        "rubric_items_without_large_dif", bias[~bias.is_flagged], {"dif_large_d_dif": 1.5}, "warn"
    )
    assert passed[0]["success"]


def test_rubric_items_without_scores_are_linted_but_not_tested(tmp_path: Path) -> None:
    tables, _ = audit_fixtures.audit_platform(n_attempts=500)
    database = tmp_path / "items_only.duckdb"
    audit_fixtures.write_platform(tables, database, drop=("rubric_scores",))
    run = run_dbt(
        ["build", "--indirect-selection", "cautious", "--select", *audit_fixtures.AUDIT_SELECTOR],
        database=database,
        work_dir=tmp_path,
    )
    assert run.success, run.output
    assert read_table(database, "select count(*) as n from main.fct_rubric_item_bias").n[0] == 0
    lint = read_table(database, "select * from main.fct_rubric_style_lint")
    assert lint[
        ["rubric_item_id", "rule_id", "matched_text", "match_position"]
    ].values.tolist() == [["ch-s05-r4", "paradigm_name", "functional programming", 6]]
    coverage = read_table(
        database,
        "select * exclude (mart) from main.fct_detector_coverage"
        " where detector = 'rubric_item_bias'"
        " union all select * exclude (mart) from main.fct_detector_coverage"
        " where detector = 'rubric_style_lint'",
    ).set_index("detector")
    assert coverage.loc["rubric_item_bias", "missing_inputs"] == (
        "optional source table absent: rubric_scores"
    )
    assert bool(coverage.loc["rubric_style_lint", "is_available"])
    assert coverage.loc["rubric_style_lint", "rows_analysed"] == len(tables["rubric_items"])
