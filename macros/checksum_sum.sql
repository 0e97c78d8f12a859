{#
    The sum of 64-bit hashes (macro row_hash) as an exact checksum of a set of rows. DuckDB
    sums them into a HUGEINT; an engine whose integer sum overflows (Spark under ANSI mode)
    sums them as DECIMAL(38, 0), which holds the sum of 2^64 hashes.
#}
{% macro checksum_sum(hash_expression) -%}
    {{ return(adapter.dispatch('checksum_sum', 'challenge_fairness')(hash_expression)) }}
{%- endmacro %}

{% macro duckdb__checksum_sum(hash_expression) -%}
    sum({{ hash_expression }})
{%- endmacro %}

{% macro default__checksum_sum(hash_expression) -%}
    sum(cast({{ hash_expression }} as decimal(38, 0)))
{%- endmacro %}
