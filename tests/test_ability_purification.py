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
