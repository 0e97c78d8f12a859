{#
    The raw timestamp expression `column` (column `column_name` of raw table `table_name`)
    as a UTC TIMESTAMP, by one rule (docs/source_contract.md "Time zones"):
    - a value with an offset or zone (TIMESTAMP WITH TIME ZONE, or text such as
      '2026-03-01T12:00:00+02:00', '...Z', '... Europe/Paris') is converted to UTC;
    - a naive value (TIMESTAMP, DATE, text without an offset) is taken as UTC as written;
    - text with no parsable timestamp gives NULL (staging rejects the row:
      submitted_at_not_timestamp).
    Whatever the machine's time zone: the plugin sets DuckDB's TimeZone to UTC for the
    whole instance (challenge_fairness.plugin), so naive text is read as UTC, and a naive
    TIMESTAMP column is cast without any zone.
#}
{% macro utc_timestamp(column, table_name, column_name) -%}
    {{ return(adapter.dispatch('utc_timestamp', 'challenge_fairness')(column, table_name, column_name)) }}
{%- endmacro %}

{% macro default__utc_timestamp(column, table_name, column_name) -%}
    try_cast({{ column }} as timestamp)
{%- endmacro %}

{% macro duckdb__utc_timestamp(column, table_name, column_name) -%}
    {%- set found = challenge_fairness.source_column_type(table_name, column_name) -%}
    {%- if found is none or (found | upper) in ['TIMESTAMP', 'TIMESTAMP_NS', 'TIMESTAMP_MS', 'TIMESTAMP_S', 'DATE'] -%}
        try_cast({{ column }} as timestamp)
    {%- else -%}
        timezone('UTC', try_cast({{ column }} as timestamp with time zone))
    {%- endif -%}
{%- endmacro %}
