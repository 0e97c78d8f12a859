{#
    The Spark path's last step (docs/spark.md), as `dbt run-operation register_public_marts
    --target spark --args '{export_dir: <dir>}'`: every public mart (is_public_mart) that
    the DuckDB statistics stage wrote to `<export_dir>/<mart>.parquet` (var
    parquet_export_dir there) becomes an external parquet table of the warehouse, in the
    schema the mart has on this target, so the warehouse's BI tools read it where they read
    everything else. A table registered before is replaced (its files are the export's).
    A mart with no file (not built by that run) stops the operation, naming it.
#}
{% macro register_public_marts(export_dir) -%}
    {%- if not execute -%}{{ return('') }}{%- endif -%}
    {%- set folder = (export_dir | string).rstrip('/') -%}
    {%- set registered = [] -%}
    {%- for node in graph.nodes.values() | sort(attribute='name')
        if challenge_fairness.is_public_mart(node) -%}
        {%- if registered | length == 0 -%}
            {%- do run_query('create schema if not exists ' ~ node.schema) -%}
        {%- endif -%}
        {%- set relation = api.Relation.create(schema=node.schema, identifier=node.alias) -%}
        {%- do run_query('drop table if exists ' ~ relation) -%}
        {%- do run_query('create table ' ~ relation ~ ' using parquet location '
            ~ challenge_fairness.sql_string_literal(folder ~ '/' ~ node.alias ~ '.parquet')) -%}
        {%- do registered.append(node.alias) -%}
    {%- endfor -%}
    {%- do log('register_public_marts: ' ~ registered | length ~ ' public marts registered from '
        ~ folder ~ ' (' ~ registered | join(', ') ~ ')', info=true) -%}
    {{ return('') }}
{%- endmacro %}
