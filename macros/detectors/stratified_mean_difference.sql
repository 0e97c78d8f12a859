{# Mantel-Haenszel-weighted mean difference a - b over strata (lists, one element per
   stratum) with a Welch-Satterthwaite t test: a struct (difference, standard_error,
   degrees_of_freedom, t_statistic, p_value, ci_low, ci_high, strata, attempts_a,
   attempts_b, status, reason). #}
{% macro stratified_mean_difference(n_a, mean_a, var_a, n_b, mean_b, var_b, alpha) -%}
    {{ return(adapter.dispatch('stratified_mean_difference', 'challenge_fairness')(
        n_a, mean_a, var_a, n_b, mean_b, var_b, alpha)) }}
{%- endmacro %}

{% macro duckdb__stratified_mean_difference(n_a, mean_a, var_a, n_b, mean_b, var_b, alpha) -%}
    cf_stratified_mean_difference(
        {{ n_a }}, {{ mean_a }}, {{ var_a }}, {{ n_b }}, {{ mean_b }}, {{ var_b }},
        cast({{ alpha }} as double)
    )
{%- endmacro %}

{% macro default__stratified_mean_difference(n_a, mean_a, var_a, n_b, mean_b, var_b, alpha) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("stratified_mean_difference: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}
