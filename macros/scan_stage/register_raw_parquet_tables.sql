{#
    For a warehouse whose raw platform tables are parquet files (Spark; docs/spark.md), as
    `dbt run-operation register_raw_parquet_tables --target spark --args '{raw_dir: <dir>,
    tables: [attempts, challenges, agents, models, ...], folders: [...]}'`: each
    `<raw_dir>/<table>.parquet` (a file or a folder of part files), or `<raw_dir>/<table>/`
    for a table named in `folders` (parquet files as a lake writes them, Hive partitions
    `<key>=<value>/` allowed), becomes an external table of the raw schema (var
    challenge_fairness_raw_schema), which the platform source reads. Its rows are numbered
    by file path, then row (macro source_rows), as DuckDB numbers a folder's. Raw tables
    that are already tables of the warehouse need no registering. A table registered before is
    replaced; an optional table left out of `tables` stays absent.
#}
{% macro register_raw_parquet_tables(raw_dir, tables, folders=[]) -%}
    {%- if not execute -%}{{ return('') }}{%- endif -%}
    {%- set contract = challenge_fairness.platform_source_columns() -%}
    {%- set unknown = tables | reject('in', contract) | list -%}
    {%- if unknown -%}
        {{ exceptions.raise_compiler_error("register_raw_parquet_tables: not a platform table: "
            ~ unknown | join(', ') ~ " (the tables: " ~ contract.keys() | join(', ') ~ ")") }}
    {%- endif -%}
    {%- set folder = (raw_dir | string).rstrip('/') -%}
    {%- for table_name in tables -%}
        {%- set relation = source('platform', table_name) -%}
        {%- if loop.first -%}
            {%- do run_query('create schema if not exists ' ~ relation.schema) -%}
        {%- endif -%}
        {%- do run_query('drop table if exists ' ~ relation) -%}
        {%- do run_query('create table ' ~ relation ~ ' using parquet location '
            ~ challenge_fairness.sql_string_literal(
                folder ~ '/' ~ table_name ~ ('' if table_name in folders else '.parquet'))) -%}
        {#- Spark infers Hive partitions from the folder but registers none: recover them. -#}
        {%- if table_name in folders -%}
            {%- set described = run_query('describe table ' ~ relation) -%}
            {%- if '# Partition Information' in described.columns[0].values() -%}
                {%- do run_query('msck repair table ' ~ relation) -%}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
    {%- do log('register_raw_parquet_tables: ' ~ tables | join(', ') ~ ' from ' ~ folder, info=true) -%}
    {{ return('') }}
{%- endmacro %}
