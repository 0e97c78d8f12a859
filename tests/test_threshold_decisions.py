"""Decisions on a mean difference are made to 9 decimals: the compiled models, on fixture
tables in place of their inputs.

Means computed from counts can be an ulp off: every family scoring 30.03 from different
numbers of attempts has a challenge mean an ulp away from 30.03, a deviation of exactly
the threshold computes an ulp above or below it, and a Cohen's d of exactly 0.5 an ulp
above. Such rounding must not give a direction, flag a row, change an effect's class or
break a tie of ranks. Each case below was decided by the rounding before (direction
'advantage', flagged, 'large' or 'small', ranks 1 and 2) and the test checks that the
rounding is there, so that it can fail. The last test builds a whole platform where every
attempt scored 30.03: no statistic may be computed from the rounding alone.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from challenge_fairness.plugin import Plugin
from challenge_fairness.registry import register_udfs
from conftest import compile_inline, run_dbt

pytestmark = pytest.mark.dbt

MODELS = (
    "int_family_deviations_measured",
    "int_combination_deviations_measured",
    "int_family_effect_sizes_measured",
)

Runner = Callable[[str, pd.DataFrame, pd.DataFrame | None], pd.DataFrame]


@pytest.fixture(scope="module")
def run_model(tmp_path_factory: pytest.TempPathFactory) -> Runner:
    """Run a model's compiled SQL on fixture tables: the families' summaries (the shape of
    int_challenge_families_summarised, 'all' window) and the challenges."""
    work: Path = tmp_path_factory.mktemp("threshold_decisions")
    run = run_dbt(["compile", "--select", *MODELS], database=work / "fixture.duckdb", work_dir=work)
    assert run.success, run.output
    compiled = {
        result.node.name: str(result.node.compiled_code) for result in run.result.result.results
    }

    def run_sql(
        model: str, families: pd.DataFrame, challenges: pd.DataFrame | None
    ) -> pd.DataFrame:
        with duckdb.connect() as connection:
            Plugin(name="challenge_fairness", plugin_config={}).configure_connection(connection)
            connection.execute("attach ':memory:' as fixture")
            for schema in ("intermediate", "staging"):
                connection.execute(f"create schema fixture.{schema}")
            summaries = families.assign(
                verdict_window="all",
                unscored_attempts=0,
                score_sum=families.mean_score * families.scored_attempts,
            )
            connection.register("summaries", summaries)
            connection.execute(
                "create table fixture.intermediate.int_challenge_families_summarised as "
                "select * from summaries"
            )
            if challenges is not None:
                connection.register("challenge_rows", challenges)
                connection.execute(
                    "create table fixture.staging.stg_platform__challenges as "
                    "select * from challenge_rows"
                )
            return connection.sql(compiled[model]).fetchdf()

    return run_sql


def families(rows: list[tuple[str, str, int, float, float]]) -> pd.DataFrame:
    return pd.DataFrame(
        rows,
        columns=["challenge_id", "model_family", "scored_attempts", "mean_score", "variance_score"],
    )


def test_a_deviation_of_rounding_has_no_direction(run_model: Runner) -> None:
    """Every family scored 30.03 (its mean exactly 30.03), from 15, 7 and 11 attempts."""
    result = run_model(
        "int_family_deviations_measured",
        families(
            [
                ("c1", "f1", 15, 30.03, 0.0),
                ("c1", "f2", 7, 30.03, 0.0),
                ("c1", "f3", 111, 30.03, 0.0),
            ]
        ),  # fmt: skip
        None,
    )
    assert (result.deviation != 0).any()  # the rounding is there
    assert (result.direction == "none").all()
    assert not result.is_flagged.any()


def test_a_deviation_equal_to_the_threshold_is_not_flagged(run_model: Runner) -> None:
    """101 attempts at 50.01 and 101 at 30.01: each family deviates by 10 points, the
    threshold (the comparison is strict), computed as 9.999999999999993 and
    -10.000000000000004."""
    result = run_model(
        "int_family_deviations_measured",
        families([("c1", "f1", 101, 50.01, 1.0), ("c1", "f2", 101, 30.01, 1.0)]),
        None,
    )
    assert (result.deviation.abs() != 10).any()  # the rounding is there
    assert (result.deviation.abs().round(9) == 10).all()
    assert result.is_eligible.all() and not result.is_flagged.any()
    assert sorted(result.direction) == ["advantage", "disadvantage"]


def test_combinations_symmetric_about_their_template_tie(run_model: Runner) -> None:
    """Two combinations 20 points above and below their template's mean (the threshold):
    both rank first, neither is flagged."""
    challenges = pd.DataFrame(
        {
            "challenge_id": ["c1", "c2"],
            "template_id": ["t1", "t1"],
            "variable_combination": ["k1", "k2"],
            "has_variables": [True, True],
        }
    )
    result = run_model(
        "int_combination_deviations_measured",
        families([("c1", "f1", 30, 70.01, 1.0), ("c2", "f1", 30, 30.01, 1.0)]),
        challenges,
    )
    assert result.deviation.abs().nunique() == 2  # the rounding is there
    assert result.difficulty_rank.tolist() == [1, 1]
    assert not result.is_flagged.any()


@pytest.mark.parametrize(
    ("mean_a", "mean_b", "sd", "magnitude", "is_flagged"),
    [
        # |d| = 0.5 (the flag's threshold, strict): computed 0.5000000000000009 and
        # 0.4999999999999991, flagged and 'small' before
        (30.02, 32.02, 4.0, "medium", False),
        (30.01, 32.01, 4.0, "medium", False),
        # |d| = 0.8, the largest medium: computed 0.8000000000000007, 'large' before
        (30.0, 31.6, 2.0, "medium", True),
    ],
)
def test_an_effect_size_on_a_class_boundary_keeps_its_class(
    run_model: Runner, mean_a: float, mean_b: float, sd: float, magnitude: str, is_flagged: bool
) -> None:
    result = run_model(
        "int_family_effect_sizes_measured",
        families([("c1", "f1", 20, mean_a, sd**2), ("c1", "f2", 20, mean_b, sd**2)]),
        None,
    )
    (row,) = result.itertuples()
    assert row.cohens_d != round(row.cohens_d, 9)  # the rounding is there
    assert row.magnitude == magnitude
    assert row.is_flagged == is_flagged


def test_the_verdicts_direction_and_flag_ignore_rounding(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The ability-adjusted verdict (macro fairness_family_effects_flagged): an effect of
    rounding has no direction, a significant effect equal to the threshold is not flagged,
    one beyond it is. On c1, f3 is flagged and leads, so f1 and f2 are contrasted again
    without it: f2 - f1 = 10.000000000000004, equal to the threshold when rounded."""
    sql = compile_inline(
        "{{ challenge_fairness.fairness_family_effects_flagged("
        "'family_summaries', 'cells', 'abilities', 'effects', 'challenges_tested') }}",
        tmp_path_factory.mktemp("verdict_decisions"),
    )
    keys = {"challenge_id": ["c1"] * 3 + ["c2"] * 3, "model_family": ["f1", "f2", "f3"] * 2}
    tables = {
        "family_summaries": pd.DataFrame(
            {**keys, "scored_attempts": [50] * 6, "mean_score": [40.0, 50.0, 52.0] * 2}
        ),
        "cells": pd.DataFrame(
            {**keys, "trimmed_mean": [40.0, 50.0, 52.0] * 2, "trim_proportion": [0.2] * 6}
        ),
        "abilities": pd.DataFrame(
            {**keys, "ability": [0.0] * 6, "is_left_out_of_fit": [False] * 6}
        ),
        "effects": pd.DataFrame(
            {
                **keys,
                "compared_families": [3] * 6,
                "adjusted_score": [0.0, 10.000000000000004, 17.0, 0.0, 0.0, 0.0],
                "adjusted_score_variance": [0.5] * 6,
                "welch_term": [0.01] * 6,
                "adjusted_score_sum": [27.000000000000004] * 3 + [0.0] * 3,
                "variance_sum": [1.5] * 6,
                "welch_term_sum": [0.03] * 6,
                "adjusted_deviation": [-11.5, 1.5, 12.0, 3.5e-15, 1.0, -1.0],
                "standard_error": [1.0] * 6,
                "degrees_of_freedom": [40.0] * 6,
                "ci_low": [-13.5, -0.5, 10.0, -2.0, -1.0, -3.0],
                "ci_high": [-9.5, 3.5, 14.0, 2.0, 3.0, 1.0],
                "t_statistic": [-11.5, 1.5, 12.0, 0.0, 1.0, -1.0],
                "p_value": [1e-8, 0.1, 1e-7, 1.0, 0.3, 0.3],
                "p_value_sidak": [3e-8, 0.3, 3e-7, 1.0, 0.7, 0.7],
            }
        ),
        "challenges_tested": pd.DataFrame(
            {
                "challenge_id": ["c1", "c2"],
                "eligibility": ["tested", "tested"],
                "is_selected": [True, False],
                "selection_p_cutoff": [0.01, 0.01],
            }
        ),
    }
    with duckdb.connect() as connection:
        register_udfs(connection)
        for name, frame in tables.items():
            connection.register(name, frame)
        result = connection.sql(sql).fetchdf().set_index(["challenge_id", "model_family"])
    c1, c2 = result.loc["c1"], result.loc["c2"]
    assert c2.direction.to_dict() == {"f1": "none", "f2": "advantage", "f3": "disadvantage"}
    assert not c2.is_flagged.any() and c2.reference_excludes_family.isna().all()
    # f1 was flagged at -11.5 only because f3's +17 lifted its reference
    assert c1.adjusted_deviation.to_dict() == {
        "f1": -10.000000000000004,
        "f2": 10.000000000000004,
        "f3": 12.0,
    }
    assert c1.reference_excludes_family.fillna("").to_dict() == {"f1": "f3", "f2": "f3", "f3": ""}
    assert c1.is_significant.all()
    assert c1.is_flagged.to_dict() == {"f1": False, "f2": False, "f3": True}
    assert c1.direction.to_dict() == {"f1": "disadvantage", "f2": "advantage", "f3": "advantage"}


def test_a_platform_where_every_attempt_scored_30_03_flags_and_estimates_nothing(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Every scored attempt of a generated platform scored 30.03 (not a binary fraction):
    its means from counts are ulps apart. Nothing is flagged, no effect has a direction, and
    every statistic that needs variation is NULL, not a number computed from the rounding
    (before: an API-memorisation t of 1.0, an A/B variance reduction of 1 that passed, a
    family clustering silhouette, leaderboard ranks 1 to 6 among equal agents). The gate's
    input check stops the run: no challenge can be tested."""
    from hardening_platforms import build_platform, small_platform

    tables = small_platform(7, n_attempts=3_000, families=3)
    for row in tables["attempts"]:
        if row["score"] is not None:
            row["score"] = 30.03
    built = build_platform(tables, tmp_path_factory.mktemp("constant"), select=["fqn:*"])
    failed = [
        result.node.unique_id.split(".")[2]
        for result in built["run"].result.result.results
        if str(result.status) not in ("success", "pass", "no-op")
    ]
    assert failed == ["fairness_gate_input_usable"], built["run"].output
    assert "no challenge could be tested" in built["run"].output
    marts = {name: frame for name, frame in built["tables"].items() if name.startswith("main.")}
    for name, frame in marts.items():
        for column in frame.columns:
            if column.startswith("is_flagged") or column == "is_significant":
                assert not frame[column].fillna(False).astype(bool).any(), (name, column)
            if column == "direction":
                assert set(frame[column].dropna()) <= {"none"}, name
    assert marts["main.fct_family_effect_sizes"].cohens_d.isna().all()
    assert marts["main.fct_api_memorization"].t_statistic.isna().all()
    assert marts["main.fct_experiment_results"].variance_reduction.isna().all()
    assert marts["main.fct_family_clustering"].mean_silhouette.isna().all()
    assert set(marts["main.fct_leaderboard"]["rank"]) == {1}
    assert marts["main.fct_challenge_verdicts"].lead_family.isna().all()
    assert set(marts["main.fct_challenge_verdicts"].verdict) <= {
        "not_testable",
        "insufficient_evidence",
    }


def test_the_lead_family_is_the_largest_effect_and_none_without_one(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The verdict's lead family (macro fairness_challenge_verdicts). A challenge with too
    few attempts has effects but no intervals: its largest |effect| leads, not the first
    family by name. Where every effect is 0 and none has an interval, no family leads. On
    a flagged challenge the family the others were contrasted without leads, even where
    a second flagged family's contrast against the rest came out larger. With two
    families, the reason says that either one's bias explains the gap."""
    sql = compile_inline(
        "{{ challenge_fairness.fairness_challenge_verdicts("
        "'challenges', 'challenges_tested', 'effects') }}",
        tmp_path_factory.mktemp("verdict_lead"),
    )
    untested = {
        "eligibility": "insufficient_evidence",
        "eligibility_reason": "too few",
        "attempts": 60,
        "families": 3,
        "smallest_family_attempts": 20,
        "unjudged_families": 0,
        "unjudged_reason": None,
        "p_value": None,
        "q_value": None,
    }
    tables = {
        "challenges": pd.DataFrame(
            {"challenge_id": ["c1", "c2", "c3", "c4"], "template_id": ["t", "t", "t", "t"]}
        ),
        "challenges_tested": pd.DataFrame(
            [
                {"challenge_id": "c1", **untested},
                {"challenge_id": "c2", **untested},
                *(
                    {
                        "challenge_id": challenge,
                        **untested,
                        "eligibility": "tested",
                        "p_value": 1e-9,
                        "q_value": 1e-8,
                    }
                    for challenge in ("c3", "c4")
                ),
            ]
        ),
        "effects": pd.DataFrame(
            {
                "challenge_id": ["c1"] * 3 + ["c2"] * 3 + ["c3"] * 3 + ["c4"] * 2,
                "model_family": ["f1", "f2", "f3"] * 3 + ["f1", "f2"],
                "adjusted_deviation": [-1.0, 8.0, -7.0, 0.0, 4e-15, -0.0, -20.8, -22.6, 1.0]
                + [-20.0, 20.0],
                "reference_excludes_family": [None] * 6 + [None, "f1", "f1"] + [None, None],
                "ci_low": [None] * 6 + [-24.1, -25.7, -2.0] + [-24.0, 16.0],
                "ci_high": [None] * 6 + [-17.5, -19.5, 4.0] + [-16.0, 24.0],
                "interval_level": [0.95] * 11,
                "is_flagged": [False] * 6 + [True, True, False] + [True, True],
                "is_within_threshold": [None] * 6 + [False, False, True] + [False, False],
            }
        ),
    }
    with duckdb.connect() as connection:
        for name, frame in tables.items():
            connection.register(name, frame)
        result = connection.sql(sql).fetchdf().set_index("challenge_id")
    assert result.lead_family["c1"] == "f2"
    assert result.lead_adjusted_deviation["c1"] == 8.0
    assert pd.isna(result.lead_family["c2"]) and pd.isna(result.lead_adjusted_deviation["c2"])
    assert (result.verdict[["c1", "c2"]] == "insufficient_evidence").all()
    assert result.verdict["c3"] == "flagged" and result.flagged_families["c3"] == 2
    assert result.lead_family["c3"] == "f1"
    assert result.lead_adjusted_deviation["c3"] == -20.8
    assert "against the other families, beyond" in result.reason["c3"]
    # two families' effects are each other's negatives: the reason says either may be biased
    assert result.verdict["c4"] == "flagged" and result.flagged_families["c4"] == 2
    assert result.reason["c4"].startswith(
        "family f1 -20.0 points (95% CI -24.0 to -16.0); family f2 +20.0 points (95% CI +16.0"
        " to +24.0) against each other (only two families compared: the bias of either one"
        " explains the gap), beyond what ability elsewhere predicts;"
    )


def test_a_family_with_few_attempts_does_not_hide_another_familys_bias(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A family with fewer than min_family_attempts on a challenge is left out of its test
    (it stays in the others' reference), not a veto: before, claude's 6 attempts made
    ch-s05 'insufficient_evidence' while gpt was -22.9 points (CI -27.2 to -18.6) on 161
    attempts. A challenge with a family not judged never passes."""
    import numpy as np
    from challenge_fairness.demo import SCHEMAS, PlatformSpec, generate_platform
    from hardening_platforms import build_platform

    spec = PlatformSpec(
        seed=1,
        n_attempts=60_000,
        planted_family_biases=(("ch-s05", "gpt", -25.0),),
        planted_hard_combinations=(),
    )
    platform = generate_platform(spec)
    tables = {name: platform.tables[name].to_pylist() for name in SCHEMAS}
    family_of_model = {row["model_id"]: row["model_family"] for row in tables["models"]}
    claude_agents = {
        row["agent_id"] for row in tables["agents"] if family_of_model[row["model_id"]] == "claude"
    }
    keep = np.random.default_rng(1).random(len(tables["attempts"])) < 0.04
    tables["attempts"] = [
        row
        for row, kept in zip(tables["attempts"], keep, strict=True)
        if kept or row["agent_id"] not in claude_agents
    ]
    built = build_platform(tables, tmp_path_factory.mktemp("thin_family"))
    assert built["run"].success, built["run"].output

    verdicts = built["tables"]["main.fct_challenge_verdicts"].set_index("challenge_id")
    effects = built["tables"]["main.fct_family_adjusted_effects"]
    claude = effects[effects.model_family == "claude"].set_index("challenge_id")
    assert list(verdicts.index[verdicts.verdict == "flagged"]) == ["ch-s05"]
    assert verdicts.lead_family["ch-s05"] == "gpt"
    assert claude.attempts["ch-s05"] < 10 and not claude.is_judged["ch-s05"]
    assert "(not judged: family claude has only" in verdicts.reason["ch-s05"]
    thin = claude.index[claude.attempts < 10]
    assert len(thin) > 30
    assert not claude.is_judged[thin].any() and not claude.is_significant[thin].any()
    assert (verdicts.verdict[thin] != "pass").all()
    assert claude.is_judged[claude.attempts >= 10].all()
