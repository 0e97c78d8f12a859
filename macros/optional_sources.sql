{#
    Optional inputs: tables (e.g. test_cases) and columns (e.g. attempts.approach) that a
    platform may not provide. A model that needs one asks first and builds empty (saying
    so in fct_detector_coverage) instead of failing. Answers are looked up when the model
    runs (at parse time every optional input counts as absent).
#}

{# True when the raw table `table_name` exists (table in the raw schema, parquet file or folder). #}
{% macro source_table_exists(table_name) -%}
    {%- if challenge_fairness.scan_stage_from_files() -%}
        {{ return(challenge_fairness._scan_stage_source_columns(table_name) is not none) }}
    {%- endif -%}
    {{ return(adapter.dispatch('source_table_exists', 'challenge_fairness')(table_name)) }}
{%- endmacro %}

{% macro default__source_table_exists(table_name) -%}
    {%- if not execute -%}{{ return(false) }}{%- endif -%}
    {%- set relation = source('platform', table_name) -%}
    {%- set found = adapter.get_relation(
        database=relation.database, schema=relation.schema, identifier=relation.identifier) -%}
    {{ return(found is not none) }}
{%- endmacro %}

{% macro duckdb__source_table_exists(table_name) -%}
    {%- if not execute -%}{{ return(false) }}{%- endif -%}
    {%- if var('raw_parquet_dir', none) -%}
        {{ return(challenge_fairness.raw_parquet_location(table_name) is not none) }}
    {%- endif -%}
    {{ return(default__source_table_exists(table_name)) }}
{%- endmacro %}


{# Lower-cased column names of the raw table `table_name` ([] when it does not exist). #}
{% macro source_column_names(table_name) -%}
    {%- if not execute or not source_table_exists(table_name) -%}{{ return([]) }}{%- endif -%}
    {%- if challenge_fairness.scan_stage_from_files() -%}
        {{ return(challenge_fairness._scan_stage_source_columns(table_name).split(',')) }}
    {%- endif -%}
    {{ return(challenge_fairness.relation_column_names(source_rows(table_name) ~ ' as source')) }}
{%- endmacro %}


{#
    The raw rows of an optional table, or an empty relation with the same typed columns
    when the table is absent. `columns` maps column name -> SQL type.
#}
{% macro optional_source_rows(table_name, columns) -%}
    {#- source() puts the table in the model's lineage even when it is absent (at parse time
        every optional input counts as absent, so it is called here unconditionally). -#}
    {%- set _lineage = source('platform', table_name) -%}
    {%- if source_table_exists(table_name) -%}
        {{ source_rows(table_name) }}
    {%- else -%}
        (
            select
                {%- for column, data_type in columns.items() %}
                cast(null as {{ data_type }}) as {{ column }},
                {%- endfor %}
                cast(null as bigint) as source_row_number
            where false
        )
    {%- endif -%}
{%- endmacro %}


{# `relation_alias.column_name` cast to `data_type` if the raw table has it, else a typed NULL. #}
{% macro optional_column(table_name, column_name, data_type, relation_alias='source') -%}
    {%- if column_name | lower in source_column_names(table_name) -%}
        cast({{ relation_alias }}.{{ column_name }} as {{ data_type }})
    {%- else -%}
        cast(null as {{ data_type }})
    {%- endif -%}
{%- endmacro %}


{#
    A build that reads the scan stage from files (macro scan_stage_from_files) cannot see
    the raw tables: the contract columns of `table_name` (comma-separated, none when the
    table is absent) are read from the warehouse's stg_platform__source_row_counts.
#}
{% macro _scan_stage_source_columns(table_name) -%}
    {%- if not execute -%}{{ return(none) }}{%- endif -%}
    {%- set path = var('scan_stage_dir').rstrip('/') ~ '/stg_platform__source_row_counts/*.parquet' -%}
    {%- set found = run_query(
        'select source_columns from read_parquet(' ~ challenge_fairness.sql_string_literal(path)
        ~ ') where source_table = ' ~ challenge_fairness.sql_string_literal(table_name)) -%}
    {{ return(found.rows[0][0] if found.rows | length > 0 else none) }}
{%- endmacro %}
