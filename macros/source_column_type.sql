{#
    The type of `column_name` in the raw table `table_name` as the adapter names it
    (e.g. 'VARCHAR[]' on DuckDB, 'array<string>' on Spark); none at parse time.
#}
{% macro source_column_type(table_name, column_name) -%}
    {%- if not execute -%}{{ return(none) }}{%- endif -%}
    {{ return(adapter.dispatch('source_column_type', 'challenge_fairness')(table_name, column_name)) }}
{%- endmacro %}

{% macro duckdb__source_column_type(table_name, column_name) -%}
    {%- set described = run_query(
        'select column_type from (describe select ' ~ column_name ~ ' from '
        ~ challenge_fairness.source_rows(table_name) ~ ')') -%}
    {{ return(described.rows[0][0]) }}
{%- endmacro %}

{% macro default__source_column_type(table_name, column_name) -%}
    {%- set described = run_query(
        'describe query select ' ~ column_name ~ ' from '
        ~ challenge_fairness.source_rows(table_name) ~ ' as source') -%}
    {{ return(described.rows[0][1]) }}
{%- endmacro %}
