{# F test of the family x style interaction of one content from its family x style cells
   (lists of family, style, count, mean, within-cell sum of squares): a struct
   (f_statistic, df_interaction, df_residual, p_value, status, reason). #}
{% macro style_interaction_test(families, styles, counts, means, within_ss) -%}
    {{ return(adapter.dispatch('style_interaction_test', 'challenge_fairness')(
        families, styles, counts, means, within_ss)) }}
{%- endmacro %}

{% macro duckdb__style_interaction_test(families, styles, counts, means, within_ss) -%}
    cf_style_interaction_test(
        cast({{ families }} as varchar[]), cast({{ styles }} as varchar[]),
        cast({{ counts }} as bigint[]), cast({{ means }} as double[]), cast({{ within_ss }} as double[])
    )
{%- endmacro %}

{% macro default__style_interaction_test(families, styles, counts, means, within_ss) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("style_interaction_test: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}
