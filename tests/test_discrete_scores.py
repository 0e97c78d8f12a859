"""The verdict on pass/fail scores: trimming must not invent effects from ties.

A platform whose challenges score 0 or 100 (pass/fail) is built end to end. A 20 % trimmed
mean of such a cell is 0 or 100 wherever a fifth of the family failed or passed, with a
winsorized variance of 0 while the scores vary: before the fallback to the plain mean, two
challenges of this fair-but-for-one platform were flagged (a family failing 18.75 % of its
attempts had trimmed mean 100 and standard error 0, so +15 points against the others with
a raw gap of +3). The one planted bias must be the only flag.
"""

from __future__ import annotations

import pytest
from challenge_fairness.demo import SCHEMAS, PlatformSpec, generate_platform

pytestmark = pytest.mark.dbt

PASS_MARK = 60.0


def test_a_pass_fail_platform_flags_its_planted_bias_only(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    from hardening_platforms import build_platform

    spec = PlatformSpec(
        seed=11,
        n_attempts=60_000,
        planted_family_biases=(("ch-s01", "gpt", -25.0),),
        planted_hard_combinations=(),
    )
    platform = generate_platform(spec)
    tables = {name: platform.tables[name].to_pylist() for name in SCHEMAS}
    for row in tables["attempts"]:
        if row["score"] is not None:
            row["score"] = 100.0 if row["score"] >= PASS_MARK else 0.0
    built = build_platform(tables, tmp_path_factory.mktemp("pass_fail"))
    assert built["run"].success, built["run"].output

    verdicts = built["tables"]["main.fct_challenge_verdicts"].set_index("challenge_id")
    flagged = verdicts[verdicts.verdict == "flagged"]
    assert list(flagged.index) == ["ch-s01"], flagged.reason.to_dict()
    assert flagged.lead_family["ch-s01"] == "gpt"
    assert flagged.lead_adjusted_deviation["ch-s01"] < -10

    effects = built["tables"]["main.fct_family_adjusted_effects"]
    # every cell of 0s and 100s has a tail of one value: each challenge is judged on means
    assert (effects.trim_proportion == 0).all()
    assert (effects.trimmed_mean == effects.mean_score).all()
    judged = effects[effects.standard_error.notna()]
    assert (judged.standard_error > 0).all()
