{# Whether a briefing defines a term (detectors/briefing_text.py is_defined: parentheses,
   apposition, means, is defined as, requires, ...). #}
{% macro briefing_term_defined(text, term) -%}
    {{ return(adapter.dispatch('briefing_term_defined', 'challenge_fairness')(text, term)) }}
{%- endmacro %}

{% macro duckdb__briefing_term_defined(text, term) -%}
    cf_briefing_term_defined(cast({{ text }} as varchar), cast({{ term }} as varchar))
{%- endmacro %}

{% macro default__briefing_term_defined(text, term) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("briefing_term_defined: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}
