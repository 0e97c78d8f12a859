{# Equal-weight mean of per-group estimates (lists of estimates, standard errors, degrees of
   freedom) with a t test: a struct (estimate, standard_error, degrees_of_freedom,
   variance_source, t_statistic, p_value, ci_low, ci_high, components, status, reason). #}
{% macro mean_of_estimates(estimates, standard_errors, degrees_of_freedom, alpha) -%}
    {{ return(adapter.dispatch('mean_of_estimates', 'challenge_fairness')(
        estimates, standard_errors, degrees_of_freedom, alpha)) }}
{%- endmacro %}

{% macro duckdb__mean_of_estimates(estimates, standard_errors, degrees_of_freedom, alpha) -%}
    cf_mean_of_estimates(
        {{ estimates }}, {{ standard_errors }}, {{ degrees_of_freedom }}, cast({{ alpha }} as double)
    )
{%- endmacro %}

{% macro default__mean_of_estimates(estimates, standard_errors, degrees_of_freedom, alpha) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("mean_of_estimates: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}
