"""Briefing-style sensitivity: the family x style interaction F test against an OLS on the
attempts and scipy's one-way ANOVA, degenerate layouts, the UDF, the GX suite, and
fct_briefing_style_sensitivity end to end."""

from __future__ import annotations

import json

import duckdb
import numpy as np
import pandas as pd
import pytest
from challenge_fairness.detectors import briefing_style
from challenge_fairness.gate import validate_suite
from challenge_fairness.plugin import Plugin
from conftest import read_table
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats

RTOL = 1e-7


def cell_statistics(families: np.ndarray, styles: np.ndarray, scores: np.ndarray) -> pd.DataFrame:
    """Count, mean and within-cell sum of squares per (family, style)."""
    frame = pd.DataFrame({"family": families, "style": styles, "score": scores})
    grouped = frame.groupby(["family", "style"]).score
    cells = grouped.agg(["size", "mean"]).reset_index()
    cells["ss"] = grouped.apply(lambda x: float(((x - x.mean()) ** 2).sum())).to_numpy()
    return cells


def interaction_f_by_ols(
    families: np.ndarray, styles: np.ndarray, scores: np.ndarray
) -> tuple[float, int, int, float]:
    """The interaction F test as two attempt-level least-squares fits with dummy coding."""
    family_levels, family_index = np.unique(families, return_inverse=True)
    style_levels, style_index = np.unique(styles, return_inverse=True)
    n = scores.size
    main = [np.ones(n)]
    main += [(family_index == f).astype(float) for f in range(1, family_levels.size)]
    main += [(style_index == s).astype(float) for s in range(1, style_levels.size)]
    interaction = [
        main[f] * main[family_levels.size - 1 + s]
        for f in range(1, family_levels.size)
        for s in range(1, style_levels.size)
    ]
    additive = np.column_stack(main)
    full = np.column_stack(main + interaction)

    def rss_and_rank(design: np.ndarray) -> tuple[float, int]:
        coefficients, _, rank, _ = np.linalg.lstsq(design, scores, rcond=None)
        return float(np.sum((scores - design @ coefficients) ** 2)), int(rank)

    rss_add, rank_add = rss_and_rank(additive)
    rss_full, rank_full = rss_and_rank(full)
    df_num, df_den = rank_full - rank_add, n - rank_full
    f = ((rss_add - rss_full) / df_num) / (rss_full / df_den)
    return f, df_num, df_den, float(scipy_stats.f.sf(f, df_num, df_den))


@st.composite
def complete_layouts(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random unbalanced family x style layouts with every cell present."""
    n_families = draw(st.integers(2, 4))
    n_styles = draw(st.integers(2, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 15, size=(n_families, n_styles))
    sizes[0, 0] = max(sizes[0, 0], 2)  # at least one residual degree of freedom
    families, styles = [], []
    for f in range(n_families):
        for s in range(n_styles):
            families += [f"family-{f}"] * sizes[f, s]
            styles += [f"style-{s}"] * sizes[f, s]
    effects = rng.normal(0, 5, size=(n_families, n_styles))
    index = [(int(f[-1]), int(s[-1])) for f, s in zip(families, styles, strict=True)]
    scores = np.rint(
        np.array([50 + effects[i] for i in index]) + rng.normal(0, 12, size=len(index))
    )
    if draw(st.booleans()):
        scores = np.clip(scores, 40, 60)  # many ties
    return np.array(families), np.array(styles), scores


@given(complete_layouts())
@settings(max_examples=150, deadline=None)
def test_interaction_test_equals_attempt_level_ols_with_dummies(
    layout: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    families, styles, scores = layout
    cells = cell_statistics(families, styles, scores)
    result = briefing_style.style_interaction_test(
        pd.factorize(cells["family"])[0],
        pd.factorize(cells["style"])[0],
        cells["size"],
        cells["mean"],
        cells["ss"],
    )
    if cells["ss"].sum() == 0:
        assert result.status == "not_testable"
        return
    f, df_num, df_den, p = interaction_f_by_ols(families, styles, scores)
    assert result.status == "ok"
    assert (result.df_numerator, result.df_denominator) == (df_num, df_den)
    assert result.f_statistic == pytest.approx(f, rel=RTOL, abs=1e-9)
    assert result.p_value == pytest.approx(p, rel=RTOL, abs=1e-12)


@given(
    st.lists(
        st.lists(st.integers(0, 100).map(float), min_size=1, max_size=30),
        min_size=2,
        max_size=6,
    )
)
@settings(max_examples=150, deadline=None)
def test_nested_f_test_with_an_intercept_only_model_is_one_way_anova(
    groups: list[list[float]],
) -> None:
    n = np.array([len(g) for g in groups], dtype=float)
    mean = np.array([np.mean(g) for g in groups])
    ss = np.array([np.sum((np.array(g) - np.mean(g)) ** 2) for g in groups])
    result = briefing_style.nested_f_test(n, mean, ss, np.ones((len(groups), 1)))
    if n.sum() - len(groups) < 1 or ss.sum() == 0:
        assert result.status == "not_testable" and result.p_value is None
        return
    expected = scipy_stats.f_oneway(*[np.array(g) for g in groups])
    assert result.status == "ok"
    assert result.f_statistic == pytest.approx(expected.statistic, rel=RTOL, abs=1e-9)
    # Equal group means: scipy's F can round a hair below 0 and its p is then NaN; F = 0
    # has p = 1 exactly.
    expected_p = (
        1.0 if np.isnan(expected.pvalue) and abs(expected.statistic) < 1e-9 else (expected.pvalue)
    )
    assert result.p_value == pytest.approx(expected_p, rel=RTOL, abs=1e-12)


def test_a_style_shift_for_everyone_is_not_an_interaction() -> None:
    """Exactly additive cell means: F = 0, p = 1."""
    n = np.array([10, 12, 8, 9])
    mean = np.array([50.0, 44.0, 60.0, 54.0])  # style 1 is 6 points harder for both families
    result = briefing_style.style_interaction_test([0, 0, 1, 1], [0, 1, 0, 1], n, mean, [90.0] * 4)
    assert result.f_statistic == pytest.approx(0.0, abs=1e-12)
    assert result.p_value == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("families", "styles", "n", "ss", "reason"),
    [
        ([0, 0], [0, 1], [5, 5], [10.0, 10.0], "fewer than two families"),
        ([0, 1], [0, 0], [5, 5], [10.0, 10.0], "fewer than two styles"),
        ([0, 0, 1, 1], [0, 1, 0, 1], [5, 5, 5, 5], [0.0] * 4, "no variation within cells"),
        # rounding only: cells of one score each, pooled from challenges whose summed
        # means were an ulp off (as SQL computes them from counts)
        ([0, 0, 1, 1], [0, 1, 0, 1], [15] * 4, [2e-28] * 4, "no variation within cells"),
        ([0, 0, 1, 1], [0, 1, 0, 1], [1, 1, 1, 1], [0.0] * 4, "no cell has two or more"),
        ([], [], [], [], "fewer than two families"),
    ],
)
def test_degenerate_layouts_are_not_testable(
    families: list[int], styles: list[int], n: list[int], ss: list[float], reason: str
) -> None:
    means = np.linspace(40, 60, len(n))
    result = briefing_style.style_interaction_test(families, styles, n, means, ss)
    assert result.status == "not_testable"
    assert result.f_statistic is None and result.p_value is None
    assert reason in (result.reason or "")


def test_the_udf_matches_the_pure_function_and_passes_nulls() -> None:
    connection = duckdb.connect()
    Plugin(name="challenge_fairness", plugin_config={}).configure_connection(connection)
    rows = connection.sql(
        """
        select cf_style_interaction_test(
            ['a', 'a', 'b', 'b'], ['md', 'pl', 'md', 'pl'], [10, 12, 8, 9]::bigint[],
            [50.0, 44.0, 60.0, 40.0], [900.0, 1000.0, 700.0, 800.0]
        ) as test
        union all
        select cf_style_interaction_test(null, ['x'], [1]::bigint[], [1.0], [0.0])
        """
    ).fetchall()
    expected = briefing_style.style_interaction_test(
        [0, 0, 1, 1],
        [0, 1, 0, 1],
        [10, 12, 8, 9],
        [50.0, 44.0, 60.0, 40.0],
        [900.0, 1000.0, 700.0, 800.0],
    )
    assert rows[0][0]["f_statistic"] == pytest.approx(expected.f_statistic)
    assert rows[0][0]["p_value"] == pytest.approx(expected.p_value)
    assert rows[0][0]["df_interaction"] == 1 and rows[0][0]["df_residual"] == 35
    assert rows[1][0] is None


def sensitivity_rows(flagged: bool) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "template_id": ["tpl-x", "tpl-x", "tpl-y", "tpl-y"],
            "variable_combination": ['{"a":1}', '{"a":1}', "{}", "{}"],
            "briefing_style": ["markdown", "plain", "markdown", "plain"],
            "is_recommended_style": [True, False, False, True],
            "recommended_style": ["markdown", "markdown", "plain", "plain"],
            "most_affected_family": ["llama", "llama", "gpt", "gpt"],
            "max_family_effect_change": [15.2, 15.2, 2.0, 2.0],
            "q_value": [1e-9, 1e-9, 0.8, 0.8],
            "is_flagged": [flagged, flagged, False, False],
        }
    )


def test_gx_suite_passes_fair_contents_and_names_a_flagged_one() -> None:
    thresholds = {"briefing_style_threshold": 10.0}
    name = "briefing_style_sensitivity_within_threshold"
    [fair] = validate_suite(name, sensitivity_rows(False), thresholds, "error")
    assert fair["success"] and fair["failing_rows"] == 0
    [failed] = validate_suite(name, sensitivity_rows(True), thresholds, "error")
    assert not failed["success"] and failed["failing_rows"] == 1
    assert (
        "template 'tpl-x' {\"a\":1}: family 'llama' changes by 15.20 points"
        in (failed["failure_message"])
    )
    assert (
        "threshold of 10 (briefing_style_threshold); recommended style 'markdown'"
        in (failed["failure_message"])
    )


# --- dbt end to end ---------------------------------------------------------------------


def expected_contents(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Independent pandas/numpy computation of the content-level test on the raw tables."""
    challenges = tables["challenges"].copy()
    challenges["variable_combination"] = [
        json.dumps(dict(sorted(json.loads(v).items())), separators=(",", ":"))
        for v in challenges["variables"]
    ]
    attempts = (
        tables["attempts"]
        .dropna(subset=["score"])
        .merge(tables["agents"], on="agent_id")
        .merge(tables["models"], on="model_id")
        .merge(challenges, on="challenge_id")
        .dropna(subset=["briefing_style", "template_id"])
    )
    rows = []
    for (template, combination), group in attempts.groupby(["template_id", "variable_combination"]):
        offered = challenges[
            (challenges.template_id == template) & (challenges.variable_combination == combination)
        ].briefing_style.nunique()
        if offered < 2:
            continue
        counts = group.groupby(["model_family", "briefing_style"]).size().unstack(fill_value=0)
        if counts.columns.size < offered:
            continue  # a style without attempts: no family is in every style
        kept = group[group.model_family.isin(counts.index[(counts >= 10).all(axis=1)])]
        if kept.model_family.nunique() < 2:
            continue
        f, df_num, df_den, p = interaction_f_by_ols(
            kept.model_family.to_numpy(), kept.briefing_style.to_numpy(), kept.score.to_numpy()
        )
        means = kept.groupby(["briefing_style", "model_family"]).score.mean().unstack()
        effects = means.apply(lambda r: r - (r.sum() - r) / (r.size - 1), axis=1)
        change = effects.max() - effects.min()
        rows.append(
            {
                "template_id": template,
                "variable_combination": combination,
                "f_statistic": f,
                "df_interaction": df_num,
                "df_residual": df_den,
                "p_value": p,
                "max_family_effect_change": change.max(),
                "most_affected_family": change.idxmax(),
                "variances": means.var(axis=1, ddof=1).to_dict(),
            }
        )
    frame = pd.DataFrame(rows)
    frame["q_value"] = scipy_stats.false_discovery_control(frame["p_value"], method="bh")
    return frame


@pytest.mark.dbt
def test_planted_style_effects_are_flagged_and_fair_contents_stay_quiet() -> None:
    from f3_platform import build

    built = build("planted")
    mart = read_table(built.database, "select * from main.fct_briefing_style_sensitivity")
    contents = mart.drop_duplicates(["template_id", "variable_combination"]).set_index(
        "variable_combination"
    )
    planted = {'{"database":"postgres","language":"go"}', '{"database":"sqlite","language":"go"}'}
    assert set(contents.index[contents.is_flagged]) == planted
    for combination in planted:
        row = contents.loc[combination]
        assert row.most_affected_family == "llama"
        assert row.max_family_effect_change > 10
        assert row.recommended_style == "markdown"
        plain = mart[
            (mart.variable_combination == combination) & (mart.briefing_style == "plain")
        ].iloc[0]
        assert plain.most_affected_family_effect < -8
        assert "family llama changes by" in row.reason
    assert "tpl-single" not in set(mart.template_id)
    untestable = contents.loc['{"database":"mysql","language":"rust"}']
    assert untestable.status == "not_testable" and untestable.families == 0
    assert "min_family_attempts" in untestable.reason
    three_styles = mart[mart.variable_combination == '{"database":"sqlite","language":"python"}']
    assert sorted(three_styles.briefing_style) == ["html", "markdown", "plain"]
    assert three_styles.is_recommended_style.sum() == 1
    pooled = mart[
        (mart.variable_combination == '{"database":"postgres","language":"python"}')
        & (mart.briefing_style == "markdown")
    ].iloc[0]
    assert pooled.challenges == 2 and pooled.attempts == 900

    expected = expected_contents(built.tables).set_index("variable_combination")
    tested = contents[contents.status == "tested"]
    assert set(tested.index) == set(expected.index)
    for combination, want in expected.iterrows():
        got = tested.loc[combination]
        for column in ("f_statistic", "p_value", "q_value", "max_family_effect_change"):
            assert got[column] == pytest.approx(want[column], rel=1e-7, abs=1e-12), column
        assert (got.df_interaction, got.df_residual) == (want.df_interaction, want.df_residual)
        assert got.most_affected_family == want.most_affected_family
        for style, variance in want.variances.items():
            row = mart[(mart.variable_combination == combination) & (mart.briefing_style == style)]
            assert row.cross_family_variance.iloc[0] == pytest.approx(variance, rel=1e-9)

    [gate] = validate_suite(
        "briefing_style_sensitivity_within_threshold",
        mart,
        {"briefing_style_threshold": 10.0},
        "error",
    )
    assert not gate["success"] and gate["failing_rows"] == 2
    assert gate["failure_message"].count("family 'llama' changes by") == 2

    coverage = read_table(
        built.database,
        "select * exclude (mart) from main.fct_detector_coverage"
        " where detector = 'briefing_style_sensitivity'",
    )
    assert coverage.loc[0, "is_available"] and pd.isna(coverage.loc[0, "missing_inputs"])
    assert coverage.loc[0, "rows_analysed"] > 0


@pytest.mark.dbt
def test_no_content_in_two_styles_builds_an_empty_mart() -> None:
    from f3_platform import build

    built = build("absent")
    mart = read_table(built.database, "select * from main.fct_briefing_style_sensitivity")
    assert mart.empty and "reason" in mart.columns
    coverage = read_table(
        built.database,
        "select * exclude (mart) from main.fct_detector_coverage"
        " where detector = 'briefing_style_sensitivity'",
    )
    assert coverage.to_dict("records") == [
        {
            "detector": "briefing_style_sensitivity",
            "is_available": False,
            "missing_inputs": "no content offered in two briefing styles",
            "rows_analysed": 0,
        }
    ]
