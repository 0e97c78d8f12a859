"""Bias detectors beyond the core verdict, one module each.

A detector module keeps its pure statistics (numpy/scipy, no duckdb or dbt), its arrow
adapters, and a ``UDFS`` tuple of ``registry.UdfSpec`` for the SQL-visible functions it
needs; ``registry.all_udfs()`` collects them, so adding a detector touches no shared file.
"""
