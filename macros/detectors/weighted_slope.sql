{# Weighted least-squares line of y on x (lists, one element per point), weights w: a struct
   (slope, intercept, standard_error, degrees_of_freedom, points, status, reason). #}
{% macro weighted_slope(x, y, weights) -%}
    {{ return(adapter.dispatch('weighted_slope', 'challenge_fairness')(x, y, weights)) }}
{%- endmacro %}

{% macro duckdb__weighted_slope(x, y, weights) -%}
    cf_weighted_slope({{ x }}, {{ y }}, {{ weights }})
{%- endmacro %}

{% macro default__weighted_slope(x, y, weights) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("weighted_slope: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}
