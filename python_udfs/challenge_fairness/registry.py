"""The one declarative list of SQL-visible UDFs: name, arrow adapter, SQL signature."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from challenge_fairness import udfs


@dataclass(frozen=True)
class UdfSpec:
    """One scalar UDF as DuckDB sees it (arrow-vectorised)."""

    name: str
    function: Callable[..., Any]
    parameters: tuple[str, ...]
    return_type: str


def _struct_sql(fields: dict[str, str]) -> str:
    """SQL STRUCT type from field name -> SQL type."""
    return "STRUCT(" + ", ".join(f"{name} {sql_type}" for name, sql_type in fields.items()) + ")"


UDFS: tuple[UdfSpec, ...] = (
    UdfSpec(
        name="cf_kruskal_wallis",
        function=udfs.kruskal_wallis,
        parameters=("VARCHAR[]", "DOUBLE[]", "BIGINT[]"),
        return_type=_struct_sql(
            {
                "h_statistic": "DOUBLE",
                "p_value": "DOUBLE",
                "groups": "INTEGER",
                "observations": "BIGINT",
                "status": "VARCHAR",
                "reason": "VARCHAR",
            }
        ),
    ),
    UdfSpec(
        name="cf_cohens_d",
        function=udfs.cohens_d,
        parameters=("DOUBLE", "DOUBLE", "DOUBLE", "DOUBLE", "DOUBLE", "DOUBLE"),
        return_type=_struct_sql(
            {"pooled_sd": "DOUBLE", "cohens_d": "DOUBLE", "status": "VARCHAR", "reason": "VARCHAR"}
        ),
    ),
)


def register_udfs(connection: Any) -> None:
    """Register every UDF of the registry on a DuckDB connection (once per instance)."""
    for spec in UDFS:
        connection.create_function(
            spec.name,
            spec.function,
            list(spec.parameters),
            spec.return_type,
            type="arrow",
            null_handling="special",
            side_effects=False,
        )
