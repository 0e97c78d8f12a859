{#
    Mantel-Haenszel DIF of one test case from its (family, score band, passes, failures)
    lists: a struct (gcmh_statistic, gcmh_df, gcmh_p_value, informative_bands, status,
    reason, families), `families` a list of per-family structs (MH odds ratio, D-DIF and SE,
    MH chi-square, ETS class, ...). scipy/numpy underneath (detectors/test_case_bias.py).
#}
{% macro test_case_dif(families, bands, passes, failures, alpha, negligible, large) -%}
    {{ return(adapter.dispatch('test_case_dif', 'challenge_fairness')(
        families, bands, passes, failures, alpha, negligible, large)) }}
{%- endmacro %}

{% macro duckdb__test_case_dif(families, bands, passes, failures, alpha, negligible, large) -%}
    cf_test_case_dif(
        {{ families }}, {{ bands }}, {{ passes }}, {{ failures }},
        cast({{ alpha }} as double), cast({{ negligible }} as double), cast({{ large }} as double)
    )
{%- endmacro %}

{% macro default__test_case_dif(families, bands, passes, failures, alpha, negligible, large) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("test_case_dif: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}
