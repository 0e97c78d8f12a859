{# One row: whether the verdict history had its input (attempts.submitted_at on clean
   attempts), and how many timestamped clean attempts it analysed. #}
with

window_counts as (
    select * from {{ ref('int_window_attempt_scores_counted') }}
),

counted as (
    select
        coalesce(sum(attempts) filter (where window_start is not null), 0) as timestamped_attempts,
        coalesce(sum(attempts), 0) as clean_attempts
    from window_counts
),

covered as (
    select
        'verdict_history' as detector,
        timestamped_attempts > 0 as is_available,
        case
            when clean_attempts = 0 then 'attempts: no clean attempt'
            when timestamped_attempts = 0 then 'attempts.submitted_at: NULL on every clean attempt'
        end as missing_inputs,
        timestamped_attempts as rows_analysed
    from counted
)

select
    cast(detector as varchar) as detector,
    cast(is_available as boolean) as is_available,
    cast(missing_inputs as varchar) as missing_inputs,
    cast(rows_analysed as bigint) as rows_analysed
from covered
