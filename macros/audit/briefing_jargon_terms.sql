{# The rare terms of a briefing (detectors/briefing_text.py): a list of structs (term,
   match_position, mentions, zipf_frequency, is_acronym, is_defined), rarest first. #}
{% macro briefing_jargon_terms(text, max_zipf, acronym_max_zipf) -%}
    {{ return(adapter.dispatch('briefing_jargon_terms', 'challenge_fairness')(
        text, max_zipf, acronym_max_zipf)) }}
{%- endmacro %}

{% macro duckdb__briefing_jargon_terms(text, max_zipf, acronym_max_zipf) -%}
    cf_briefing_jargon_terms(
        cast({{ text }} as varchar), cast({{ max_zipf }} as double),
        cast({{ acronym_max_zipf }} as double)
    )
{%- endmacro %}

{% macro default__briefing_jargon_terms(text, max_zipf, acronym_max_zipf) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("briefing_jargon_terms: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}
