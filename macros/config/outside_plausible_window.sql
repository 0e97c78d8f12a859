{#
    True when the date or timestamp expression `column` lies outside the plausible window:
    before var earliest_plausible_timestamp, or after the run date plus var
    plausible_timestamp_days_ahead days. Staging rejects attempts submitted outside it.
#}
{% macro outside_plausible_window(column) -%}
    ({{ column }} < cast({{ challenge_fairness.sql_string_literal(var('earliest_plausible_timestamp') | string) }} as timestamp)
        or {{ column }} >= current_date + {{ (var('plausible_timestamp_days_ahead') | int) + 1 }})
{%- endmacro %}
