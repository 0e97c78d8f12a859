{#
    The type of `column_name` in the raw table `table_name` as the adapter names it
    (e.g. 'VARCHAR[]' on DuckDB, 'array<string>' on Spark); none at parse time.
#}
{% macro source_column_type(table_name, column_name) -%}
    {%- if not execute -%}{{ return(none) }}{%- endif -%}
    {{ return(adapter.dispatch('source_column_type', 'challenge_fairness')(table_name, column_name)) }}
{%- endmacro %}

{#- Looked up once per invocation (macro invocation_cache): staging asks for the type of a
    column where it types it and where it hashes it, and the description plans a scan of
    every file of a folder. -#}
{% macro duckdb__source_column_type(table_name, column_name) -%}
    {%- set cache = challenge_fairness.invocation_cache() -%}
    {%- set key = 'source_column_type:' ~ table_name ~ ':' ~ column_name -%}
    {%- if key not in cache -%}
        {%- set described = run_query(
            'select column_type from (describe select ' ~ column_name ~ ' from '
            ~ challenge_fairness.source_rows(table_name) ~ ')') -%}
        {%- do cache.update({key: described.rows[0][0]}) -%}
    {%- endif -%}
    {{ return(cache[key]) }}
{%- endmacro %}

{% macro default__source_column_type(table_name, column_name) -%}
    {%- set described = run_query(
        'describe query select ' ~ column_name ~ ' from '
        ~ challenge_fairness.source_rows(table_name) ~ ' as source') -%}
    {{ return(described.rows[0][1]) }}
{%- endmacro %}
