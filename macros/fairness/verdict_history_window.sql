{#
    The time windows of the verdict history (fct_challenge_verdict_history). The grain is
    the var `verdict_history_window`: 'week' (ISO weeks, from Monday), 'month' or
    'quarter'; anything else is a compile error.
#}

{# The validated window grain. #}
{% macro verdict_history_window() -%}
    {%- set grain = challenge_fairness.validated_var('verdict_history_window') | string | lower | trim -%}
    {%- if grain not in ['week', 'month', 'quarter'] -%}
        {{ exceptions.raise_compiler_error(
            "verdict_history_window must be 'week', 'month' or 'quarter', got '"
            ~ var('verdict_history_window') ~ "'") }}
    {%- endif -%}
    {{ return(grain) }}
{%- endmacro %}

{# The first day (a date) of the window holding `timestamp`. #}
{% macro verdict_window_start(timestamp) -%}
    {{ return(adapter.dispatch('verdict_window_start', 'challenge_fairness')(timestamp)) }}
{%- endmacro %}

{% macro default__verdict_window_start(timestamp) -%}
    cast(date_trunc('{{ verdict_history_window() }}', {{ timestamp }}) as date)
{%- endmacro %}

{# The key of the window starting on the date `window_start` in the verdict chain's
   verdict_window column ('YYYY-MM-DD'; the all-time window is 'all'). #}
{% macro verdict_window_key(window_start) -%}
    cast({{ window_start }} as varchar)
{%- endmacro %}

{# The first day after the window starting on `window_start` (exclusive end, a date). #}
{% macro verdict_window_end(window_start) -%}
    {{ return(adapter.dispatch('verdict_window_end', 'challenge_fairness')(window_start)) }}
{%- endmacro %}

{% macro default__verdict_window_end(window_start) -%}
    cast({{ window_start }} + {{ _verdict_window_interval() }} as date)
{%- endmacro %}

{# A list of every window start from `first_start` to `last_start` (dates, inclusive). #}
{% macro verdict_window_starts(first_start, last_start) -%}
    {{ return(adapter.dispatch('verdict_window_starts', 'challenge_fairness')(
        first_start, last_start)) }}
{%- endmacro %}

{% macro duckdb__verdict_window_starts(first_start, last_start) -%}
    generate_series(
        cast({{ first_start }} as timestamp),
        cast({{ last_start }} as timestamp),
        {{ _verdict_window_interval() }}
    )
{%- endmacro %}

{% macro default__verdict_window_starts(first_start, last_start) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("verdict_window_starts: not implemented for " ~ target.type) }}{% endif %}
{%- endmacro %}

{% macro _verdict_window_interval() -%}
    interval '{{ {"week": "7 days", "month": "1 month", "quarter": "3 months"}[verdict_history_window()] }}'
{%- endmacro %}

{# One row per (verdict window, challenge): every challenge of `challenges` in the window
   'all' and in every window of `windows` (int_verdict_windows_spined). A query. #}
{% macro verdict_challenge_windows(challenges, windows) -%}
with

verdict_windows as (
    select 'all' as verdict_window
    union all
    select verdict_window from {{ windows }}
)

select
    verdict_windows.verdict_window,
    challenges.challenge_id
from {{ challenges }} as challenges
cross join verdict_windows
{%- endmacro %}
