{# The test-code lint of one test case (its source, language or NULL, and its challenge's
   briefing or NULL; python_udfs/challenge_fairness/test_code_lint.py): a struct (status,
   reason, language, is_language_inferred, interface_style, findings: a list of (category,
   line, snippet, message, suggested_rewrite)). #}
{% macro lint_test_code(test_code, language, briefing_text) -%}
    {{ return(adapter.dispatch('lint_test_code', 'challenge_fairness')(
        test_code, language, briefing_text)) }}
{%- endmacro %}

{% macro duckdb__lint_test_code(test_code, language, briefing_text) -%}
    cf_lint_test_code(
        cast({{ test_code }} as varchar), cast({{ language }} as varchar),
        cast({{ briefing_text }} as varchar)
    )
{%- endmacro %}

{% macro default__lint_test_code(test_code, language, briefing_text) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("lint_test_code: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}
