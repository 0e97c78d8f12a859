{#
    A 64-bit hash of one or more column expressions (`columns`: a list), NULLs included:
    the grouping and comparison key of key_duplicates, so that no key string is built for a
    composite key. DuckDB's hash(); Spark SQL's xxhash64() by default (both take several
    arguments). An adapter without a 64-bit multi-argument hash overrides <adapter>__row_hash.
#}
{% macro row_hash(columns) -%}
    {{ return(adapter.dispatch('row_hash', 'challenge_fairness')(columns)) }}
{%- endmacro %}

{% macro default__row_hash(columns) -%}
    xxhash64({{ columns | join(', ') }})
{%- endmacro %}

{% macro duckdb__row_hash(columns) -%}
    hash({{ columns | join(', ') }})
{%- endmacro %}
