{# One row: whether the combination remedies had input (templated challenges with scored
   attempts in a template of two or more measurable combinations) and how many scored
   attempts on templated challenges they analysed. #}
with

difficulties as (
    select * from {{ ref('int_combination_difficulties_measured') }}
),

counted as (
    select
        count(*) as combinations,
        count(*) filter (where status = 'measured') as measured_combinations,
        coalesce(sum(scored_attempts), 0) as scored_attempts
    from difficulties
),

covered as (
    select
        'combination_remedies' as detector,
        measured_combinations > 0 as is_available,
        case
            when combinations = 0
                then 'challenges.variables: no templated challenge (every variables is {})'
            when measured_combinations = 0
                then 'attempts: no template with two or more measurable combinations'
        end as missing_inputs,
        scored_attempts as rows_analysed
    from counted
)

select
    cast(detector as varchar) as detector,
    cast(is_available as boolean) as is_available,
    cast(missing_inputs as varchar) as missing_inputs,
    cast(rows_analysed as bigint) as rows_analysed
from covered
