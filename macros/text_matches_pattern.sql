{# True when `text` contains a match of the regular expression `pattern` (RE2 on DuckDB). #}
{% macro text_matches_pattern(text, pattern) -%}
    {{ return(adapter.dispatch('text_matches_pattern', 'challenge_fairness')(text, pattern)) }}
{%- endmacro %}

{% macro default__text_matches_pattern(text, pattern) -%}
    regexp_like({{ text }}, {{ pattern }})
{%- endmacro %}

{% macro duckdb__text_matches_pattern(text, pattern) -%}
    regexp_matches({{ text }}, {{ pattern }})
{%- endmacro %}
