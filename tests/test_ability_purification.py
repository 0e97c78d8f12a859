"""A family biased on many challenges keeps its bias out of its ability (purification).

A family's ability is its attempt-weighted residual over its other challenges. Without
purification, gpt 15 points down on 15 of 62 challenges carried about a quarter of that
into its ability: its effects there were about 3.4 points too small (11 to 14 of the 15
found, about half the intervals missing -15), and every fair challenge showed gpt about
+3.7. The cells a round flags are now left out of the next round's fit
(`ability_purification_rounds`, default 1), as DIF analysis purifies its matching score.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from challenge_fairness.demo import SCHEMAS, PlatformSpec, generate_platform

pytestmark = pytest.mark.dbt

SHIFT = -15.0
BIASED = [f"ch-s{i:02d}" for i in range(1, 13)] + ["ch-t01-01", "ch-t02-01", "ch-t03-01"]


def gpt_errors(effects: pd.DataFrame) -> tuple[float, float, int, set[str]]:
    """(mean estimate - shift on the biased challenges, mean effect elsewhere, intervals
    covering the shift, challenges flagged for gpt)."""
    gpt = effects[effects.model_family == "gpt"].set_index("challenge_id")
    biased = gpt.loc[BIASED]
    fair = gpt.drop(index=BIASED)
    covering = int(((biased.ci_low <= SHIFT) & (biased.ci_high >= SHIFT)).sum())
    return (
        float((biased.adjusted_deviation - SHIFT).mean()),
        float(fair.adjusted_deviation.mean()),
        covering,
        set(gpt.index[gpt.is_flagged]),
    )


def test_a_family_biased_on_a_quarter_of_its_challenges(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    import verdict_reference
    from hardening_platforms import build_platform

    spec = PlatformSpec(
        seed=2,
        n_attempts=60_000,
        planted_family_biases=tuple((challenge, "gpt", SHIFT) for challenge in BIASED),
        planted_hard_combinations=(),
    )
    platform = generate_platform(spec)
    tables = {name: platform.tables[name].to_pylist() for name in SCHEMAS}
    work = tmp_path_factory.mktemp("purification")

    built = build_platform(tables, work)
    assert built["run"].success, built["run"].output
    effects = built["tables"]["main.fct_family_adjusted_effects"]
    error, elsewhere, covering, flagged = gpt_errors(effects)
    assert flagged == set(BIASED)
    assert not effects[effects.model_family != "gpt"].is_flagged.any()
    assert abs(error) < 1.5
    assert abs(elsewhere) < 1.5
    assert covering >= 14

    # the same platform without purification: the bias leaks into gpt's ability
    unpurified = build_platform(tables, work, dbt_vars={"ability_purification_rounds": 0})
    assert unpurified["run"].success, unpurified["run"].output
    old = unpurified["tables"]["main.fct_family_adjusted_effects"]
    old_error, old_elsewhere, old_covering, old_flagged = gpt_errors(old)
    assert old_error > 3.0 and old_elsewhere > 3.0
    assert old_covering < 10 and len(old_flagged) < len(BIASED)
    assert not old.is_left_out_of_fit.any()
    # the cells left out of the purified fit are the ones the first fit flags
    left_out = effects[effects.is_left_out_of_fit]
    first_flags = old[old.is_flagged]
    assert set(zip(left_out.challenge_id, left_out.model_family, strict=True)) == set(
        zip(first_flags.challenge_id, first_flags.model_family, strict=True)
    )

    # and the build equals the independent computation, purification included
    frames = {name: platform.tables[name].to_pandas() for name in SCHEMAS}
    expected_verdicts, expected = verdict_reference.verdicts(frames)
    columns = ["adjusted_deviation", "standard_error", "ci_low", "ci_high", "p_value_sidak"]
    merged = effects.dropna(subset=["adjusted_deviation"]).merge(
        expected, on=["challenge_id", "model_family"], suffixes=("", "_expected")
    )
    assert len(merged) == effects.adjusted_deviation.notna().sum() == len(expected)
    for column in columns:
        np.testing.assert_allclose(
            merged[column], merged[f"{column}_expected"], rtol=1e-9, atol=1e-9, err_msg=column
        )
    assert (merged.is_flagged == merged.is_flagged_expected).all()
    verdicts = built["tables"]["main.fct_challenge_verdicts"].merge(
        expected_verdicts, on="challenge_id", suffixes=("", "_expected")
    )
    assert (verdicts.verdict == verdicts.verdict_expected).all()


def test_a_challenge_whose_every_cell_is_left_out_keeps_its_reference(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Both families of a two-family challenge flagged: its reference (its difficulty in
    int_combination_difficulties_measured) falls back to all its cells, against the
    abilities of the fit, which it does not change. A partly left-out challenge's
    reference is over its fitted cells only."""
    import duckdb
    from challenge_fairness.registry import register_udfs
    from conftest import compile_inline

    sql = compile_inline(
        "{{ challenge_fairness.fairness_family_abilities_estimated("
        "'cells', excluded='is_flagged_before') }}",
        tmp_path_factory.mktemp("purified_reference"),
    )
    rng = np.random.default_rng(7)
    rows = [
        (challenge, family, float(rng.uniform(30, 70)))
        for challenge in ("c1", "c2", "c3", "c5")
        for family in ("f1", "f2", "f3")
    ] + [("c4", "f1", 80.0), ("c4", "f2", 20.0)]
    cells = pd.DataFrame(rows, columns=["challenge_id", "model_family", "trimmed_mean"])
    cells["attempts"] = rng.integers(20, 60, len(cells))
    cells["trimmed_mean_variance"] = rng.uniform(1, 4, len(cells))
    cells["effective_n"] = cells["attempts"] - 4
    left_out = {("c4", "f1"), ("c4", "f2"), ("c3", "f3")}
    cells["is_flagged_before"] = [
        (c, f) in left_out for c, f in zip(cells.challenge_id, cells.model_family, strict=True)
    ]

    def fitted(frame: pd.DataFrame) -> pd.DataFrame:
        with duckdb.connect() as connection:
            register_udfs(connection)
            connection.register("cells", frame)
            return connection.sql(sql).df().set_index(["challenge_id", "model_family"])

    result = fitted(cells)
    without_c4 = fitted(cells[cells.challenge_id != "c4"])
    # c4 changes nothing else: its cells are in no fit
    common = without_c4.index
    for column in ("challenge_reference", "ability", "ability_variance", "cell_residual"):
        np.testing.assert_allclose(
            result.loc[common, column], without_c4[column], rtol=1e-12, err_msg=column
        )
    # a reference is the mean over its cells of (trimmed mean - the fit's ability), so the
    # abilities cancel between two challenges with the same families in their references:
    # c4 has f1 and f2 (all its cells, though left out), c3 f1 and f2 (f3 left out)
    reference = result.challenge_reference.groupby(level="challenge_id").first()
    means = cells[cells.model_family != "f3"].groupby("challenge_id").trimmed_mean.mean()
    assert reference["c4"] - reference["c3"] == pytest.approx(means["c4"] - means["c3"], rel=1e-12)
    everyone = cells.groupby("challenge_id").trimmed_mean.mean()
    assert reference["c1"] - reference["c2"] == pytest.approx(
        everyone["c1"] - everyone["c2"], rel=1e-12
    )
    in_reference = result.is_in_challenge_reference
    assert set(in_reference.index[~in_reference]) == {("c3", "f3")}
    assert set(result.index[result.is_left_out_of_fit]) == left_out
