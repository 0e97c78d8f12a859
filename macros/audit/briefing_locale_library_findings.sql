{# The library locale findings of a briefing (detectors/briefing_text.py): a list of structs
   (rule_id, category, source, matched_text, match_position, description,
   suggested_neutral_form), unexplained spans only, in text order. #}
{% macro briefing_locale_library_findings(text) -%}
    {{ return(adapter.dispatch('briefing_locale_library_findings', 'challenge_fairness')(text)) }}
{%- endmacro %}

{% macro duckdb__briefing_locale_library_findings(text) -%}
    cf_briefing_locale_findings(cast({{ text }} as varchar))
{%- endmacro %}

{% macro default__briefing_locale_library_findings(text) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("briefing_locale_library_findings: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}
