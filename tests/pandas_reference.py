"""A plain pandas + scipy implementation of the four core fairness statistics.

Written straight from the definitions in the README, independently of the dbt models: the
end-to-end tests compare every mart value with it, and ``bench/`` times the dbt build
against it. It expects clean contract tables (no rejected rows).
"""

from __future__ import annotations

import itertools
import json
import warnings

import numpy as np
import pandas as pd
from scipy import stats

DEFAULTS = {
    "min_attempts": 100,
    "family_deviation_threshold": 10.0,
    "combination_deviation_threshold": 20.0,
    "effect_size_threshold": 0.5,
}


def canonical_variables(text: str | None) -> str:
    """Top-level keys sorted, compact separators."""
    value = json.loads(text) if text is not None else {}
    return json.dumps(dict(sorted(value.items())), separators=(",", ":"), ensure_ascii=False)


def scored_attempts(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Scored attempts joined to their agent's model family."""
    attempts = tables["attempts"]
    joined = attempts.merge(tables["agents"], on="agent_id").merge(tables["models"], on="model_id")
    return joined.loc[joined["score"].notna(), ["challenge_id", "model_family", "score"]]


def family_deviation(scored: pd.DataFrame, settings: dict[str, float]) -> pd.DataFrame:
    """fct_family_deviation."""
    families = (
        scored.groupby(["challenge_id", "model_family"])["score"]
        .agg(attempts="size", mean_score="mean")
        .reset_index()
    )
    challenge = (
        scored.groupby("challenge_id")["score"]
        .agg(challenge_attempts="size", challenge_mean="mean")
        .reset_index()
    )
    out = families.merge(challenge, on="challenge_id")
    out["deviation"] = out["mean_score"] - out["challenge_mean"]
    out["direction"] = np.select(
        [out["deviation"] > 0, out["deviation"] < 0], ["advantage", "disadvantage"], "none"
    )
    out["is_eligible"] = out["challenge_attempts"] >= settings["min_attempts"]
    out["is_flagged"] = out["is_eligible"] & (
        out["deviation"].abs() > settings["family_deviation_threshold"]
    )
    return out


def combination_difficulty(
    scored: pd.DataFrame, challenges: pd.DataFrame, settings: dict[str, float]
) -> pd.DataFrame:
    """fct_combination_difficulty."""
    catalogue = challenges[["challenge_id", "template_id", "variables"]].copy()
    catalogue["variable_combination"] = catalogue["variables"].map(canonical_variables)
    catalogue = catalogue[
        (catalogue["variable_combination"] != "{}") & catalogue["template_id"].notna()
    ]
    joined = scored.merge(catalogue, on="challenge_id")
    out = (
        joined.groupby(["template_id", "variable_combination"])
        .agg(
            challenges=("challenge_id", "nunique"),
            attempts=("score", "size"),
            mean_score=("score", "mean"),
        )
        .reset_index()
    )
    by_template = out.groupby("template_id")["mean_score"]
    out["template_combinations"] = by_template.transform("size")
    out["template_mean"] = by_template.transform("mean")
    out["deviation"] = out["mean_score"] - out["template_mean"]
    out["is_flagged"] = out["deviation"].abs() > settings["combination_deviation_threshold"]
    out["difficulty_rank"] = (
        out.assign(abs_deviation=out["deviation"].abs())
        .groupby("template_id")["abs_deviation"]
        .rank(method="min", ascending=False)
        .astype("int64")
    )
    return out


def kruskal_wallis(
    scored: pd.DataFrame, challenges: pd.DataFrame, settings: dict[str, float]
) -> pd.DataFrame:
    """fct_family_kruskal_wallis (statistics and status; reason text is not compared)."""
    rows = []
    groups_by_challenge = dict(tuple(scored.groupby("challenge_id")))
    for challenge_id in challenges["challenge_id"]:
        frame = groups_by_challenge.get(challenge_id)
        samples = (
            [g["score"].to_numpy() for _, g in frame.groupby("model_family")]
            if frame is not None
            else []
        )
        attempts = int(sum(len(s) for s in samples))
        h = p = np.nan
        computable = len(samples) >= 2 and np.unique(np.concatenate(samples)).size > 1
        if computable:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                h, p = stats.kruskal(*samples)
        if attempts < settings["min_attempts"]:
            status = "insufficient_evidence"
        elif not computable:
            status = "not_testable"
        else:
            status = "tested"
        rows.append(
            {
                "challenge_id": challenge_id,
                "attempts": attempts,
                "families": len(samples),
                "h_statistic": h,
                "p_value": p,
                "status": status,
            }
        )
    return pd.DataFrame(rows)


def effect_sizes(scored: pd.DataFrame, settings: dict[str, float]) -> pd.DataFrame:
    """fct_family_effect_sizes."""
    rows = []
    for challenge_id, frame in scored.groupby("challenge_id"):
        samples = {family: g["score"].to_numpy() for family, g in frame.groupby("model_family")}
        for family_a, family_b in itertools.combinations(sorted(samples), 2):
            a, b = samples[family_a], samples[family_b]
            d = pooled = np.nan
            if len(a) >= 2 and len(b) >= 2:
                pooled = np.sqrt(
                    ((len(a) - 1) * np.var(a, ddof=1) + (len(b) - 1) * np.var(b, ddof=1))
                    / (len(a) + len(b) - 2)
                )
                if pooled > 0:
                    d = (np.mean(a) - np.mean(b)) / pooled
            magnitude = None
            if not np.isnan(d):
                magnitude = "small" if abs(d) < 0.5 else "medium" if abs(d) <= 0.8 else "large"
            rows.append(
                {
                    "challenge_id": challenge_id,
                    "family_a": family_a,
                    "family_b": family_b,
                    "attempts_a": len(a),
                    "mean_a": np.mean(a),
                    "attempts_b": len(b),
                    "mean_b": np.mean(b),
                    "pooled_sd": pooled,
                    "cohens_d": d,
                    "magnitude": magnitude,
                    "is_flagged": bool(abs(d) > settings["effect_size_threshold"])
                    if not np.isnan(d)
                    else False,
                }
            )
    return pd.DataFrame(rows)


def compute_marts(
    tables: dict[str, pd.DataFrame], settings: dict[str, float] | None = None
) -> dict[str, pd.DataFrame]:
    """All four core marts from clean contract tables."""
    settings = {**DEFAULTS, **(settings or {})}
    scored = scored_attempts(tables)
    return {
        "fct_family_deviation": family_deviation(scored, settings),
        "fct_combination_difficulty": combination_difficulty(
            scored, tables["challenges"], settings
        ),
        "fct_family_kruskal_wallis": kruskal_wallis(scored, tables["challenges"], settings),
        "fct_family_effect_sizes": effect_sizes(scored, settings),
    }
