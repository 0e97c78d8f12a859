{# TOST of mean_b - mean_a within (-margin, margin) from arm moments (Welch): a struct
   (difference, ci_low, ci_high, degrees_of_freedom, p_value_lower, p_value_upper, p_value),
   interval (1 - 2 alpha). #}
{% macro equivalence_test(n_a, mean_a, variance_a, n_b, mean_b, variance_b, margin, alpha) -%}
    {{ return(adapter.dispatch('equivalence_test', 'challenge_fairness')(
        n_a, mean_a, variance_a, n_b, mean_b, variance_b, margin, alpha)) }}
{%- endmacro %}

{% macro duckdb__equivalence_test(n_a, mean_a, variance_a, n_b, mean_b, variance_b, margin, alpha) -%}
    cf_equivalence_test(
        cast({{ n_a }} as double), cast({{ mean_a }} as double), cast({{ variance_a }} as double),
        cast({{ n_b }} as double), cast({{ mean_b }} as double), cast({{ variance_b }} as double),
        cast({{ margin }} as double), cast({{ alpha }} as double)
    )
{%- endmacro %}

{% macro default__equivalence_test(n_a, mean_a, variance_a, n_b, mean_b, variance_b, margin, alpha) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("equivalence_test: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}
