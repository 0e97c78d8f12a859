"""Fixture platforms for the briefing-style, A/B experiment and IRT detectors.

Models and agents come from ``challenge_fairness.demo.generate_platform``; the challenges
and attempts are added here with a known answer, from one score model:

    score = 55 + difficulty[c] + ability[agent] + shift[c, family] + N(0, 12),

clipped to 0..100 and rounded; ability = family skill (-3..+3) + N(0, 6) per agent, so
pass/fail at 50 discriminates (2PL a near 0.9). Built once per test session and cached.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from challenge_fairness.demo import SCHEMAS, PlatformSpec, generate_platform
from conftest import run_dbt

BASE_SCORE = 55.0
NOISE_SD = 12.0
AGENT_SD = 6.0
FAMILY_SKILL = dict(
    zip(("claude", "gemini", "gpt", "llama", "mistral", "qwen"), np.linspace(-3, 3, 6), strict=True)
)

F3_SELECTION = [
    "+fct_briefing_style_sensitivity",
    "+fct_experiment_results",
    "+fct_challenge_irt",
    "+fct_agent_irt_ability",
    "+fct_detector_coverage",
]


@dataclass(frozen=True)
class ChallengeSpec:
    """One added challenge and how its attempts are drawn."""

    challenge_id: str
    attempts: int
    difficulty: float = 0.0
    template_id: str | None = None
    variables: str = "{}"
    briefing_style: str | None = None
    experiment_id: str | None = None
    experiment_arm: str | None = None
    family_shift: Mapping[str, float] = field(default_factory=dict)
    ability_weight: float = 1.0  # 0: scores ignore ability (no discrimination)


def _combination(values: dict[str, str], reverse: bool = False) -> str:
    """Variables JSON, keys sorted (or reversed, with spaces, to test canonicalisation)."""
    if reverse:
        return json.dumps(dict(sorted(values.items(), reverse=True)), separators=(", ", ": "))
    return json.dumps(dict(sorted(values.items())), separators=(",", ":"))


def planted_challenges() -> list[ChallengeSpec]:
    """Background, briefing-style and experiment challenges with known answers."""
    specs = [
        ChallengeSpec(
            f"bg-{k + 1:02d}", 400, difficulty=float(d), template_id=f"tpl-bg-{k + 1:02d}"
        )
        for k, d in enumerate(np.linspace(-20, 20, 16))
    ]
    specs.append(ChallengeSpec("bg-trivial", 200, difficulty=500.0, template_id="tpl-bg-trivial"))
    llama_penalty = {"llama": -15.0}
    combos = [
        {"database": "postgres", "language": "go"},
        {"database": "sqlite", "language": "go"},
        {"database": "postgres", "language": "python"},
        {"database": "sqlite", "language": "python"},
        {"database": "mysql", "language": "rust"},
    ]
    brief = "tpl-brief"
    specs += [
        # Planted: llama loses 15 points in 'plain' only (style-specific family effect).
        ChallengeSpec("br-01-md", 1500, 0.0, brief, _combination(combos[0]), "markdown"),
        ChallengeSpec(
            "br-01-pl",
            1500,
            0.0,
            brief,
            _combination(combos[0], True),
            "plain",
            family_shift=llama_penalty,
        ),
        ChallengeSpec("br-02-md", 1500, 5.0, brief, _combination(combos[1]), "markdown"),
        ChallengeSpec(
            "br-02-pl",
            1500,
            5.0,
            brief,
            _combination(combos[1]),
            "plain",
            family_shift=llama_penalty,
        ),
        # Fair: 'plain' is 6 points harder for everyone (a style main effect, no interaction);
        # 'markdown' offered by two challenges (pooled).
        ChallengeSpec("br-03-md1", 450, -5.0, brief, _combination(combos[2]), "markdown"),
        ChallengeSpec("br-03-md2", 450, -5.0, brief, _combination(combos[2], True), "markdown"),
        ChallengeSpec("br-03-pl", 900, -11.0, brief, _combination(combos[2]), "plain"),
        # Fair, three styles.
        ChallengeSpec("br-04-md", 900, 2.0, brief, _combination(combos[3]), "markdown"),
        ChallengeSpec("br-04-pl", 900, 2.0, brief, _combination(combos[3]), "plain"),
        ChallengeSpec("br-04-ht", 900, 2.0, brief, _combination(combos[3]), "html"),
        # Not testable: the 'plain' variant has no attempts yet.
        ChallengeSpec("br-05-md", 300, 0.0, brief, _combination(combos[4]), "markdown"),
        ChallengeSpec("br-05-pl", 0, 0.0, brief, _combination(combos[4]), "plain"),
        # A content in one style only: not a multi-style content.
        ChallengeSpec("br-06-md", 300, 0.0, "tpl-single", _combination(combos[0]), "markdown"),
    ]

    def arm(
        challenge_id: str, experiment: str, arm_label: str, attempts: int, **kwargs: Any
    ) -> ChallengeSpec:
        return ChallengeSpec(
            challenge_id,
            attempts,
            template_id=f"tpl-{challenge_id}",
            experiment_id=experiment,
            experiment_arm=arm_label,
            **kwargs,
        )

    specs += [
        # Success: A favours gpt by 15 points, B is the same challenge without the bias.
        arm("ab-good-a", "exp-good", "A", 5000, family_shift={"gpt": 15.0}),
        arm("ab-good-b", "exp-good", "B", 5000),
        # Failure: B is 8 points harder for everyone.
        arm("ab-hard-a", "exp-harder", "A", 1500),
        arm("ab-hard-b", "exp-harder", "B", 1500, difficulty=-8.0),
        # Failure: B no longer discriminates (scores ignore ability).
        arm("ab-noise-a", "exp-noise", "A", 1500),
        arm("ab-noise-b", "exp-noise", "B", 1500, ability_weight=0.0),
        # No change at all: not a success (the variance does not drop).
        arm("ab-same-a", "exp-same", "A", 1500),
        arm("ab-same-b", "exp-same", "B", 1500),
        # Arm B split over two challenges; A penalises qwen by 15 points; lower-case arm labels.
        arm("ab-multi-a", "exp-multi", "a", 2000, family_shift={"qwen": -15.0}),
        arm("ab-multi-b1", "exp-multi", "b", 1000),
        arm("ab-multi-b2", "exp-multi", "B", 1000),
        # Not testable: no arm B.
        arm("ab-solo-a", "exp-solo", "A", 300),
    ]
    return specs


def _family_of_agents(tables: dict[str, pa.Table]) -> pd.DataFrame:
    agents = tables["agents"].to_pandas().merge(tables["models"].to_pandas(), on="model_id")
    return agents[["agent_id", "model_family"]].sort_values("agent_id").reset_index(drop=True)


def simulate(specs: list[ChallengeSpec], seed: int = 3) -> dict[str, pa.Table]:
    """The platform's tables: generated models and agents plus `specs` and their attempts."""
    base = generate_platform(
        PlatformSpec(
            seed=seed,
            n_attempts=0,
            n_templates=0,
            n_standalone_challenges=1,  # 'ch-s01': a challenge nobody attempted
            planted_family_biases=(),
            planted_hard_combinations=(),
        )
    )
    tables = dict(base.tables)
    agents = _family_of_agents(tables)
    rng = np.random.default_rng(seed)
    skill = agents["model_family"].map(FAMILY_SKILL).to_numpy(float)
    ability = skill + rng.normal(0.0, AGENT_SD, size=len(agents))
    attempts = []
    for spec in specs:
        chosen = rng.integers(0, len(agents), size=spec.attempts)
        families = agents["model_family"].to_numpy()[chosen]
        shift = np.array([spec.family_shift.get(f, 0.0) for f in families])
        score = (
            BASE_SCORE
            + spec.difficulty
            + spec.ability_weight * ability[chosen]
            + shift
            + rng.normal(0.0, NOISE_SD, size=spec.attempts)
        )
        attempts.append(
            pd.DataFrame(
                {
                    "challenge_id": spec.challenge_id,
                    "agent_id": agents["agent_id"].to_numpy()[chosen],
                    "score": np.rint(np.clip(score, 0, 100)),
                }
            )
        )
    frame = pd.concat(attempts, ignore_index=True)
    frame.insert(0, "attempt_id", [f"f3-{i:07d}" for i in range(len(frame))])
    frame["submitted_at"] = pd.Timestamp("2026-02-01") + pd.to_timedelta(
        np.arange(len(frame)), unit="s"
    )
    challenges = pa.Table.from_pylist(
        [
            {
                "challenge_id": spec.challenge_id,
                "template_id": spec.template_id,
                "variables": spec.variables,
                "briefing_style": spec.briefing_style,
                "experiment_id": spec.experiment_id,
                "experiment_arm": spec.experiment_arm,
                "tags": [],
            }
            for spec in specs
        ],
        schema=SCHEMAS["challenges"],
    )
    tables["challenges"] = pa.concat_tables([tables["challenges"], challenges])
    tables["attempts"] = pa.Table.from_pandas(
        frame, schema=SCHEMAS["attempts"], preserve_index=False
    )
    tables["agent_ability"] = pa.table(
        {"agent_id": agents["agent_id"], "ability": ability}
    )  # truth, not written to the platform
    return tables


def absent_input_tables(seed: int = 5) -> dict[str, pa.Table]:
    """A generated platform with one briefing style per content, no experiments, and every
    scored attempt passing (score >= 50): nothing for the three detectors."""
    platform = generate_platform(
        PlatformSpec(
            seed=seed,
            n_attempts=4000,
            n_templates=2,
            n_standalone_challenges=3,
            planted_family_biases=(),
            planted_hard_combinations=(),
        )
    )
    challenges = platform.tables["challenges"].to_pandas()
    challenges["experiment_id"] = None
    challenges["experiment_arm"] = None
    attempts = platform.tables["attempts"].to_pandas()
    attempts["score"] = 50 + (attempts["score"] / 2).round()
    return {
        **platform.tables,
        "challenges": pa.Table.from_pandas(
            challenges, schema=SCHEMAS["challenges"], preserve_index=False
        ),
        "attempts": pa.Table.from_pandas(
            attempts, schema=SCHEMAS["attempts"], preserve_index=False
        ),
    }


@dataclass(frozen=True)
class Built:
    """A fixture platform built with dbt: the database and the raw tables (pandas)."""

    database: Path
    tables: dict[str, pd.DataFrame]
    output: str


@cache
def build(kind: str, dbt_vars_json: str = "{}") -> Built:
    """Write the `kind` platform ('planted' or 'absent') as parquet and dbt-build the F3 marts."""
    tables = simulate(planted_challenges()) if kind == "planted" else absent_input_tables()
    work = Path(tempfile.mkdtemp(prefix=f"f3-{kind}-"))
    (work / "raw").mkdir(parents=True)
    for name in SCHEMAS:
        pq.write_table(tables[name], work / "raw" / f"{name}.parquet")
    database = work / "f3.duckdb"
    run = run_dbt(
        ["build", "--select", *F3_SELECTION, "--indirect-selection", "cautious"],
        database=database,
        work_dir=work,
        dbt_vars={"raw_parquet_dir": str(work / "raw"), **json.loads(dbt_vars_json)},
    )
    assert run.success, run.output
    return Built(
        database=database,
        tables={name: table.to_pandas() for name, table in tables.items()},
        output=run.output,
    )
