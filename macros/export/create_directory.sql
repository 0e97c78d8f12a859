{# Creates the folder `path` and its missing parents (an existing folder is left as it is). #}
{% macro create_directory(path) -%}
    {{ return(adapter.dispatch('create_directory', 'challenge_fairness')(path)) }}
{%- endmacro %}

{% macro default__create_directory(path) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("create_directory: not implemented for adapter " ~ target.type) }}{% endif %}
{%- endmacro %}

{#
    DuckDB has no mkdir, but a partitioned COPY creates its target folder (one level, keeping
    what is there with overwrite_or_ignore) and writes no file when it has no rows.
#}
{% macro duckdb__create_directory(path) -%}
    {%- set parts = path.replace('\\', '/').split('/') -%}
    {%- for index in range(1, parts | length + 1) -%}
        {%- set prefix = parts[:index] | join('/') -%}
        {%- if parts[index - 1] not in ('', '.', '..') -%}
            {%- do run_query(
                "copy (select 1 as partition_key, 1 as placeholder where false) to '"
                ~ (prefix | replace("'", "''"))
                ~ "' (format parquet, partition_by (partition_key), overwrite_or_ignore)") -%}
        {%- endif -%}
    {%- endfor -%}
{%- endmacro %}
