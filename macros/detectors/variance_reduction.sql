{# Reduction 1 - var_B / var_A of the cross-family variance of family means with a
   seeded percentile bootstrap (1 - 2 alpha) interval, from compressed scores per
   (arm 'A'/'B', family, score): a struct (variance_a, variance_b, reduction, ci_low,
   ci_high, families, status, reason). `key` (the experiment id) seeds its own stream. #}
{% macro variance_reduction(key, arms, families, scores, counts, resamples, alpha, seed) -%}
    {{ return(adapter.dispatch('variance_reduction', 'challenge_fairness')(
        key, arms, families, scores, counts, resamples, alpha, seed)) }}
{%- endmacro %}

{% macro duckdb__variance_reduction(key, arms, families, scores, counts, resamples, alpha, seed) -%}
    cf_variance_reduction(
        cast({{ key }} as varchar), cast({{ arms }} as varchar[]), cast({{ families }} as varchar[]),
        cast({{ scores }} as double[]), cast({{ counts }} as bigint[]),
        cast({{ resamples }} as bigint), cast({{ alpha }} as double), cast({{ seed }} as bigint)
    )
{%- endmacro %}

{% macro default__variance_reduction(key, arms, families, scores, counts, resamples, alpha, seed) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("variance_reduction: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}
