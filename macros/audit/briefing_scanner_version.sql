{# What the briefing scans are found with (detectors/briefing_text.py, scanner_version): the
   scanner's source digest, its libraries' and Python's versions, and the jargon thresholds. #}
{% macro briefing_scanner_version(max_zipf, acronym_max_zipf) -%}
    {{ return(adapter.dispatch('briefing_scanner_version', 'challenge_fairness')(
        max_zipf, acronym_max_zipf)) }}
{%- endmacro %}

{% macro duckdb__briefing_scanner_version(max_zipf, acronym_max_zipf) -%}
    cf_briefing_scanner_version(cast({{ max_zipf }} as double), cast({{ acronym_max_zipf }} as double))
{%- endmacro %}

{% macro default__briefing_scanner_version(max_zipf, acronym_max_zipf) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("briefing_scanner_version: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}
