"""An independent pandas + scipy computation of the ability-adjusted verdict (README:
"How the verdict works"), written from the definitions, not from the SQL. Used by the
end-to-end tests to check fct_family_adjusted_effects and fct_challenge_verdicts."""

from __future__ import annotations

import numpy as np
import pandas as pd
from pandas_reference import scored_attempts
from scipy import stats

DEFAULTS = {
    "min_attempts": 100,
    "min_family_attempts": 10,
    "family_deviation_threshold": 10.0,
    "alpha": 0.05,
    "trim_proportion": 0.2,
    "ability_fit_iterations": 3,
    "variance_shrinkage_df": 30.0,
    "ability_purification_rounds": 1,
}


def yuen_cell(scores: pd.Series, trim: float) -> pd.Series:
    """n, trimmed mean, Yuen's squared standard error and h of one cell, and whether its
    scores are too discrete to trim: both trimmed tails are ties of the values kept beside
    them, or the values kept are one value."""
    x = np.sort(scores.to_numpy(dtype=float))
    n = x.size
    g = int(trim * n)
    h = n - 2 * g
    winsorized = np.clip(x, x[g], x[n - g - 1])
    se2 = np.sum((winsorized - winsorized.mean()) ** 2) / (h * (h - 1)) if h >= 2 else np.nan
    low, high = x[g], x[n - g - 1]
    ties = g >= 1 and x[0] < x[-1] and ((x[0] == low and x[-1] == high) or low == high)
    return pd.Series(
        {"n": n, "tm": stats.trim_mean(x, trim), "se2": se2, "h": h, "ties": float(ties)}
    )


def challenge_cells(scored: pd.DataFrame, trim: float) -> pd.DataFrame:
    """The cells of every challenge: trimmed, or plain means (trim 0) for every family of
    a challenge where some family's scores are too discrete to trim."""

    def cells_at(frame: pd.DataFrame, proportion: float) -> pd.DataFrame:
        return (
            frame.groupby(["challenge_id", "model_family"])["score"]
            .apply(yuen_cell, trim=proportion)
            .unstack()
            .reset_index()
            .assign(trim_proportion=proportion)
        )

    trimmed = cells_at(scored, trim)
    tied = set(trimmed.loc[trimmed.ties > 0, "challenge_id"])
    if not tied:
        return trimmed
    plain = cells_at(scored[scored.challenge_id.isin(tied)], 0.0)
    return pd.concat([trimmed[~trimmed.challenge_id.isin(tied)], plain], ignore_index=True)


def adjusted_effects(
    tables: dict[str, pd.DataFrame],
    settings: dict | None = None,
    excluded: frozenset[tuple[str, str]] = frozenset(),
) -> pd.DataFrame:
    """One row per (challenge, family) cell with the adjusted effect and its test.

    The cells in `excluded` ((challenge, family) pairs, the flags of the round before) are
    left out of the ability fit: of the challenge references and of every family's ability
    (purification). Their own ability is the family's from all its other fitted cells.
    """
    s = {**DEFAULTS, **(settings or {})}
    scored = scored_attempts(tables)
    cells = challenge_cells(scored, s["trim_proportion"])
    pairs = pd.Series(list(zip(cells.challenge_id, cells.model_family, strict=True)))
    fit = cells[~pairs.isin(excluded).to_numpy()].copy()
    ability = pd.Series(0.0, index=sorted(fit.model_family.unique()))
    for _ in range(int(s["ability_fit_iterations"])):
        reference = (fit.tm - fit.model_family.map(ability)).groupby(fit.challenge_id).mean()
        residual = fit.tm - fit.challenge_id.map(reference)
        ability = (residual * fit.n).groupby(fit.model_family).sum() / fit.n.groupby(
            fit.model_family
        ).sum()
    reference = (fit.tm - fit.model_family.map(ability)).groupby(fit.challenge_id).mean()
    fit["residual"] = fit.tm - fit.challenge_id.map(reference)

    rows = []
    for challenge, family in zip(cells.challenge_id, cells.model_family, strict=True):
        others = fit[(fit.model_family == family) & (fit.challenge_id != challenge)]
        if others.empty:
            rows.append(
                {
                    "challenge_id": challenge,
                    "model_family": family,
                    "ability": np.nan,
                    "ability_variance": np.nan,
                }
            )
            continue
        w = others.n.to_numpy(dtype=float)
        theta = np.sum(w * others.residual) / w.sum()
        floor = np.sum(w**2 * others.se2.fillna(0)) / w.sum() ** 2
        k = len(others)
        sandwich = (
            np.sum(w**2 * (others.residual - theta) ** 2) / w.sum() ** 2 * k / (k - 1)
            if k >= 2
            else 0
        )
        rows.append(
            {
                "challenge_id": challenge,
                "model_family": family,
                "ability": theta,
                "ability_variance": max(floor, sandwich),
            }
        )
    cells = cells.merge(pd.DataFrame(rows), on=["challenge_id", "model_family"])

    with_ability = cells[cells.ability.notna()].groupby("challenge_id").model_family.apply(list)
    # each cell's winsorized variance s_w^2 = se2 h (h - 1) / (n - 1), shrunk toward the
    # challenge's (h - 1)-weighted pooled one with prior df d0 (d0 = 0: the cell's own)
    d0 = float(s["variance_shrinkage_df"])
    with_variance = cells[cells.se2.notna()].copy()
    with_variance["s2"] = (
        with_variance.se2 * with_variance.h * (with_variance.h - 1) / (with_variance.n - 1)
    )
    with_variance["dof"] = with_variance.h - 1
    pooled = with_variance.groupby("challenge_id").apply(
        lambda g: pd.Series(
            {"pooled_s2": np.sum(g.dof * g.s2) / g.dof.sum(), "pooled_dof": g.dof.sum()}
        ),
        include_groups=False,
    )
    with_variance = with_variance.merge(pooled, left_on="challenge_id", right_index=True)
    if d0 > 0:
        shrunk_s2 = (with_variance.dof * with_variance.s2 + d0 * with_variance.pooled_s2) / (
            with_variance.dof + d0
        )
        with_variance["se2"] = (
            shrunk_s2 * (with_variance.n - 1) / (with_variance.h * (with_variance.h - 1))
        )
    with_variance["cell_dof"] = np.minimum(with_variance.dof + d0, with_variance.pooled_dof)
    usable = with_variance[with_variance.ability.notna()].copy()
    usable["u"] = usable.tm - usable.ability
    usable["v"] = usable.se2 + usable.ability_variance
    usable["welch"] = usable.se2**2 / usable.cell_dof
    out = []
    for challenge, group in usable.groupby("challenge_id"):
        k = len(group)
        if k < 2:
            continue
        for _, row in group.iterrows():
            rest = group[group.model_family != row.model_family]
            effect = row.u - rest.u.mean()
            variance = row.v + rest.v.sum() / (k - 1) ** 2
            denominator = row.welch + rest.welch.sum() / (k - 1) ** 4
            record = {
                "challenge_id": challenge,
                "model_family": row.model_family,
                "trim_proportion": row.trim_proportion,
                "attempts": row.n,
                "u": row.u,
                "v": row.v,
                "welch": row.welch,
                "k": k,
                **contrast_test(effect, variance, denominator, k, s["alpha"]),
            }
            out.append(record)
    result = pd.DataFrame(out)
    result.attrs["abilities"] = with_ability.to_dict()
    return result


def contrast_test(
    effect: float, variance: float, welch_denominator: float, k: int, alpha: float
) -> dict[str, float]:
    """The Welch t test of one contrast, its interval and Sidak p over k contrasts."""
    se = np.sqrt(variance)
    df = variance**2 / welch_denominator if welch_denominator > 0 else np.nan
    record = {"adjusted_deviation": effect, "standard_error": se, "degrees_of_freedom": df}
    if se > 0 and np.isfinite(df):
        t = effect / se
        p = 2 * stats.t.sf(abs(t), df)
        low, high = stats.t.interval(1 - alpha, df, loc=effect, scale=se)
        record |= {
            "t_statistic": t,
            "p_value": p,
            "p_value_sidak": 1 - (1 - p) ** k,
            "ci_low": low,
            "ci_high": high,
        }
    return record


def without_lead(effects: pd.DataFrame, s: dict) -> pd.DataFrame:
    """On a challenge with a flagged family, every other family contrasted without the lead.

    The lead is the flagged family of the largest |effect| (to 9 decimals), then by name; it
    keeps its contrast. With three or more families each other one is contrasted with the
    mean of the families but itself and the lead, and tested and flagged again.
    """
    effects = effects.copy()
    effects["reference_excludes_family"] = None
    for _, group in effects.groupby("challenge_id"):
        flagged = group[group.is_flagged]
        if flagged.empty or len(group) < 3:
            continue
        order = flagged.assign(size=flagged.adjusted_deviation.abs().round(9)).sort_values(
            ["size", "model_family"], ascending=[False, True]
        )
        lead = order.iloc[0]
        k = len(group)
        for index, row in group.iterrows():
            if row.model_family == lead.model_family:
                continue
            rest = group[~group.model_family.isin([row.model_family, lead.model_family])]
            record = contrast_test(
                row.u - rest.u.mean(),
                row.v + rest.v.sum() / (k - 2) ** 2,
                row.welch + rest.welch.sum() / (k - 2) ** 4,
                k,
                s["alpha"],
            )
            for column, value in record.items():
                effects.loc[index, column] = value
            effects.loc[index, "reference_excludes_family"] = lead.model_family
    return effects


def flag(effects: pd.DataFrame, cutoff: float, s: dict) -> pd.DataFrame:
    """is_significant, is_flagged and is_within from each effect's test; a family with
    fewer than min_family_attempts on the challenge is not judged (never significant)."""
    effects = effects.copy()
    effects["is_judged"] = effects.attempts >= s["min_family_attempts"]
    effects["is_significant"] = (
        (effects.q_value < s["alpha"]) & effects.is_judged & (effects.p_value_sidak <= cutoff)
    )
    effects["is_flagged"] = effects.is_significant & (
        effects.adjusted_deviation.abs().round(9) > s["family_deviation_threshold"]
    )
    effects["is_within"] = (effects.ci_low > -s["family_deviation_threshold"]) & (
        effects.ci_high < s["family_deviation_threshold"]
    )
    return effects


def effects_with_ability(effects: pd.DataFrame, challenge: str) -> list[str]:
    """Families of the challenge whose leave-out ability exists."""
    return list(effects.attrs["abilities"].get(challenge, []))


def verdicts(
    tables: dict[str, pd.DataFrame], settings: dict | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per challenge: verdict and q-value; the effects with their flags).

    Purification: the flagged cells of a round are left out of the next round's ability
    fit, `ability_purification_rounds` times; the last round decides."""
    s = {**DEFAULTS, **(settings or {})}
    excluded: frozenset[tuple[str, str]] = frozenset()
    for _ in range(int(s["ability_purification_rounds"])):
        _, effects = decide(tables, s, excluded)
        flagged = effects[effects.is_flagged]
        excluded = frozenset(zip(flagged.challenge_id, flagged.model_family, strict=True))
    return decide(tables, s, excluded)


def decide(
    tables: dict[str, pd.DataFrame], s: dict, excluded: frozenset[tuple[str, str]]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One round of verdicts on abilities fitted without the `excluded` cells."""
    effects = adjusted_effects(tables, s, excluded)
    scored = scored_attempts(tables)
    counts = scored.groupby(["challenge_id", "model_family"]).size()
    rows = []
    for challenge in tables["challenges"].challenge_id:
        family_counts = (
            counts[challenge]
            if challenge in counts.index.get_level_values(0)
            else pd.Series(dtype=int)
        )
        scores = scored.score[scored.challenge_id == challenge]
        mine = effects[effects.challenge_id == challenge] if len(effects) else effects
        # judged: enough attempts on the challenge and an ability from the others; the
        # other families stay in the reference but are not tested
        with_ability = set(effects_with_ability(effects, challenge))
        judged = [
            family
            for family, count in family_counts.items()
            if count >= s["min_family_attempts"] and family in with_ability
        ]
        tested = mine[mine.model_family.isin(judged)] if len(mine) else mine
        if family_counts.sum() < s["min_attempts"]:
            eligibility = "insufficient_evidence"
        elif len(family_counts) < 2 or scores.nunique() == 1:
            eligibility = "not_testable"
        elif len(judged) < 2:
            eligibility = "insufficient_evidence"
        elif len(tested) < len(judged) or tested.p_value_sidak.isna().any():
            eligibility = "not_testable"
        else:
            eligibility = "tested"
        rows.append(
            {
                "challenge_id": challenge,
                "eligibility": eligibility,
                "unjudged": len(family_counts) - len(judged),
                "p_value": tested.p_value_sidak.min() if eligibility == "tested" else np.nan,
            }
        )
    out = pd.DataFrame(rows)
    tested = out.eligibility == "tested"
    out["q_value"] = np.nan
    out.loc[tested, "q_value"] = stats.false_discovery_control(out.p_value[tested], method="bh")
    selected = int((out.q_value < s["alpha"]).sum())
    cutoff = s["alpha"] * selected / max(int(tested.sum()), 1)
    effects = effects.merge(out[["challenge_id", "q_value"]], on="challenge_id")
    effects = flag(without_lead(flag(effects, cutoff, s), s), cutoff, s)
    by_challenge = effects.groupby("challenge_id").agg(
        flagged=("is_flagged", "any"), all_within=("is_within", "all")
    )
    out = out.merge(by_challenge, on="challenge_id", how="left")
    out["verdict"] = np.where(
        ~tested,
        out.eligibility,
        np.where(
            out.flagged.fillna(False).astype(bool),
            "flagged",
            np.where(
                out.all_within.fillna(False).astype(bool) & (out.unjudged == 0),
                "pass",
                "insufficient_evidence",
            ),
        ),
    )
    return out, effects
