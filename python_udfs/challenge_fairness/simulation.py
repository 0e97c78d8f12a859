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


def redraw_cells(
    platform: Platform, cells: Sequence[tuple[str, str, int, float]], seed: int
) -> dict[str, pa.Table]:
    """The platform's tables with the attempts of each (challenge, family) cell in `cells`
    replaced by `attempts` fresh ones whose expected score is shifted by `shift` points:
    drawn like generate_platform's (the family's agents uniformly, the spec's noise,
    crashes and unscored attempts, clipped and rounded alike, uniform timestamps). The
    other cells are untouched. A cell listed with shift 0 and more attempts than it has
    is topped up with unshifted fresh attempts on top of its own (to grow a fair cell)."""
    from challenge_fairness import demo

    spec = platform.spec
    challenge_ids, agent_ids, expected = expected_scores(spec)
    tables = dict(platform.tables)
    attempts = tables["attempts"]
    agents, models = tables["agents"], tables["models"]
    family_of_model = dict(
        zip(
            models.column("model_id").to_pylist(),
            models.column("model_family").to_pylist(),
            strict=True,
        )
    )
    agent_family = np.array([family_of_model[m] for m in agents.column("model_id").to_pylist()])
    agent_of_attempt = pc.index_in(attempts.column("agent_id"), value_set=agents.column("agent_id"))
    attempt_family = pa.array(agent_family).take(agent_of_attempt)
    rng = np.random.default_rng(seed)
    keep = pa.array(np.ones(attempts.num_rows, dtype=bool))
    fresh = []
    for number, (challenge_id, family, count, shift) in enumerate(cells):
        in_cell = pc.and_(
            pc.equal(attempts.column("challenge_id"), challenge_id),
            pc.equal(attempt_family, family),
        )
        existing = int(pc.sum(pc.cast(in_cell, pa.int64())).as_py() or 0)
        if shift == 0:
            count = max(count - existing, 0)
        else:
            keep = pc.and_(keep, pc.invert(in_cell))
        agent_pool = np.flatnonzero(agent_family == family)
        chosen = rng.choice(agent_pool, size=count)
        score = expected[challenge_ids.index(challenge_id), chosen] + shift
        score = score + rng.standard_normal(count) * spec.noise_sd
        outcome = rng.random(count)
        unscored = outcome < spec.unscored_rate
        crashed = ~unscored & (outcome < spec.unscored_rate + spec.crash_rate)
        score[crashed] = rng.uniform(0.0, demo.CRASH_SCORE_MAX, size=int(crashed.sum()))
        score = np.clip(score, 0.0, 100.0)
        if spec.integer_scores:
            score = np.rint(score)
        start, end = demo.PERIOD_START.astype(np.int64), demo.PERIOD_END.astype(np.int64)
        fresh.append(
            pa.table(
                {
                    "attempt_id": pa.array([f"redrawn-{number}-{i}" for i in range(count)]),
                    "challenge_id": pa.array([challenge_id] * count, pa.string()),
                    "agent_id": pa.array([agent_ids[i] for i in chosen], pa.string()),
                    "score": pa.array(score, pa.float64(), mask=unscored),
                    "submitted_at": pa.array(
                        rng.integers(start, end, size=count).view("datetime64[us]"),
                        pa.timestamp("us"),
                    ),
                },
                schema=attempts.schema,
            )
        )
    tables["attempts"] = pa.concat_tables([attempts.filter(keep), *fresh])
    return tables


def platform_with_tables(platform: Platform, tables: dict[str, pa.Table]) -> Platform:
    """The same platform (spec and truth) with other tables."""
    return dataclasses.replace(platform, tables=tables)
