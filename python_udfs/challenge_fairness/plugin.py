"""dbt-duckdb plugin: registers the challenge_fairness UDFs on every DuckDB instance.

Name it in profiles.yml: ``plugins: [{module: challenge_fairness.plugin}]``.
"""

from __future__ import annotations

from typing import Any

from dbt.adapters.duckdb.plugins import BasePlugin

from challenge_fairness.registry import register_udfs


class Plugin(BasePlugin):
    """Registers the statistics UDFs when dbt-duckdb opens the database."""

    def configure_connection(self, conn: Any) -> None:
        register_udfs(conn)
