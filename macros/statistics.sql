{#
    SQL entry points of the statistics UDFs. On DuckDB they call the Python UDFs that the
    challenge_fairness dbt-duckdb plugin registers (scipy/numpy underneath); another adapter
    needs its own implementation (e.g. a pandas UDF on Spark) behind the same macro.
#}

{# Kruskal-Wallis H by group on compressed scores: a struct
   (h_statistic, p_value, groups, observations, status, reason). #}
{% macro kruskal_wallis(groups, values, counts) -%}
    {{ return(adapter.dispatch('kruskal_wallis', 'challenge_fairness')(groups, values, counts)) }}
{%- endmacro %}

{% macro duckdb__kruskal_wallis(groups, values, counts) -%}
    cf_kruskal_wallis({{ groups }}, {{ values }}, {{ counts }})
{%- endmacro %}

{% macro default__kruskal_wallis(groups, values, counts) -%}
    {{ exceptions.raise_compiler_error("kruskal_wallis: no UDF for adapter " ~ target.type) }}
{%- endmacro %}


{# Cohen's d (pooled SD, ddof=1) from per-group moments: a struct
   (pooled_sd, cohens_d, status, reason). #}
{% macro cohens_d(n_a, mean_a, variance_a, n_b, mean_b, variance_b) -%}
    {{ return(adapter.dispatch('cohens_d', 'challenge_fairness')(
        n_a, mean_a, variance_a, n_b, mean_b, variance_b)) }}
{%- endmacro %}

{% macro duckdb__cohens_d(n_a, mean_a, variance_a, n_b, mean_b, variance_b) -%}
    cf_cohens_d(
        cast({{ n_a }} as double), {{ mean_a }}, {{ variance_a }},
        cast({{ n_b }} as double), {{ mean_b }}, {{ variance_b }}
    )
{%- endmacro %}

{% macro default__cohens_d(n_a, mean_a, variance_a, n_b, mean_b, variance_b) -%}
    {{ exceptions.raise_compiler_error("cohens_d: no UDF for adapter " ~ target.type) }}
{%- endmacro %}
