"""Many simulated platforms as one dataset, for calibrating the verdict.

Each platform's ids (challenges, templates, agents, models, families, attempts) get the
prefix ``p<k>-`` so the platforms share nothing: one dbt build judges all of them, and
Benjamini-Hochberg runs across the union of their challenges.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from challenge_fairness.demo import Platform, PlatformSpec, generate_platform

PREFIXED_COLUMNS = {
    "attempts": ("attempt_id", "challenge_id", "agent_id"),
    "challenges": ("challenge_id", "template_id"),
    "agents": ("agent_id", "model_id"),
    "models": ("model_id", "model_family"),
}


def challenge_ids(spec: PlatformSpec) -> list[str]:
    """The challenge ids a spec's catalogue produces (independent of the seed)."""
    tiny = dataclasses.replace(
        spec,
        n_attempts=10,
        planted_family_biases=(),
        planted_hard_combinations=(),
        family_routing=None,
        dirty=False,
    )
    return generate_platform(tiny).tables["challenges"].column("challenge_id").to_pylist()


def random_biases(
    spec: PlatformSpec, count: int, shift_range: tuple[float, float], seed: int
) -> tuple[tuple[str, str, float], ...]:
    """`count` (challenge, family, shift) plants on distinct challenges, random sign."""
    rng = np.random.default_rng(seed)
    chosen = rng.choice(challenge_ids(spec), size=count, replace=False)
    families = rng.choice(spec.families, size=count)
    shifts = rng.uniform(*shift_range, size=count) * rng.choice([-1.0, 1.0], size=count)
    return tuple(
        (str(c), str(f), float(round(s, 2)))
        for c, f, s in zip(chosen, families, shifts, strict=True)
    )


def _prefixed(table: pa.Table, columns: Sequence[str], prefix: str) -> pa.Table:
    for column in columns:
        index = table.schema.get_field_index(column)
        values = pc.binary_join_element_wise(pa.scalar(prefix), table.column(column), "")
        table = table.set_column(index, column, values)
    return table


def combine_platforms(platforms: Sequence[Platform]) -> tuple[dict[str, pa.Table], pa.Table]:
    """(contract tables of all platforms, planted biases with prefixed ids)."""
    tables: dict[str, list[pa.Table]] = {name: [] for name in PREFIXED_COLUMNS}
    truths = []
    for index, platform in enumerate(platforms):
        prefix = f"p{index}-"
        for name, columns in PREFIXED_COLUMNS.items():
            tables[name].append(_prefixed(platform.tables[name], columns, prefix))
        truths.append(
            _prefixed(platform.planted_family_biases, ("challenge_id", "model_family"), prefix)
        )
    return (
        {name: pa.concat_tables(parts) for name, parts in tables.items()},
        pa.concat_tables(truths),
    )


def expected_scores(spec: PlatformSpec) -> tuple[list[str], list[str], np.ndarray]:
    """(challenge ids, agent ids, expected score of every challenge x agent WITHOUT the
    planted family biases): what an oracle that knows every offset of ``generate_platform``
    (challenge difficulty, hard combinations, family skill, model and agent offsets) would
    predict. It replays the generator's structure draws, so it holds only for specs
    without the detector, drift and fix plants, which change expected scores further."""
    from challenge_fairness import demo

    if spec.detector_plants or spec.verdict_drift or spec.bias_fix:
        raise ValueError("expected_scores: only for specs without detector/drift/fix plants")
    structure_rng = np.random.default_rng(np.random.SeedSequence(spec.seed).spawn(2)[0])
    challenges = demo._build_challenges(spec)
    _, agents, _, agent_offset = demo._build_population(spec, structure_rng)
    difficulty = demo._difficulty(challenges, structure_rng)
    hard, _, _, _ = demo._planted_shifts(spec, challenges)
    expected = demo.BASE_SCORE + (difficulty + hard)[:, None] + agent_offset[None, :]
    return challenges.ids, agents.column("agent_id").to_pylist(), expected


def oracle_estimates(platform: Platform, threshold: float) -> pa.Table:
    """Per planted (challenge, family): the oracle's estimate of the shift and whether it
    finds it. The oracle knows which cell to test and every offset: its estimate is the
    mean of (score - expected score without bias) over the cell's scored attempts that
    did not crash (it knows the crash process: scores at most the crash maximum); it
    finds the shift when that estimate is beyond `threshold` in the planted direction.
    No test of significance: the best any verdict that needs the effect to exceed the
    threshold can do."""
    from challenge_fairness import demo

    challenge_ids, agent_ids, expected = expected_scores(platform.spec)
    tables = platform.tables
    attempts = tables["attempts"]
    challenge_idx = pc.index_in(
        attempts.column("challenge_id"), value_set=pa.array(challenge_ids)
    ).to_numpy(zero_copy_only=False)
    agent_idx = pc.index_in(attempts.column("agent_id"), value_set=pa.array(agent_ids)).to_numpy(
        zero_copy_only=False
    )
    model_idx = pc.index_in(
        tables["agents"].column("model_id"), value_set=tables["models"].column("model_id")
    )
    agent_family = (
        tables["models"].column("model_family").take(model_idx).to_numpy(zero_copy_only=False)
    )
    agent_family = agent_family[
        pc.index_in(pa.array(agent_ids), value_set=tables["agents"].column("agent_id")).to_numpy(
            zero_copy_only=False
        )
    ]
    family = agent_family[agent_idx]
    challenge_pos = {c: i for i, c in enumerate(challenge_ids)}
    score = attempts.column("score").to_numpy(zero_copy_only=False).astype(float)
    residual = score - expected[challenge_idx, agent_idx]
    usable = np.isfinite(score) & (score > demo.CRASH_SCORE_MAX)
    rows = []
    for plant in platform.planted_family_biases.to_pylist():
        cell = (
            usable
            & (challenge_idx == challenge_pos[plant["challenge_id"]])
            & (family == plant["model_family"])
        )
        estimate = float(residual[cell].mean()) if cell.any() else float("nan")
        rows.append(
            {
                **plant,
                "oracle_attempts": int(cell.sum()),
                "oracle_estimate": estimate,
                "is_oracle_found": bool(
                    np.isfinite(estimate)
                    and abs(estimate) > threshold
                    and np.sign(estimate) == np.sign(plant["shift"])
                ),
            }
        )
    return pa.Table.from_pylist(rows)
