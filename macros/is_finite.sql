{# True when the double `value` is neither NaN nor infinite (NULL when it is NULL). #}
{% macro is_finite(value) -%}
    {{ return(adapter.dispatch('is_finite', 'challenge_fairness')(value)) }}
{%- endmacro %}

{% macro duckdb__is_finite(value) -%}
    isfinite({{ value }})
{%- endmacro %}

{% macro default__is_finite(value) -%}
    (not isnan({{ value }}) and abs({{ value }}) <> double('infinity'))
{%- endmacro %}
