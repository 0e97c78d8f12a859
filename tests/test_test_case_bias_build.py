"""Implementation-specific test cases end to end: dbt build on fixtures with known answers.

Fixtures (tests/dif_fixtures.py): families 12 points apart in genuine skill; P(pass) =
sigmoid((score - difficulty) / 8); one planted implementation-specific test case
('ch-s05-tc3': family 'mistral' at log-odds -2.5); bad rows of every kind; a fair platform
in a DuckDB raw schema; a platform without the optional tables.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import dif_fixtures
import numpy as np
import pandas as pd
import pytest
from conftest import read_table
from scipy import stats
from test_test_case_bias import reference_gcmh, reference_purified_dif

pytestmark = pytest.mark.dbt
BANDS = 10
MIN_RESULTS = 10


@pytest.fixture(scope="session")
def builds_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.getbasetemp() / "test_case_detectors"
    path.mkdir(exist_ok=True)
    return path


@pytest.fixture(scope="session")
def planted(builds_dir: Path) -> dict[str, object]:
    return dif_fixtures.planted_build(builds_dir)


def banded_counts(platform: object, results: pd.DataFrame) -> pd.DataFrame:
    """(test case, family, band) -> passes, failures, computed with pandas from the fixture."""
    tables = {name: table.to_pandas() for name, table in platform.tables.items()}  # type: ignore[attr-defined]
    attempts = (
        tables["attempts"]
        .merge(tables["agents"], on="agent_id")
        .merge(tables["models"], on="model_id")
    )
    scored = results.merge(attempts, on="attempt_id")
    scored = scored[scored["score"].notna()].copy()
    scored["band"] = np.minimum(np.floor(scored["score"] * BANDS / 100), BANDS - 1).astype(int)
    scored["passes"] = scored["passed"].astype(int)
    scored["failures"] = 1 - scored["passes"]
    return (
        scored.groupby(["test_case_id", "model_family", "band"])[["passes", "failures"]]
        .sum()
        .reset_index()
    )


def test_the_planted_test_case_is_the_only_one_recommended_for_review(
    planted: dict[str, object],
) -> None:
    bias = read_table(planted["database"], "select * from main.fct_test_case_bias")
    flagged = bias[bias["is_review_recommended"]]
    assert flagged["test_case_id"].tolist() == ["ch-s05-tc3"]
    row = flagged.iloc[0]
    assert row["verdict"] == "review_recommended"
    assert row["lead_family"] == "mistral" and row["lead_ets_class"] == "C"
    assert row["gcmh_q_value"] < 0.05 and row["lead_d_dif"] < -3
    assert "family mistral passes it less often" in row["reason"]
    families = read_table(
        planted["database"],
        "select * from main.fct_test_case_family_dif where test_case_id = 'ch-s05-tc3'",
    ).set_index("model_family")
    assert families.loc["mistral", "ets_class"] == "C"
    assert families.loc["mistral", "direction"] == "disadvantage"
    # the planted log-odds -2.5 is D-DIF +5.9 on the delta scale; the interval holds it
    assert (
        families.loc["mistral", "d_dif_ci_low"]
        < -2.35 * 2.5
        < families.loc["mistral", "d_dif_ci_high"]
    )
    assert not families.drop(index="mistral")["is_large_dif"].any()
    assert families["is_excluded_from_reference"].to_dict() == {
        family: family == "mistral" for family in families.index
    }


def test_marts_equal_an_independent_pandas_and_loop_computation(planted: dict[str, object]) -> None:
    results = planted["tables"]["test_results"].to_pandas()  # type: ignore[index]
    counts = banded_counts(planted["platform"], results)
    totals = counts.groupby(["test_case_id", "model_family"])[["passes", "failures"]].sum()
    eligible = totals[(totals["passes"] + totals["failures"]) >= MIN_RESULTS].reset_index()
    counts = counts.merge(eligible[["test_case_id", "model_family"]])
    expected_gcmh: dict[str, tuple[float, int] | None] = {}
    expected_family: dict[tuple[str, str], dict[str, float | bool]] = {}
    for test_case_id, cells in counts.groupby("test_case_id"):
        passes = cells.pivot_table(
            index="model_family", columns="band", values="passes", fill_value=0
        )
        failures = cells.pivot_table(
            index="model_family", columns="band", values="failures", fill_value=0
        ).reindex_like(passes)
        expected_gcmh[test_case_id] = (
            reference_gcmh(passes.to_numpy(float), (passes + failures).to_numpy(float))
            if len(passes) >= 2
            else None
        )
        if len(passes) < 2:
            continue
        purified = reference_purified_dif(passes.to_numpy(), failures.to_numpy(), 0.05)
        for family, reference in zip(passes.index, purified, strict=True):
            if reference is not None:
                expected_family[(test_case_id, family)] = reference

    bias = read_table(planted["database"], "select * from main.fct_test_case_bias").set_index(
        "test_case_id"
    )
    tested = {k: v for k, v in expected_gcmh.items() if v is not None}
    assert set(bias.index[bias["gcmh_statistic"].notna()]) == set(tested)
    p_values = pd.Series({k: stats.chi2.sf(q, df) for k, (q, df) in tested.items()})
    q_values = pd.Series(stats.false_discovery_control(p_values.to_numpy()), index=p_values.index)
    for test_case_id, (statistic, df) in tested.items():
        row = bias.loc[test_case_id]
        assert row["gcmh_df"] == df
        assert row["gcmh_statistic"] == pytest.approx(statistic, rel=1e-7)
        assert row["gcmh_q_value"] == pytest.approx(q_values[test_case_id], rel=1e-7)

    family_dif = read_table(
        planted["database"], "select * from main.fct_test_case_family_dif where status = 'tested'"
    ).set_index(["test_case_id", "model_family"])
    assert len(family_dif) == len(expected_family) > 1000
    for key, expected in expected_family.items():
        row = family_dif.loc[key]
        assert row["d_dif"] == pytest.approx(expected["d_dif"], rel=1e-8, abs=1e-12)
        assert row["d_dif_se"] == pytest.approx(expected["d_dif_se"], rel=1e-8)
        assert row["mh_chi_square"] == pytest.approx(expected["chi_square"], rel=1e-8, abs=1e-12)
        assert bool(row["is_continuity_corrected"]) == expected["corrected"]


def test_bad_rows_are_rejected_with_their_reasons_and_nothing_else(
    planted: dict[str, object],
) -> None:
    rejected = read_table(
        planted["database"],
        "select source_table, rejection_reason from intermediate.int_keyed__rows_rejected"
        " where source_table = 'test_cases'"
        " union all select 'test_results', rejection_reason"
        " from intermediate.int_keyed__test_results_checked where rejection_reason is not null",
    )
    assert Counter(map(tuple, rejected.to_numpy().tolist())) == Counter(
        planted["expected_rejections"]
    )
    clean = read_table(
        planted["database"],
        "select count(*) as n, sum(results) as results from intermediate.int_keyed__test_results",
    )
    assert clean["results"][0] == planted["tables"]["test_results"].num_rows  # type: ignore[index]
    assert clean["n"][0] < clean["results"][0]  # compressed: one row per test case, agent, band


def test_thin_test_cases_and_unscored_results(planted: dict[str, object]) -> None:
    bias = read_table(planted["database"], "select * from main.fct_test_case_bias").set_index(
        "test_case_id"
    )
    for extra in ("ch-t01-01-tc-extra", "tc-null-passed", "tc-maybe"):
        assert bias.loc[extra, "results"] == 0
        assert bias.loc[extra, "verdict"] == "insufficient_evidence"
        assert "DIF needs two" in bias.loc[extra, "reason"]
    results = planted["tables"]["test_results"].to_pandas()  # type: ignore[index]
    attempts = planted["platform"].tables["attempts"].to_pandas()  # type: ignore[attr-defined]
    unscored = results.merge(attempts, on="attempt_id")["score"].isna().sum()
    assert unscored > 0 and bias["unscored_results"].sum() == unscored
    coverage = read_table(
        planted["database"],
        "select * exclude (mart) from main.fct_detector_coverage where detector = 'test_case_bias'",
    )
    assert coverage.to_dict("records") == [
        {
            "detector": "test_case_bias",
            "is_available": True,
            "missing_inputs": None,
            "rows_analysed": len(results) - unscored,
        }
    ]


def test_a_fair_platform_with_a_large_skill_gap_is_quiet(builds_dir: Path) -> None:
    fair = dif_fixtures.fair_build(builds_dir)
    bias = read_table(fair["database"], "select * from main.fct_test_case_bias")
    assert len(bias) == 6 * 30
    assert not bias["is_review_recommended"].any()
    assert set(bias["verdict"]) == {"no_large_dif"}
    family_dif = read_table(fair["database"], "select * from main.fct_test_case_family_dif")
    assert (family_dif["ets_class"] == "C").mean() < 0.03
    assert family_dif["d_dif"].abs().median() < 1.0


def test_without_the_optional_tables_the_marts_are_empty_and_coverage_says_why(
    builds_dir: Path,
) -> None:
    absent = dif_fixtures.absent_build(builds_dir)
    for mart in ("fct_test_case_bias", "fct_test_case_family_dif"):
        assert read_table(absent["database"], f"select count(*) as n from main.{mart}")["n"][0] == 0
    coverage = read_table(
        absent["database"],
        "select * exclude (mart) from main.fct_detector_coverage where detector = 'test_case_bias'",
    ).iloc[0]
    assert not coverage["is_available"]
    assert coverage["missing_inputs"] == "optional source tables absent: test_cases, test_results"
    assert coverage["rows_analysed"] == 0
    lint = read_table(
        absent["database"],
        "select * exclude (mart) from main.fct_detector_coverage where detector = 'test_code_lint'",
    ).iloc[0]
    assert not lint["is_available"]
    assert lint["missing_inputs"] == "optional source column absent: test_cases.test_code"
