{#
    `as {{ materialized_cte() }} (`: a CTE computed once and kept apart (DuckDB's
    `AS MATERIALIZED`), so that a large grouping does not hold its memory while the query
    around it runs. Nothing on engines without the hint (Spark plans CTEs itself).
#}
{% macro materialized_cte() -%}
    {{ return(adapter.dispatch('materialized_cte', 'challenge_fairness')()) }}
{%- endmacro %}

{% macro duckdb__materialized_cte() -%}
    materialized
{%- endmacro %}

{% macro default__materialized_cte() -%}
{%- endmacro %}
