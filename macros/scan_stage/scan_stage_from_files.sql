{#
    True when this DuckDB build reads the scan stage (tag `stage:scan`) from the parquet
    files a warehouse wrote under var `scan_stage_dir`, instead of scanning the raw tables.
#}
{% macro scan_stage_from_files() -%}
    {{ return(target.type == 'duckdb' and var('scan_stage_dir', none) is not none) }}
{%- endmacro %}
