{#
    A SQL expression that stops the query with `message` (a SQL text expression) when it
    is evaluated: put it where only a row that must not exist reaches it. Engine-specific,
    hence dispatched: DuckDB error(), Spark raise_error().
#}
{% macro sql_error(message) -%}
    {{- return(adapter.dispatch('sql_error', 'challenge_fairness')(message)) -}}
{%- endmacro %}

{% macro default__sql_error(message) -%}
    {{- exceptions.raise_compiler_error(
        "sql_error: no way to stop a query with an error is known on " ~ target.type) -}}
{%- endmacro %}

{% macro duckdb__sql_error(message) -%}
    error({{ message }})
{%- endmacro %}

{% macro spark__sql_error(message) -%}
    raise_error({{ message }})
{%- endmacro %}
