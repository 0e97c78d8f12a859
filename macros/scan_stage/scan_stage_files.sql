{#
    The body of a scan-stage model when DuckDB reads it from the warehouse's files: a select
    over `<scan_stage_dir>/<model>/*.parquet`, the table the warehouse wrote for this model
    (dbt-spark's `location_root`). A timestamp the warehouse wrote as an instant (parquet
    `isAdjustedToUTC`, read by DuckDB as TIMESTAMP WITH TIME ZONE) is read back as the UTC
    wall clock time it stands for: the scan stage's session runs in UTC (scan_stage_config).
#}
{% macro scan_stage_files() -%}
    {%- set path = var('scan_stage_dir').rstrip('/') ~ '/' ~ this.identifier ~ '/*.parquet' -%}
    {%- set files = 'read_parquet(' ~ challenge_fairness.sql_string_literal(path) ~ ')' -%}
    {%- if not execute -%}
        select * from {{ files }}
    {%- else -%}
        {%- set described = run_query('describe select * from ' ~ files) -%}
        select
            {%- for row in described.rows %}
            {%- set column = adapter.quote(row[0]) %}
            {%- if row[1] == 'TIMESTAMP WITH TIME ZONE' %}
            timezone('UTC', {{ column }}) as {{ column }}
            {%- else %}
            {{ column }}
            {%- endif %}{{ ',' if not loop.last }}
            {%- endfor %}
        from {{ files }}
    {%- endif %}
{%- endmacro %}
