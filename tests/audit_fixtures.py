"""Fixtures of the briefing and rubric audit: small platforms with known findings.

The demo's audit plants (challenge_fairness.demo AUDIT_PLANTS) on a small platform of
standalone challenges: planted locale strings on ch-s02 and ch-s06, HIPAA without a
definition on ch-s08, GDPR with one on ch-s10, rubric items on every challenge and one
style-worded item (ch-s05-r4) that family llama earns more often at equal score.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
from challenge_fairness.demo import (
    PlatformSpec,
    add_audit_tables,
    generate_platform,
    write_duckdb,
)

AUDIT_SELECTOR = [
    "+path:models/marts/audit",
    "+path:models/intermediate/audit",
    "+fct_source_row_counts",
    "+fct_rejected_rows",
]


def audit_platform(n_attempts: int = 10_000, seed: int = 11) -> tuple[Any, dict[str, Any]]:
    """A 12-challenge platform (standalone only) with the audit's inputs and its truth."""
    platform = generate_platform(
        PlatformSpec(
            seed=seed,
            n_attempts=n_attempts,
            n_templates=0,
            n_standalone_challenges=12,
            planted_family_biases=(),
            planted_hard_combinations=(),
        )
    )
    tables = platform.tables
    agents = tables["agents"].to_pandas().merge(tables["models"].to_pandas(), on="model_id")
    families = list(platform.spec.families)
    family_idx = agents["model_family"].map({f: i for i, f in enumerate(families)}).to_numpy()
    audited, truth = add_audit_tables(
        tables, tables["attempts"], tables["agents"], family_idx, families, seed
    )
    return audited, truth


def write_platform(
    tables: dict[str, pa.Table], database: Path, drop: tuple[str, ...] = ()
) -> None:
    """Write `tables` into raw.<name> of a DuckDB file (leaving out tables/columns in `drop`:
    'rubric_items', 'challenges.briefing_text', ...)."""
    from challenge_fairness.demo import Platform

    kept = {}
    for name, table in tables.items():
        if name in drop:
            continue
        for dropped in drop:
            if dropped.startswith(f"{name}."):
                table = table.drop_columns([dropped.split(".", 1)[1]])
        kept[name] = table
    write_duckdb(
        Platform(
            spec=PlatformSpec(),
            tables=kept,
            planted_family_biases=pa.table({}),
            planted_hard_combinations=pa.table({}),
            dirty_rows=pa.table({}),
        ),
        str(database),
    )


def append_rows(database: Path, table: str, rows: list[tuple[Any, ...]]) -> None:
    """Append raw rows (bad ones, for the reject tests) to raw.<table>."""
    with duckdb.connect(str(database)) as connection:
        placeholders = ", ".join("?" * len(rows[0]))
        connection.executemany(f"insert into raw.{table} values ({placeholders})", rows)
