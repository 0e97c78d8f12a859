{#
    The config of a scan-stage model (tag `stage:scan`: the models that read the raw tables,
    and the attempt cells; docs/spark.md), given the materialization it has on DuckDB.
    - On a warehouse adapter (Spark), a parquet table at `<scan_stage_dir>/<model>`
      (dbt-spark's `location_root`): the scan runs where the raw data lives.
    - On DuckDB with var `scan_stage_dir` set, a view over those files (macro
      scan_stage_files): the statistics stage reads what the warehouse wrote.
    - Otherwise (the all-DuckDB build) `materialized` itself.
    A view only the scan stage reads (`warehouse_view`: the raw rows of a large table, read
    by the fold that checks them) stays a view on the warehouse: nothing is copied.
    Call it in the model, after its own config(): `{{ scan_stage_config('incremental') }}`.
#}
{% macro scan_stage_config(materialized, warehouse_view=false) -%}
    {%- set scan_stage_dir = var('scan_stage_dir', none) -%}
    {%- if target.type != 'duckdb' and warehouse_view -%}
        {%- do config(materialized='view') -%}
    {%- elif target.type != 'duckdb' -%}
        {%- if scan_stage_dir is none and execute -%}
            {{ exceptions.raise_compiler_error(
                "On " ~ target.type ~ ", set var scan_stage_dir: the folder the scan stage's "
                ~ "tables are written to, which the DuckDB statistics stage reads (docs/spark.md).") }}
        {%- endif -%}
        {#- The table is external: dropping it leaves its files, which the rebuild replaces.
            Timestamps are computed and written in UTC, as DuckDB reads them back. #}
        {%- do config(materialized='table', file_format='parquet',
                      location_root=(scan_stage_dir or '').rstrip('/') or none,
                      pre_hook=['set spark.sql.legacy.allowNonEmptyLocationInCTAS = true',
                                'set spark.sql.session.timeZone = UTC']) -%}
    {%- elif scan_stage_dir is not none -%}
        {%- do config(materialized='view') -%}
    {%- else -%}
        {%- do config(materialized=materialized) -%}
    {%- endif -%}
{%- endmacro %}
