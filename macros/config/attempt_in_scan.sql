{#
    True when an attempt submitted at the timestamp expression `column` belongs to this
    run's bias scan. Without var bias_scan_date every clean attempt does. With it, the scan
    is as of that date: only attempts submitted on or before it, so a past scan can be
    reproduced after later attempts have arrived. An attempt without a timestamp cannot be
    placed on or before the date and is left out too. Standard SQL (date comparison).
#}
{% macro attempt_in_scan(column) -%}
    {%- set scan_date = var('bias_scan_date', none) -%}
    {%- if scan_date -%}
        coalesce(cast({{ column }} as date) <= cast({{ challenge_fairness.sql_string_literal(scan_date | string) }} as date), false)
    {%- else -%}
        true
    {%- endif -%}
{%- endmacro %}
