"""Fixtures with known answers for the API memorisation, approach bias and family clustering
detectors: a generated platform with those signals planted (or deliberately fair), built
with dbt once per test session and shared by the three test modules."""

from __future__ import annotations

import atexit
import dataclasses
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from challenge_fairness.demo import (
    DEFAULT_PLANTED_FAMILY_BIASES,
    PlatformSpec,
    generate_platform,
    write_parquet,
)
from conftest import run_dbt

STRIPE_TEMPLATE = "tpl-06"  # tagged api:stripe as a whole (with ch-s03, ch-s06, ch-s11)
CONFOUNDED_CHALLENGE = "ch-s12"  # claude and gemini +25 here, and they mostly pick 'x'
SELECTOR = [
    "+fct_api_memorization",
    "+fct_api_memorization_challenges",
    "+fct_approach_bias",
    "+fct_family_clustering",
    "+fct_agent_score_map",
    "+fct_detector_coverage",
]


@dataclass(frozen=True)
class Plants:
    """What is planted on top of the generated platform."""

    cutoff_points_per_year: float = 5.0  # every challenge: newer models stronger
    stripe_extra_points_per_year: float = 0.0  # api:stripe challenges only
    approach_gap: float = 0.0  # 'pages-router' minus 'app-router' on ch-s07
    family_profile_sd: float = 0.0  # family x challenge profile on the plain challenges
    approach_column: bool = True
    api_tags: bool = True
    cutoffs: bool = True
    families: tuple[str, ...] = ("claude", "gemini", "gpt", "llama", "mistral", "qwen")
    n_attempts: int = 20_000
    seed: int = 17


PLANTED = Plants(stripe_extra_points_per_year=6.0, approach_gap=-15.0, family_profile_sd=16.0)
FAIR = Plants()
ABSENT = Plants(
    approach_column=False, api_tags=False, cutoffs=False, families=("claude",), n_attempts=3_000
)

# challenge -> (approach chosen by the preferring families at rate 0.7 (0.9 on ch-s12),
#               other approach, families preferring the first)
APPROACH_CHALLENGES: dict[str, tuple[str, str, tuple[str, ...], float]] = {
    "ch-s07": ("app-router", "pages-router", ("claude", "gemini"), 0.7),
    "ch-s08": ("rest", "graphql", ("gpt", "qwen"), 0.7),
    CONFOUNDED_CHALLENGE: ("x", "y", ("claude", "gemini"), 0.9),
}
PERMUTATIONS = 199  # var clustering_permutations in the test builds (default 999)
THREE_APPROACH_CHALLENGE = "ch-s05"  # 'a', 'b', 'c' uniformly, no gap


def _is_stripe(tags: list[str] | None) -> bool:
    return "api:stripe" in (tags or [])


def planted_tables(plants: Plants) -> dict[str, pa.Table]:
    """Generate a platform and plant the signals of `plants` into its raw tables."""
    biases = DEFAULT_PLANTED_FAMILY_BIASES + tuple(
        (CONFOUNDED_CHALLENGE, family, 25.0)
        for family in ("claude", "gemini")
        if family in plants.families
    )
    platform = generate_platform(
        PlatformSpec(
            seed=plants.seed,
            n_attempts=plants.n_attempts,
            families=plants.families,
            planted_family_biases=tuple(b for b in biases if b[1] in plants.families),
        )
    )
    tables = dict(platform.tables)
    rng = np.random.default_rng(plants.seed + 1)

    challenges = tables["challenges"].to_pylist()
    for row in challenges:
        if row["template_id"] == STRIPE_TEMPLATE and not _is_stripe(row["tags"]):
            row["tags"] = [*row["tags"], "api:stripe"]
        if not plants.api_tags:
            row["tags"] = [tag for tag in row["tags"] if not tag.startswith("api:")]
    tables["challenges"] = pa.Table.from_pylist(challenges, schema=tables["challenges"].schema)
    stripe = {row["challenge_id"] for row in challenges if _is_stripe(row["tags"])}
    api_tagged = {
        row["challenge_id"] for row in challenges if any(t.startswith("api:") for t in row["tags"])
    }

    models = tables["models"].to_pandas()
    days = (
        models["training_cutoff"].astype("datetime64[ns]") - np.datetime64("1970-01-01")
    ).dt.days
    years = ((days - days.mean()) / 365.25).fillna(0.0)  # no cutoff: no trend
    model_years = dict(zip(models["model_id"], years, strict=True))
    model_family = dict(zip(models["model_id"], models["model_family"], strict=True))
    agents = tables["agents"].to_pandas()
    agent_model = dict(zip(agents["agent_id"], agents["model_id"], strict=True))

    attempts = tables["attempts"].to_pandas()
    attempt_model = attempts["agent_id"].map(agent_model)
    attempt_family = attempt_model.map(model_family)
    cutoff_years = attempt_model.map(model_years).astype(float)
    shift = plants.cutoff_points_per_year * cutoff_years
    shift += (
        plants.stripe_extra_points_per_year * cutoff_years * attempts["challenge_id"].isin(stripe)
    )

    excluded = api_tagged | set(APPROACH_CHALLENGES) | {THREE_APPROACH_CHALLENGE}
    profile_challenges = sorted(set(attempts["challenge_id"]) - excluded)
    if plants.family_profile_sd > 0:
        profile = rng.normal(
            0, plants.family_profile_sd, (len(plants.families), len(profile_challenges))
        )
        profile -= profile.mean(axis=0, keepdims=True)  # challenge difficulty unchanged
        profile -= profile.mean(axis=1, keepdims=True)  # each family's level unchanged
        family_index = {family: i for i, family in enumerate(plants.families)}
        challenge_index = {challenge: j for j, challenge in enumerate(profile_challenges)}
        on_profile = attempts["challenge_id"].isin(challenge_index)
        rows = attempt_family[on_profile].map(family_index).to_numpy()
        columns = attempts.loc[on_profile, "challenge_id"].map(challenge_index).to_numpy()
        shift[on_profile] += profile[rows, columns]

    approach = np.full(len(attempts), None, dtype=object)
    for challenge, (first, second, preferring, rate) in APPROACH_CHALLENGES.items():
        on = (attempts["challenge_id"] == challenge).to_numpy()
        p_first = np.where(attempt_family.isin(preferring), rate, 1 - rate)
        chosen = np.where(rng.random(len(attempts)) < p_first, first, second)
        approach[on] = chosen[on]
        if challenge == "ch-s07":
            shift[on & (chosen == "pages-router")] += plants.approach_gap
    on_three = (attempts["challenge_id"] == THREE_APPROACH_CHALLENGE).to_numpy()
    approach[on_three] = rng.choice(["a", "b", "c"], size=int(on_three.sum()))

    scored = attempts["score"].notna()
    attempts.loc[scored, "score"] = np.rint(
        np.clip(attempts.loc[scored, "score"] + shift[scored], 0, 100)
    )
    new_attempts = pa.Table.from_pandas(
        attempts, schema=tables["attempts"].schema, preserve_index=False
    )
    if plants.approach_column:
        new_attempts = new_attempts.append_column("approach", pa.array(approach, pa.string()))
    tables["attempts"] = new_attempts
    if not plants.cutoffs:
        tables["models"] = tables["models"].set_column(
            2, "training_cutoff", pc.cast(pa.nulls(tables["models"].num_rows), pa.date32())
        )
    return {"platform": dataclasses.replace(platform, tables=tables), "stripe": stripe}


_BUILDS: dict[Plants, dict[str, Any]] = {}


def built(plants: Plants) -> dict[str, Any]:
    """Write the platform as parquet and dbt-build the three detectors, once per session."""
    if plants not in _BUILDS:
        work = Path(tempfile.mkdtemp(prefix="cf-cutoff-"))
        atexit.register(shutil.rmtree, work, ignore_errors=True)
        made = planted_tables(plants)
        write_parquet(made["platform"], str(work / "raw"))
        database = work / "marts.duckdb"
        run = run_dbt(
            ["build", "--indirect-selection", "cautious", "--select", *SELECTOR],
            database=database,
            work_dir=work,
            dbt_vars={
                "raw_parquet_dir": str(work / "raw"),
                "fairness_gate_severity": "warn",
                "clustering_permutations": PERMUTATIONS,
            },
        )
        _BUILDS[plants] = {"run": run, "database": database, **made}
    return _BUILDS[plants]
