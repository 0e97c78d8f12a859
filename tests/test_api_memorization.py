"""API memorisation: the regression pieces against numpy/scipy, the two-stage estimator
against a two-way fixed-effects regression, the UDFs from SQL, the mart end to end on
planted / fair / absent platforms, and its GX suite."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest
from challenge_fairness.detectors.api_memorization import (
    VARIANCE_BETWEEN,
    VARIANCE_WITHIN,
    mean_of_estimates,
    weighted_slope,
)
from challenge_fairness.gate import validate_suite
from challenge_fairness.plugin import Plugin
from challenge_fairness.stats import STATUS_NOT_COMPUTABLE, STATUS_OK
from conftest import read_table
from cutoff_approach_clustering_fixtures import ABSENT, FAIR, PLANTED, built
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats as scipy_stats

RTOL = 1e-9
finite = st.floats(min_value=-100, max_value=100, allow_nan=False, allow_subnormal=False)


@st.composite
def points(draw: st.DrawFn, integer_weights: bool = False) -> tuple[np.ndarray, ...]:
    n = draw(st.integers(min_value=3, max_value=25))
    x = draw(hnp.arrays(np.float64, n, elements=st.floats(-3, 3, allow_subnormal=False)))
    y = draw(hnp.arrays(np.float64, n, elements=finite))
    if integer_weights:
        w = draw(hnp.arrays(np.float64, n, elements=st.integers(1, 6).map(float)))
    else:
        w = draw(hnp.arrays(np.float64, n, elements=st.floats(0.1, 50, allow_subnormal=False)))
    assume(np.ptp(x) > 0.1)
    return x, y, w


# --- weighted least squares -----------------------------------------------------------------


@given(points())
@settings(max_examples=100, deadline=None)
def test_equal_weights_match_scipy_linregress(data: tuple[np.ndarray, ...]) -> None:
    x, y, _ = data
    fit = weighted_slope(x, y, np.ones_like(x))
    expected = scipy_stats.linregress(x, y)
    assert fit.status == STATUS_OK or fit.reason.startswith("the cells lie exactly")
    assert fit.slope == pytest.approx(expected.slope, rel=1e-7, abs=1e-7)
    assert fit.intercept == pytest.approx(expected.intercept, rel=1e-7, abs=1e-6)
    if fit.status == STATUS_OK:  # (tiny SEs of near-perfect fits differ by rounding only)
        scale = 1e-6 * (1 + np.abs(y).max())
        assert fit.standard_error == pytest.approx(expected.stderr, rel=1e-6, abs=scale)
        assert fit.degrees_of_freedom == x.size - 2


@given(points(integer_weights=True))
@settings(max_examples=100, deadline=None)
def test_integer_weights_give_the_line_of_the_replicated_points(
    data: tuple[np.ndarray, ...],
) -> None:
    x, y, w = data
    fit = weighted_slope(x, y, w)
    counts = w.astype(int)
    expected = scipy_stats.linregress(np.repeat(x, counts), np.repeat(y, counts))
    assert fit.slope == pytest.approx(expected.slope, rel=1e-7, abs=1e-7)
    assert fit.intercept == pytest.approx(expected.intercept, rel=1e-7, abs=1e-6)


@given(points())
@settings(max_examples=100, deadline=None)
def test_weighted_fit_matches_numpy_polyfit_with_scaled_covariance(
    data: tuple[np.ndarray, ...],
) -> None:
    x, y, w = data
    fit = weighted_slope(x, y, w)
    # np.polyfit minimises sum((w_poly (y - p(x)))^2), so w_poly = sqrt(w); cov=True scales
    # (X'WX)^-1 by chi2 / (n - 2): the classical WLS covariance.
    coefficients, covariance = np.polyfit(x, y, 1, w=np.sqrt(w), cov=True)
    assert fit.slope == pytest.approx(coefficients[0], rel=1e-6, abs=1e-6)
    if fit.status == STATUS_OK:
        assert fit.standard_error == pytest.approx(
            np.sqrt(covariance[0, 0]), rel=1e-6, abs=1e-6 * (1 + np.abs(y).max())
        )


@given(points())
@settings(max_examples=100, deadline=None)
def test_weighted_fit_matches_the_closed_form_and_lstsq(data: tuple[np.ndarray, ...]) -> None:
    x, y, w = data
    fit = weighted_slope(x, y, w)
    x_bar, y_bar = np.sum(w * x) / np.sum(w), np.sum(w * y) / np.sum(w)
    sxx = np.sum(w * (x - x_bar) ** 2)
    slope = np.sum(w * (x - x_bar) * (y - y_bar)) / sxx
    residuals = y - (y_bar + slope * (x - x_bar))
    se = np.sqrt(np.sum(w * residuals**2) / (x.size - 2) / sxx)
    assert fit.slope == pytest.approx(slope, rel=1e-6, abs=1e-7)
    lstsq = np.linalg.lstsq(
        np.column_stack([np.ones_like(x), x]) * np.sqrt(w)[:, None], y * np.sqrt(w), rcond=None
    )[0]
    assert fit.slope == pytest.approx(lstsq[1], rel=1e-6, abs=1e-7)
    if fit.status == STATUS_OK:
        assert fit.standard_error == pytest.approx(se, rel=1e-6, abs=1e-6 * (1 + np.abs(y).max()))


def test_a_planted_slope_is_recovered_within_its_interval() -> None:
    rng = np.random.default_rng(4)
    covered = 0
    for _ in range(400):
        x = rng.uniform(-1, 1, 11)
        w = rng.integers(10, 60, 11).astype(float)
        y = 3 + 6.0 * x + rng.normal(0, 15, 11) / np.sqrt(w)
        fit = weighted_slope(x, y, w)
        half = scipy_stats.t.ppf(0.975, fit.degrees_of_freedom) * fit.standard_error
        covered += abs(fit.slope - 6.0) <= half
    assert 0.92 <= covered / 400 <= 0.98  # nominal 95%


@pytest.mark.parametrize(
    ("x", "y", "w", "reason"),
    [
        ([], [], [], "fewer than two models"),
        ([0.5], [3.0], [10.0], "fewer than two models"),
        ([0.5, 0.5, 0.5], [1.0, 2.0, 3.0], [1.0, 1.0, 1.0], "same training cutoff"),
        ([0.0, 1.0], [1.0, 3.0], [5.0, 5.0], "two models only"),
        ([0.0, 1.0, 2.0], [1.0, 3.0, 5.0], [5.0, 2.0, 1.0], "exactly on a line"),
        ([0.0, 1.0, np.nan, 2.0], [1.0, 2.0, 5.0, np.nan], [1, 1, 1, 1], "two models only"),
        ([0.0, 1.0, 2.0], [1.0, 2.0, 9.0], [1.0, 0.0, 1.0], "two models only"),
        # residuals of means from counts where every model scored 30.03: rounding only
        (
            [-1.0, 0.0, 0.5, 1.5],
            [3.5e-15, -3.5e-15, 0.0, 7.1e-15],
            [90.0, 120.0, 60.0, 75.0],
            "exactly on a line",
        ),
    ],
)
def test_degenerate_lines_are_not_computable_with_a_reason(
    x: list[float], y: list[float], w: list[float], reason: str
) -> None:
    fit = weighted_slope(x, y, w)
    assert fit.status == STATUS_NOT_COMPUTABLE
    assert reason in fit.reason
    assert fit.standard_error is None and fit.degrees_of_freedom is None


def test_two_points_still_give_their_slope() -> None:
    fit = weighted_slope([0.0, 2.0], [1.0, 5.0], [3.0, 1.0])
    assert fit.slope == pytest.approx(2.0) and fit.intercept == pytest.approx(1.0)


# --- the API-level mean of per-challenge slopes ------------------------------------------------


@given(hnp.arrays(np.float64, st.integers(2, 15), elements=finite))
@settings(max_examples=100, deadline=None)
def test_between_challenge_variance_is_a_one_sample_t_test(slopes: np.ndarray) -> None:
    assume(np.std(slopes) > 1e-6)
    tiny = np.full(slopes.size, 1e-9)  # within-challenge variance negligible
    effect = mean_of_estimates(slopes, tiny, np.full(slopes.size, 9.0), 0.05)
    expected = scipy_stats.ttest_1samp(slopes, 0.0)
    interval = expected.confidence_interval(0.95)
    assert effect.variance_source == VARIANCE_BETWEEN
    assert effect.degrees_of_freedom == slopes.size - 1
    assert effect.t_statistic == pytest.approx(expected.statistic, rel=1e-7)
    assert effect.p_value == pytest.approx(expected.pvalue, rel=1e-7, abs=1e-300)
    assert effect.ci_low == pytest.approx(interval.low, rel=1e-7, abs=1e-9)
    assert effect.ci_high == pytest.approx(interval.high, rel=1e-7, abs=1e-9)


@given(
    hnp.arrays(np.float64, st.integers(1, 8), elements=finite),
    st.floats(0.5, 20),
    st.integers(1, 40),
)
@settings(max_examples=100, deadline=None)
def test_within_challenge_variance_uses_satterthwaite(
    slopes: np.ndarray, se: float, df: int
) -> None:
    # identical slopes: no between-challenge spread, the within variance is used
    same = np.full(slopes.size, slopes[0])
    ses = np.full(slopes.size, se) * (1 + np.arange(slopes.size) / 10)
    dfs = np.full(slopes.size, float(df)) + np.arange(slopes.size)
    effect = mean_of_estimates(same, ses, dfs, 0.1)
    variances = ses**2
    expected_df = variances.sum() ** 2 / np.sum(variances**2 / dfs)
    assert effect.variance_source == VARIANCE_WITHIN
    assert effect.standard_error == pytest.approx(np.sqrt(variances.sum()) / slopes.size)
    assert effect.degrees_of_freedom == pytest.approx(expected_df)
    t = slopes[0] / effect.standard_error
    assert effect.p_value == pytest.approx(
        2 * scipy_stats.t.sf(abs(t), expected_df), rel=1e-7, abs=1e-300
    )


def test_no_usable_slope_is_not_computable() -> None:
    effect = mean_of_estimates([1.0, np.nan], [np.nan, 1.0], [9.0, 9.0], 0.05)
    assert effect.status == STATUS_NOT_COMPUTABLE and effect.components == 0
    assert effect.estimate is None and effect.p_value is None
    assert (
        mean_of_estimates([], [], [], 0.05).reason == "no tagged challenge with a computable slope"
    )


def two_stage_effect(panel: pd.DataFrame) -> float:
    """The detector's estimator composed from its pieces, as the SQL composes it."""
    panel = panel.assign(
        residual=panel["score"] - panel.groupby("challenge")["score"].transform("mean")
    )
    control = panel[~panel["tagged"]]
    profile = control.groupby("model").apply(
        lambda g: np.average(g["residual"], weights=g["n"]), include_groups=False
    )
    tagged = panel[panel["tagged"]].assign(excess=lambda d: d["residual"] - d["model"].map(profile))
    fits = [
        weighted_slope(g["cutoff"], g["excess"], g["n"]) for _, g in tagged.groupby("challenge")
    ]
    effect = mean_of_estimates(
        [f.slope for f in fits], [f.standard_error for f in fits],
        [f.degrees_of_freedom for f in fits], 0.05,
    )  # fmt: skip
    assert effect.estimate is not None
    return effect.estimate


def simulated_panel(rng: np.random.Generator, memorization: float) -> pd.DataFrame:
    """Challenges x models cell means: difficulty, big model offsets, a general cutoff trend
    of 2 points/year, `memorization` extra points/year on the tagged challenges."""
    models, challenges = 11, 40
    cutoff = rng.uniform(-1, 1, models)
    model_offset = rng.normal(0, 4, models)
    rows = []
    for c in range(challenges):
        tagged = c < 8
        difficulty = rng.normal(0, 8)
        for m in range(models):
            mean = 60 + difficulty + model_offset[m] + (2 + memorization * tagged) * cutoff[m]
            rows.append((c, m, cutoff[m], tagged, mean + rng.normal(0, 3), 30.0))
    return pd.DataFrame(rows, columns=["challenge", "model", "cutoff", "tagged", "score", "n"])


def test_two_stage_estimate_equals_the_two_way_fixed_effects_interaction() -> None:
    """Balanced panel, equal weights: the mean of per-challenge excess slopes is exactly the
    tagged x cutoff coefficient of a regression with challenge and model fixed effects."""
    panel = simulated_panel(np.random.default_rng(8), memorization=6.0)
    challenge_dummies = pd.get_dummies(panel["challenge"], dtype=float).to_numpy()
    model_dummies = pd.get_dummies(panel["model"], dtype=float).to_numpy()[:, 1:]
    interaction = (panel["tagged"] * panel["cutoff"]).to_numpy()[:, None]
    design = np.hstack([challenge_dummies, model_dummies, interaction])
    coefficients = np.linalg.lstsq(design, panel["score"].to_numpy(), rcond=None)[0]
    assert two_stage_effect(panel) == pytest.approx(coefficients[-1], rel=1e-9)
    assert coefficients[-1] == pytest.approx(6.0, abs=1.0)


def test_the_control_trend_is_not_mistaken_for_memorisation() -> None:
    estimates = [
        two_stage_effect(simulated_panel(np.random.default_rng(seed), memorization=0.0))
        for seed in range(20)
    ]
    assert abs(np.mean(estimates)) < 0.5  # the general +2/year cancels


# --- the UDFs from SQL ------------------------------------------------------------------------


@pytest.fixture
def connection() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    Plugin(name="challenge_fairness", plugin_config={}).configure_connection(connection)
    return connection


def test_udfs_match_the_pure_functions(connection: duckdb.DuckDBPyConnection) -> None:
    rows = connection.sql(
        """
        select
            cf_weighted_slope([0.0, 1.0, 2.0, 3.0], [1.0, 2.5, 5.5, 6.0], [1.0, 2.0, 3.0, 4.0]),
            cf_weighted_slope(null, [1.0], [1.0]),
            cf_weighted_slope([1.0, 1.0], [1.0, 2.0], [1.0, 1.0]),
            cf_mean_of_estimates([1.0, 2.0, 4.0], [0.5, 0.5, 0.5], [9.0, 9.0, 9.0], 0.05)
        """
    ).fetchall()[0]
    expected = weighted_slope([0, 1, 2, 3], [1, 2.5, 5.5, 6], [1, 2, 3, 4])
    assert rows[0]["slope"] == pytest.approx(expected.slope, rel=RTOL)
    assert rows[0]["standard_error"] == pytest.approx(expected.standard_error, rel=RTOL)
    assert rows[1] is None
    assert rows[2]["status"] == STATUS_NOT_COMPUTABLE and rows[2]["slope"] is None
    effect = mean_of_estimates([1, 2, 4], [0.5] * 3, [9.0] * 3, 0.05)
    assert rows[3]["p_value"] == pytest.approx(effect.p_value, rel=RTOL)
    assert rows[3]["variance_source"] == effect.variance_source


# --- the mart end to end -------------------------------------------------------------------


def independent_challenge_slopes(platform_tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Per (api, tagged challenge) excess slope and SE with pandas + numpy.polyfit."""
    attempts = platform_tables["attempts"].dropna(subset=["score"])
    models = platform_tables["models"].dropna(subset=["training_cutoff"])
    days = (
        models["training_cutoff"].astype("datetime64[ns]") - np.datetime64("1970-01-01")
    ).dt.days
    models = models.assign(cutoff=(days - days.mean()) / 365.25)
    cells = (
        attempts.merge(platform_tables["agents"], on="agent_id")
        .merge(models, on="model_id")
        .groupby(["challenge_id", "model_id", "cutoff"], as_index=False)
        .agg(n=("score", "size"), mean=("score", "mean"))
    )
    cells["residual"] = cells["mean"] - cells.groupby("challenge_id")["mean"].transform("mean")
    tags = platform_tables["challenges"][["challenge_id", "tags"]].explode("tags").dropna()
    tags = tags[tags["tags"].str.startswith("api:")].assign(api_name=lambda d: d["tags"].str[4:])
    control = cells[~cells["challenge_id"].isin(tags["challenge_id"])]
    profile = control.groupby("model_id").apply(
        lambda g: (g["n"] * g["residual"]).sum() / g["n"].sum(), include_groups=False
    )
    rows = []
    for (api, challenge), _ in tags.groupby(["api_name", "challenge_id"]):
        cell = cells[cells["challenge_id"] == challenge].sort_values("model_id")
        excess = cell["residual"] - cell["model_id"].map(profile)
        coefficients, covariance = np.polyfit(
            cell["cutoff"], excess, 1, w=np.sqrt(cell["n"]), cov=True
        )
        rows.append((api, challenge, coefficients[0], np.sqrt(covariance[0, 0])))
    return pd.DataFrame(rows, columns=["api_name", "challenge_id", "slope", "se"])


@pytest.mark.dbt
def test_planted_memorisation_is_flagged_and_its_slope_recovered() -> None:
    build = built(PLANTED)
    assert build["run"].success, build["run"].output
    marts = read_table(build["database"], "select * from main.fct_api_memorization")
    stripe = marts.set_index("api_name").loc["stripe"]
    assert stripe["is_flagged"] and stripe["status"] == "tested"
    assert stripe["tested_challenges"] == len(build["stripe"]) == 11
    assert stripe["ci_low"] <= 6.0 <= stripe["ci_high"]  # planted: +6 points per year
    assert stripe["control_slope"] > 2  # general trend planted at +5/year is seen ...
    twilio = marts.set_index("api_name").loc["twilio"]
    assert not twilio["is_flagged"]  # ... and not mistaken for memorisation
    assert stripe["models_without_cutoff"] == 1 and stripe["models_with_cutoff"] == 11


@pytest.mark.dbt
def test_fair_platform_with_a_strong_general_trend_is_quiet() -> None:
    build = built(FAIR)
    assert build["run"].success, build["run"].output
    marts = read_table(build["database"], "select * from main.fct_api_memorization")
    assert set(marts["api_name"]) == {"stripe", "twilio"}
    assert not marts["is_flagged"].any()
    # a comparison against zero would flag: the tagged slope alone exceeds the threshold
    assert (marts["tagged_slope"] > marts["slope_threshold"]).all()


@pytest.mark.dbt
def test_challenge_slopes_equal_an_independent_pandas_numpy_computation() -> None:
    build = built(PLANTED)
    tables = {name: t.to_pandas() for name, t in build["platform"].tables.items()}
    expected = independent_challenge_slopes(tables)
    actual = read_table(
        build["database"],
        "select api_name, challenge_id, slope_difference, standard_error"
        " from main.fct_api_memorization_challenges",
    )
    merged = expected.merge(actual, on=["api_name", "challenge_id"], how="outer")
    assert len(merged) == len(expected) == len(actual) == 18
    np.testing.assert_allclose(merged["slope_difference"], merged["slope"], rtol=1e-9)
    np.testing.assert_allclose(merged["standard_error"], merged["se"], rtol=1e-9)


@pytest.mark.dbt
def test_without_tags_or_cutoffs_the_mart_is_empty_and_coverage_says_why() -> None:
    build = built(ABSENT)
    assert build["run"].success, build["run"].output
    assert read_table(build["database"], "select * from main.fct_api_memorization").empty
    coverage = read_table(
        build["database"],
        "select * exclude (mart) from main.fct_detector_coverage"
        " where detector = 'api_memorization'",
    )
    assert not coverage["is_available"].iloc[0]
    missing = coverage["missing_inputs"].iloc[0]
    assert "api:<name>" in missing and "training_cutoff" in missing
    assert coverage["rows_analysed"].iloc[0] == 0


@pytest.mark.dbt
def test_coverage_counts_the_analysed_attempts() -> None:
    build = built(PLANTED)
    coverage = read_table(
        build["database"],
        "select * exclude (mart) from main.fct_detector_coverage"
        " where detector = 'api_memorization'",
    ).iloc[0]
    cells = read_table(
        build["database"],
        "select sum(scored_attempts) as attempts"
        " from intermediate.int_api_memorization_cells_prepared",
    )
    assert coverage["is_available"] and coverage["missing_inputs"] is None
    assert coverage["rows_analysed"] == cells["attempts"].iloc[0]


# --- the GX suite ---------------------------------------------------------------------------


def suite_rows(flagged_slope: float | None) -> pd.DataFrame:
    rows = [
        {"api_name": "twilio", "slope_difference": 1.2, "is_significant": False, "q_value": 0.4},
        {"api_name": "sendgrid", "slope_difference": 2.5, "is_significant": True, "q_value": 0.01},
        {"api_name": "slack", "slope_difference": 9.0, "is_significant": False, "q_value": 0.2},
    ]
    if flagged_slope is not None:
        rows.append(
            {"api_name": "stripe", "slope_difference": flagged_slope, "is_significant": True,
             "q_value": 1e-6}
        )  # fmt: skip
    frame = pd.DataFrame(rows)
    return frame.assign(
        ci_low=frame["slope_difference"] - 1, ci_high=frame["slope_difference"] + 1,
        interval_level=0.95, tested_challenges=11,
    )  # fmt: skip


def test_gx_suite_passes_on_quiet_apis_and_names_a_memorised_one() -> None:
    thresholds = {"api_memorization_slope_threshold": 3.0}
    passing = validate_suite(
        "api_memorization_within_threshold", suite_rows(None), thresholds, "error"
    )
    assert all(row["success"] for row in passing)
    empty = suite_rows(None).iloc[0:0]  # no api:<name> tag: the empty mart passes
    assert validate_suite("api_memorization_within_threshold", empty, thresholds, "error")[0][
        "success"
    ]
    failing = validate_suite(
        "api_memorization_within_threshold", suite_rows(6.4), thresholds, "error"
    )
    assert not failing[0]["success"] and failing[0]["failing_rows"] == 1
    message = failing[0]["failure_message"]
    assert "API 'stripe'" in message and "+6.40 points per year" in message
    assert "threshold of 3 (api_memorization_slope_threshold)" in message
