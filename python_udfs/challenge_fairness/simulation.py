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
