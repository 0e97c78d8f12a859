"""The one declarative list of SQL-visible UDFs: name, arrow adapter, SQL signature.

Return types are derived from the adapters' arrow types, so the two cannot drift apart.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from challenge_fairness import udfs

_SCALAR_SQL_TYPES = {
    pa.float64(): "DOUBLE",
    pa.int64(): "BIGINT",
    pa.int32(): "INTEGER",
    pa.string(): "VARCHAR",
    pa.bool_(): "BOOLEAN",
}


def sql_type(arrow_type: pa.DataType) -> str:
    """The DuckDB SQL spelling of an arrow type (scalars, structs, lists)."""
    if pa.types.is_struct(arrow_type):
        fields = ", ".join(f"{field.name} {sql_type(field.type)}" for field in arrow_type)
        return f"STRUCT({fields})"
    if pa.types.is_list(arrow_type):
        return f"{sql_type(arrow_type.value_type)}[]"
    return _SCALAR_SQL_TYPES[arrow_type]


@dataclass(frozen=True)
class UdfSpec:
    """One scalar UDF as DuckDB sees it (arrow-vectorised)."""

    name: str
    function: Callable[..., Any]
    parameters: tuple[str, ...]
    returns: pa.DataType

    @property
    def return_type(self) -> str:
        return sql_type(self.returns)


COMPRESSED_SCORES = ("VARCHAR[]", "DOUBLE[]", "BIGINT[]")

UDFS: tuple[UdfSpec, ...] = (
    UdfSpec("cf_kruskal_wallis", udfs.kruskal_wallis, COMPRESSED_SCORES, udfs.KRUSKAL_WALLIS_TYPE),
    UdfSpec("cf_dunn", udfs.dunn, COMPRESSED_SCORES, pa.list_(udfs.DUNN_TYPE)),
    UdfSpec("cf_cohens_d", udfs.cohens_d, ("DOUBLE",) * 6, udfs.COHENS_D_TYPE),
    UdfSpec("cf_hedges_g", udfs.hedges_g, ("DOUBLE",) * 4, udfs.HEDGES_G_TYPE),
    UdfSpec(
        "cf_trimmed_cell",
        udfs.trimmed_cell,
        ("DOUBLE[]", "BIGINT[]", "DOUBLE"),
        udfs.TRIMMED_CELL_TYPE,
    ),
    UdfSpec("cf_contrast_test", udfs.contrast_test, ("DOUBLE",) * 5, udfs.CONTRAST_TEST_TYPE),
    UdfSpec(
        "cf_benjamini_hochberg", udfs.benjamini_hochberg, ("DOUBLE[]",), pa.list_(pa.float64())
    ),
    UdfSpec(
        "cf_attempts_needed",
        udfs.attempts_needed,
        ("BIGINT[]", "DOUBLE[]", "DOUBLE[]") + ("DOUBLE",) * 8,
        udfs.ATTEMPTS_NEEDED_TYPE,
    ),
)


def all_udfs() -> tuple[UdfSpec, ...]:
    """The core UDFs and those of every module in ``challenge_fairness.detectors``."""
    from challenge_fairness import detectors

    specs = list(UDFS)
    for module_info in sorted(pkgutil.iter_modules(detectors.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{detectors.__name__}.{module_info.name}")
        specs.extend(getattr(module, "UDFS", ()))
    names = [spec.name for spec in specs]
    duplicated = sorted({name for name in names if names.count(name) > 1})
    if duplicated:
        raise ValueError(f"UDF names registered twice: {duplicated}")
    return tuple(specs)


def register_udfs(connection: Any) -> None:
    """Register every UDF (core and detectors) on a DuckDB connection (once per instance)."""
    for spec in all_udfs():
        connection.create_function(
            spec.name,
            spec.function,
            list(spec.parameters),
            spec.return_type,
            type="arrow",
            null_handling="special",
            side_effects=False,
        )
