{#
    One row: the date of this run's bias scan. Var `bias_scan_date` ('YYYY-MM-DD') when
    given (the scan is then as of that date: macro attempt_in_scan); by default (null) the
    date of the latest clean attempt, so re-running on the same data files the scan under
    the same date (reproducible, not the wall clock); the build's current date only when
    there are no attempts at all.
#}
{%- set scan_date = var('bias_scan_date', none) %}
with

attempts as (
    select * from {{ ref('int_keyed__attempts') }}
),

{# The latest as the first of a descending sort, not max(): DuckDB then skips the row
   groups whose largest submitted_at is below the latest found so far (0.007 s against
   0.09 to 0.65 s for max() over 100M attempts). NULL when there is none. #}
latest_attempts as (
    select
        cast((
            select attempts.submitted_at
            from attempts
            where attempts.submitted_at is not null
            order by attempts.submitted_at desc
            limit 1
        ) as date) as latest_attempt_date
),

dated as (
    select
        {% if scan_date -%}
        cast({{ sql_string_literal(scan_date) }} as date) as scan_date,
        'var bias_scan_date' as scan_date_source,
        {%- else -%}
        coalesce(latest_attempt_date, current_date) as scan_date,
        case
            when latest_attempt_date is null then 'current date (no attempts)'
            else 'latest clean attempt'
        end as scan_date_source,
        {%- endif %}
        latest_attempt_date
    from latest_attempts
)

select
    cast(scan_date as date) as scan_date,
    cast(scan_date_source as varchar) as scan_date_source,
    cast(latest_attempt_date as date) as latest_attempt_date
from dated
