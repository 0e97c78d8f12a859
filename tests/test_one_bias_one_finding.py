"""One family's bias is one finding, not also the opposite effect of every other family.

Each family is contrasted with the mean of the other families on the challenge, so a
family's shift moves each other family's contrast by shift / (K - 1) the other way. Before
the lead was left out of the others' references, a family failing a challenge (-60 points,
six families) also flagged claude at +13.8, and on a challenge attempted by three families
a -25 shift flagged both others at about +12: their agents' leaderboard ranks were then
"corrected" for a bias they do not have.
"""

from __future__ import annotations

import pytest
from challenge_fairness.demo import SCHEMAS, PlatformSpec, generate_platform

pytestmark = pytest.mark.dbt

THREE_FAMILIES = {"claude", "gpt", "llama"}


def test_only_the_biased_family_is_flagged(tmp_path_factory: pytest.TempPathFactory) -> None:
    from hardening_platforms import build_platform

    spec = PlatformSpec(
        seed=1,
        n_attempts=60_000,
        planted_family_biases=(("ch-s05", "gpt", -60.0), ("ch-s07", "gpt", -25.0)),
        planted_hard_combinations=(),
    )
    platform = generate_platform(spec)
    tables = {name: platform.tables[name].to_pylist() for name in SCHEMAS}
    family_of_model = {row["model_id"]: row["model_family"] for row in tables["models"]}
    family_of_agent = {
        row["agent_id"]: family_of_model[row["model_id"]] for row in tables["agents"]
    }
    tables["attempts"] = [
        row
        for row in tables["attempts"]
        if row["challenge_id"] != "ch-s07" or family_of_agent[row["agent_id"]] in THREE_FAMILIES
    ]
    built = build_platform(tables, tmp_path_factory.mktemp("one_bias"))
    assert built["run"].success, built["run"].output

    verdicts = built["tables"]["main.fct_challenge_verdicts"].set_index("challenge_id")
    assert sorted(verdicts.index[verdicts.verdict == "flagged"]) == ["ch-s05", "ch-s07"]
    effects = built["tables"]["main.fct_family_adjusted_effects"]
    for challenge, families in (("ch-s05", 6), ("ch-s07", 3)):
        mine = effects[effects.challenge_id == challenge].set_index("model_family")
        assert len(mine) == families
        assert verdicts.loc[challenge, "lead_family"] == "gpt"
        assert verdicts.loc[challenge, "flagged_families"] == 1, verdicts.loc[challenge, "reason"]
        assert list(mine.index[mine.is_flagged]) == ["gpt"]
        assert mine.loc["gpt", "adjusted_deviation"] < -20
        assert mine.reference_excludes_family.isna()["gpt"]
        others = mine.drop(index="gpt")
        assert (others.reference_excludes_family == "gpt").all()
        # against the other unbiased families they are fair: no spill-over of the shift
        assert (others.adjusted_deviation.abs() < 6).all(), others.adjusted_deviation
        assert (others.ci_low <= others.adjusted_deviation).all()
        assert (others.adjusted_deviation <= others.ci_high).all()
    # elsewhere nothing is left out
    elsewhere = effects[~effects.challenge_id.isin(["ch-s05", "ch-s07"])]
    assert elsewhere.reference_excludes_family.isna().all()


def test_with_two_families_the_leaderboard_closes_the_gap_once(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Two families' contrasts are mirror images: both are flagged (either family's bias
    reads the same), and the bias-adjusted leaderboard takes half of each. Before, it took
    both whole, which moved the two families' scores apart by twice the gap."""
    from hardening_platforms import VERDICT_SELECTION, build_platform

    planted = tuple((challenge, "fam01", -25.0) for challenge in ("ch-s05", "ch-s06", "ch-s07"))
    spec = PlatformSpec(
        seed=1,
        n_attempts=30_000,
        families=("fam00", "fam01"),
        planted_family_biases=planted,
        planted_hard_combinations=(),
    )
    platform = generate_platform(spec)
    tables = {name: platform.tables[name].to_pylist() for name in SCHEMAS}
    built = build_platform(
        tables,
        tmp_path_factory.mktemp("two_families"),
        select=[*VERDICT_SELECTION, "+fct_leaderboard"],
    )
    assert built["run"].success, built["run"].output

    effects = built["tables"]["main.fct_family_adjusted_effects"]
    flagged = effects[effects.is_flagged].pivot(
        index="challenge_id", columns="model_family", values="adjusted_deviation"
    )
    assert sorted(flagged.index) == ["ch-s05", "ch-s06", "ch-s07"]
    assert list(flagged.fam00) == pytest.approx(list(-flagged.fam01), rel=1e-12)
    assert (flagged.fam01 < -15).all()
    assert effects.reference_excludes_family.isna().all()

    leaderboard = built["tables"]["main.fct_leaderboard"]
    shift = (leaderboard.score_bias_adjusted - leaderboard.score).groupby(leaderboard.model_family)
    assert (shift.max() - shift.min() < 1e-9).all()  # one shift per family
    challenges = leaderboard.challenges.iloc[0]
    assert (leaderboard.challenges == challenges).all()
    gap_closed = shift.mean()["fam01"] - shift.mean()["fam00"]
    assert gap_closed == pytest.approx(flagged.fam00.sum() / challenges, rel=1e-9)
