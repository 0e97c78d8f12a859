{# One row: whether any A/B experiment has scored attempts in both arms. #}
with

experiments_tested as (
    select * from {{ ref('int_experiments_tested') }}
),

counted as (
    select
        count(*) filter (where arm_a_attempts > 0 and arm_b_attempts > 0) as experiments,
        coalesce(
            sum(arm_a_attempts + arm_b_attempts) filter (
                where arm_a_attempts > 0 and arm_b_attempts > 0
            ),
            0
        ) as attempts
    from experiments_tested
),

covered as (
    select
        'experiment_results' as detector,
        experiments > 0 as is_available,
        case
            when experiments = 0
                then 'no challenge with experiment_id and both arms (A and B) with scored attempts'
        end as missing_inputs,
        attempts as rows_analysed
    from counted
)

select
    cast(detector as varchar) as detector,
    cast(is_available as boolean) as is_available,
    cast(missing_inputs as varchar) as missing_inputs,
    cast(rows_analysed as bigint) as rows_analysed
from covered
