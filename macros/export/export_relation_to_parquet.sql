{# Writes every row of `relation` to the parquet file `path` (replacing it). #}
{% macro export_relation_to_parquet(relation, path) -%}
    {{ return(adapter.dispatch('export_relation_to_parquet', 'challenge_fairness')(relation, path)) }}
{%- endmacro %}

{% macro default__export_relation_to_parquet(relation, path) -%}
    {{ exceptions.raise_compiler_error(
        "export_relation_to_parquet: no parquet export for adapter " ~ target.type) }}
{%- endmacro %}

{% macro duckdb__export_relation_to_parquet(relation, path) -%}
    {%- do run_query(
        "copy (select * from " ~ relation ~ ") to '" ~ (path | replace("'", "''"))
        ~ "' (format parquet)") -%}
{%- endmacro %}
