{#
    Difference of two means (a - b) with Welch's t test and (1 - alpha) interval, from
    per-group count, mean and sample variance: a struct (difference, standard_error,
    degrees_of_freedom, t_statistic, p_value, ci_low, ci_high, status, reason).
#}
{% macro welch_difference(n_a, mean_a, variance_a, n_b, mean_b, variance_b, alpha) -%}
    {{ return(adapter.dispatch('welch_difference', 'challenge_fairness')(
        n_a, mean_a, variance_a, n_b, mean_b, variance_b, alpha)) }}
{%- endmacro %}

{% macro duckdb__welch_difference(n_a, mean_a, variance_a, n_b, mean_b, variance_b, alpha) -%}
    cf_welch_difference(
        cast({{ n_a }} as double), cast({{ mean_a }} as double), cast({{ variance_a }} as double),
        cast({{ n_b }} as double), cast({{ mean_b }} as double), cast({{ variance_b }} as double),
        cast({{ alpha }} as double)
    )
{%- endmacro %}

{% macro default__welch_difference(n_a, mean_a, variance_a, n_b, mean_b, variance_b, alpha) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("welch_difference: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}
