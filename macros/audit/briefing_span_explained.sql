{# Whether a briefing explains a locale span (detectors/briefing_text.py span_explained: it
   defines the span; for a unit, the metric quantity or a conversion in the same sentence;
   for a holiday, its date; for a span overlapping an address Google's metadata reads, a
   country it fits named). Applied to the seed rules' matches too. #}
{% macro briefing_span_explained(text, category, position, matched_text) -%}
    {{ return(adapter.dispatch('briefing_span_explained', 'challenge_fairness')(
        text, category, position, matched_text)) }}
{%- endmacro %}

{% macro duckdb__briefing_span_explained(text, category, position, matched_text) -%}
    cf_briefing_span_explained(
        cast({{ text }} as varchar), cast({{ category }} as varchar),
        cast({{ position }} as bigint), cast({{ matched_text }} as varchar)
    )
{%- endmacro %}

{% macro default__briefing_span_explained(text, category, position, matched_text) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("briefing_span_explained: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}
