{#
    A relation expression for one raw platform table with a stable `source_row_number`
    (its position in the source), so that every raw row, clean or rejected, can be traced.
    Reads `<raw_parquet_dir>/<table>.parquet` when that var is set, else the dbt source.
#}
{% macro source_rows(table_name) -%}
    {{ return(adapter.dispatch('source_rows', 'challenge_fairness')(table_name)) }}
{%- endmacro %}

{% macro default__source_rows(table_name) -%}
    {%- set relation = source('platform', table_name) -%}
    {%- set parquet_dir = var('raw_parquet_dir', none) -%}
    {%- if parquet_dir -%}
        {{ exceptions.raise_compiler_error(
            "raw_parquet_dir is supported on DuckDB only; on " ~ target.type
            ~ " point the `platform` source at tables instead.") }}
    {%- endif -%}
    (select *, row_number() over () as source_row_number from {{ relation }})
{%- endmacro %}

{% macro duckdb__source_rows(table_name) -%}
    {%- set relation = source('platform', table_name) -%}
    {%- set parquet_dir = var('raw_parquet_dir', none) -%}
    {%- if parquet_dir -%}
        {%- set path = parquet_dir.rstrip('/') ~ '/' ~ table_name ~ '.parquet' -%}
        (
            select * exclude (file_row_number), file_row_number as source_row_number
            from read_parquet('{{ path | replace("'", "''") }}', file_row_number = true)
        )
    {%- else -%}
        (select *, rowid as source_row_number from {{ relation }})
    {%- endif -%}
{%- endmacro %}
