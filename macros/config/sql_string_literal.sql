{#
    `value` as a SQL string literal ('editor''s-pick'), or `null` when it is none: the one
    way a text var (a tag, a date, a path) enters SQL. Standard SQL escaping (a quote is
    doubled), which DuckDB follows: a backslash is not an escape in such a literal.
#}
{% macro sql_string_literal(value) -%}
    {%- if value is none -%}
        null
    {%- else -%}
        '{{ value | string | replace("'", "''") }}'
    {%- endif -%}
{%- endmacro %}
