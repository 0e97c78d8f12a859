{# TOST of an estimate (e.g. a member's difference from its pool centre) within
   (-margin, margin) at level alpha from its standard error and degrees of freedom: a struct
   (ci_low, ci_high, p_value_lower, p_value_upper, p_value), interval (1 - 2 alpha). #}
{% macro equivalence_to_centre(estimate, standard_error, degrees_of_freedom, margin, alpha) -%}
    {{ return(adapter.dispatch('equivalence_to_centre', 'challenge_fairness')(
        estimate, standard_error, degrees_of_freedom, margin, alpha)) }}
{%- endmacro %}

{% macro duckdb__equivalence_to_centre(estimate, standard_error, degrees_of_freedom, margin, alpha) -%}
    cf_equivalence_to_centre(
        cast({{ estimate }} as double), cast({{ standard_error }} as double),
        cast({{ degrees_of_freedom }} as double), cast({{ margin }} as double),
        cast({{ alpha }} as double)
    )
{%- endmacro %}

{% macro default__equivalence_to_centre(estimate, standard_error, degrees_of_freedom, margin, alpha) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("equivalence_to_centre: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}
