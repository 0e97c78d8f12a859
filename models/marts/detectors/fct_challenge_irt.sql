with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

estimates as (
    select * from {{ ref('int_irt_parameters_estimated') }}
    where entity_kind = 'challenge'
),

calibrated as (
    select
        challenges.challenge_id,
        challenges.template_id,
        coalesce(estimates.attempts, 0) as attempts,
        coalesce(estimates.passes, 0) as passes,
        estimates.passes / nullif(estimates.attempts, 0) as pass_rate,
        coalesce(estimates.counterparts, 0) as agents,
        estimates.discrimination,
        estimates.discrimination_se,
        estimates.discrimination_ci_low,
        estimates.discrimination_ci_high,
        estimates.difficulty,
        estimates.difficulty_se,
        estimates.difficulty_ci_low,
        estimates.difficulty_ci_high,
        1 - {{ var('alpha') }} as interval_level,
        {{ var('irt_pass_score') }} as pass_score,
        coalesce(estimates.fit_status, 'not_estimable') as fit_status,
        case
            when estimates.entity_id is null then 'no scored attempts'
            else estimates.fit_reason
        end as fit_reason
    from challenges
    left join estimates
        on challenges.challenge_id = estimates.entity_id
)

select
    cast(challenge_id as varchar) as challenge_id,
    cast(template_id as varchar) as template_id,
    cast(attempts as bigint) as attempts,
    cast(passes as bigint) as passes,
    cast(pass_rate as double) as pass_rate,
    cast(agents as bigint) as agents,
    cast(discrimination as double) as discrimination,
    cast(discrimination_se as double) as discrimination_se,
    cast(discrimination_ci_low as double) as discrimination_ci_low,
    cast(discrimination_ci_high as double) as discrimination_ci_high,
    cast(difficulty as double) as difficulty,
    cast(difficulty_se as double) as difficulty_se,
    cast(difficulty_ci_low as double) as difficulty_ci_low,
    cast(difficulty_ci_high as double) as difficulty_ci_high,
    cast(interval_level as double) as interval_level,
    cast(pass_score as double) as pass_score,
    cast(fit_status as varchar) as fit_status,
    cast(fit_reason as varchar) as fit_reason
from calibrated
