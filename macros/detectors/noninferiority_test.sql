{# Wald non-inferiority test of H0: difference <= -margin: a struct (ci_low, ci_high,
   p_value), interval (1 - 2 alpha). #}
{% macro noninferiority_test(difference, standard_error, margin, alpha) -%}
    {{ return(adapter.dispatch('noninferiority_test', 'challenge_fairness')(
        difference, standard_error, margin, alpha)) }}
{%- endmacro %}

{% macro duckdb__noninferiority_test(difference, standard_error, margin, alpha) -%}
    cf_noninferiority_test(
        cast({{ difference }} as double), cast({{ standard_error }} as double),
        cast({{ margin }} as double), cast({{ alpha }} as double)
    )
{%- endmacro %}

{% macro default__noninferiority_test(difference, standard_error, margin, alpha) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("noninferiority_test: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}
