{#
    `value` as a SQL string literal ('editor''s-pick'), or `null` when it is none: the one
    way a text var (a tag, a date, a path) enters SQL. Standard SQL escaping (a quote is
    doubled), which DuckDB follows: a backslash is not an escape in such a literal.
#}
{% macro sql_string_literal(value) -%}
    {{ return(adapter.dispatch('sql_string_literal', 'challenge_fairness')(value)) }}
{%- endmacro %}

{% macro default__sql_string_literal(value) -%}
    {%- if value is none -%}
        null
    {%- else -%}
        '{{ value | string | replace("'", "''") }}'
    {%- endif -%}
{%- endmacro %}

{#- Spark SQL: a backslash is an escape there, so it is doubled too. #}
{% macro spark__sql_string_literal(value) -%}
    {%- if value is none -%}
        null
    {%- else -%}
        '{{ value | string | replace("\\", "\\\\") | replace("'", "''") }}'
    {%- endif -%}
{%- endmacro %}
