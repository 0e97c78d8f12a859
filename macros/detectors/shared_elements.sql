{# How many elements two lists of distinct values have in common (|A n B| of two sets). #}
{% macro shared_elements(list_a, list_b) -%}
    {{ return(adapter.dispatch('shared_elements', 'challenge_fairness')(list_a, list_b)) }}
{%- endmacro %}

{% macro duckdb__shared_elements(list_a, list_b) -%}
    len(list_intersect({{ list_a }}, {{ list_b }}))
{%- endmacro %}

{% macro default__shared_elements(list_a, list_b) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("shared_elements: no implementation for adapter " ~ target.type) }}{% endif %}
{%- endmacro %}
