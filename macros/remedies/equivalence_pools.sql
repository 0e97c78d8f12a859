{# Greedy 1-D pools of a list of difficulties (easiest first), each spanning at most
   `tolerance`: a BIGINT[] of pool numbers aligned with the list (1 = easiest pool). #}
{% macro equivalence_pools(difficulties, tolerance) -%}
    {{ return(adapter.dispatch('equivalence_pools', 'challenge_fairness')(difficulties, tolerance)) }}
{%- endmacro %}

{% macro duckdb__equivalence_pools(difficulties, tolerance) -%}
    cf_equivalence_pools({{ difficulties }}, cast({{ tolerance }} as double))
{%- endmacro %}

{% macro default__equivalence_pools(difficulties, tolerance) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("equivalence_pools: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}
