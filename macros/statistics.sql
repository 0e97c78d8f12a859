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
    {%- if execute %}{{ exceptions.raise_compiler_error("kruskal_wallis: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
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
    {%- if execute %}{{ exceptions.raise_compiler_error("cohens_d: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}


{# Dunn's pairwise tests on compressed scores: a list of structs
   (family_a, family_b, z_statistic, p_value, p_value_holm), Holm within the row. #}
{% macro dunn(groups, values, counts) -%}
    {{ return(adapter.dispatch('dunn', 'challenge_fairness')(groups, values, counts)) }}
{%- endmacro %}

{% macro duckdb__dunn(groups, values, counts) -%}
    cf_dunn({{ groups }}, {{ values }}, {{ counts }})
{%- endmacro %}

{% macro default__dunn(groups, values, counts) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("dunn: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}


{# Hedges' g with a (1 - alpha) interval from n_a, n_b and Cohen's d: a struct
   (hedges_g, ci_low, ci_high). #}
{% macro hedges_g(n_a, n_b, cohens_d, alpha) -%}
    {{ return(adapter.dispatch('hedges_g', 'challenge_fairness')(n_a, n_b, cohens_d, alpha)) }}
{%- endmacro %}

{% macro duckdb__hedges_g(n_a, n_b, cohens_d, alpha) -%}
    cf_hedges_g(cast({{ n_a }} as double), cast({{ n_b }} as double), {{ cohens_d }}, cast({{ alpha }} as double))
{%- endmacro %}

{% macro default__hedges_g(n_a, n_b, cohens_d, alpha) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("hedges_g: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}


{# Yuen trimmed mean of one cell's compressed scores: a struct (observations, trimmed_mean,
   trimmed_mean_variance, effective_n, status, reason). #}
{% macro trimmed_cell(values, counts, trim) -%}
    {{ return(adapter.dispatch('trimmed_cell', 'challenge_fairness')(values, counts, trim)) }}
{%- endmacro %}

{% macro duckdb__trimmed_cell(values, counts, trim) -%}
    cf_trimmed_cell({{ values }}, {{ counts }}, cast({{ trim }} as double))
{%- endmacro %}

{% macro default__trimmed_cell(values, counts, trim) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("trimmed_cell: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}


{# Two-sided t test of an estimate: a struct (t_statistic, p_value, p_value_sidak,
   ci_low, ci_high), p Sidak-adjusted for `comparisons` tests. #}
{% macro contrast_test(estimate, standard_error, degrees_of_freedom, alpha, comparisons) -%}
    {{ return(adapter.dispatch('contrast_test', 'challenge_fairness')(
        estimate, standard_error, degrees_of_freedom, alpha, comparisons)) }}
{%- endmacro %}

{% macro duckdb__contrast_test(estimate, standard_error, degrees_of_freedom, alpha, comparisons) -%}
    cf_contrast_test(
        cast({{ estimate }} as double), cast({{ standard_error }} as double),
        cast({{ degrees_of_freedom }} as double), cast({{ alpha }} as double),
        cast({{ comparisons }} as double)
    )
{%- endmacro %}

{% macro default__contrast_test(estimate, standard_error, degrees_of_freedom, alpha, comparisons) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("contrast_test: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}


{#
    Benjamini-Hochberg q-values across all rows of `relation` with a non-NULL p:
    a select of (<key_column>, q_value). The adjustment needs every p at once, so the
    p-values travel to the UDF as one list and come back as one list.
#}
{% macro benjamini_hochberg(relation, key_column, p_column) -%}
    {{ return(adapter.dispatch('benjamini_hochberg', 'challenge_fairness')(
        relation, key_column, p_column)) }}
{%- endmacro %}

{% macro duckdb__benjamini_hochberg(relation, key_column, p_column) -%}
    select
        unnest(keys) as {{ key_column }},
        unnest(q_values) as q_value
    from (
        select
            list({{ key_column }} order by {{ key_column }}) as keys,
            cf_benjamini_hochberg(list({{ p_column }} order by {{ key_column }})) as q_values
        from {{ relation }}
        where {{ p_column }} is not null
    ) as adjusted
{%- endmacro %}

{% macro default__benjamini_hochberg(relation, key_column, p_column) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("benjamini_hochberg: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}
