{# One row: whether the approach-bias detector had its input (attempts.approach), and how
   many scored labelled attempts it analysed. #}
{%- set has_column = 'approach' in source_column_names('attempts') %}
with

approaches as (
    select * from {{ ref('stg_platform__attempt_approaches') }}
),

strata as (
    select * from {{ ref('int_approach_strata_summarised') }}
),

counted as (
    select
        {{ 'true' if has_column else 'false' }} as has_column,
        (select count(*) from approaches) as labelled_attempts,
        (select coalesce(sum(scored_attempts), 0) from strata) as scored_labelled_attempts
),

covered as (
    select
        'approach_bias' as detector,
        has_column and labelled_attempts > 0 as is_available,
        case
            when not has_column then 'attempts.approach: column absent'
            when labelled_attempts = 0 then 'attempts.approach: no labelled attempt'
        end as missing_inputs,
        scored_labelled_attempts as rows_analysed
    from counted
)

select
    cast(detector as varchar) as detector,
    cast(is_available as boolean) as is_available,
    cast(missing_inputs as varchar) as missing_inputs,
    cast(rows_analysed as bigint) as rows_analysed
from covered
