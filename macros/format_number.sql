{# A number as text for reason sentences: printf-style `pattern`, e.g. '%+.1f'. #}
{% macro format_number(expression, pattern) -%}
    {{ return(adapter.dispatch('format_number', 'challenge_fairness')(expression, pattern)) }}
{%- endmacro %}

{% macro default__format_number(expression, pattern) -%}
    format_string('{{ pattern }}', {{ expression }})
{%- endmacro %}

{% macro duckdb__format_number(expression, pattern) -%}
    printf('{{ pattern }}', {{ expression }})
{%- endmacro %}
