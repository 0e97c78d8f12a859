with

family_summaries as (
    select * from {{ ref('int_challenge_families_summarised') }}
    where verdict_window = 'all'
),

scored_families as (
    select * from family_summaries
    where scored_attempts > 0
),

challenge_totals as (
    select
        challenge_id,
        sum(scored_attempts) as challenge_attempts,
        {#- in family order: the same bits on every build #}
        sum(score_sum order by model_family) / sum(scored_attempts) as challenge_mean
    from scored_families
    group by challenge_id
),

deviations as (
    select
        scored_families.challenge_id,
        scored_families.model_family,
        scored_families.scored_attempts as attempts,
        scored_families.unscored_attempts,
        scored_families.mean_score,
        challenge_totals.challenge_attempts,
        challenge_totals.challenge_mean,
        scored_families.mean_score - challenge_totals.challenge_mean as deviation
    from scored_families
    inner join challenge_totals
        on scored_families.challenge_id = challenge_totals.challenge_id
),

{#- Decided on the deviation to 9 decimals: means computed from counts can be an ulp off
    (every family scoring 30.03 from different counts), and that rounding must not give a
    direction, nor push a deviation equal to the threshold over it. #}
flagged as (
    select
        *,
        case
            when round(deviation, 9) > 0 then 'advantage'
            when round(deviation, 9) < 0 then 'disadvantage'
            else 'none'
        end as direction,
        challenge_attempts >= {{ var('min_attempts') }} as is_eligible,
        challenge_attempts >= {{ var('min_attempts') }}
        and round(abs(deviation), 9) > {{ var('family_deviation_threshold') }} as is_flagged
    from deviations
)

select
    cast(challenge_id as varchar) as challenge_id,
    cast(model_family as varchar) as model_family,
    cast(attempts as bigint) as attempts,
    cast(unscored_attempts as bigint) as unscored_attempts,
    cast(mean_score as double) as mean_score,
    cast(challenge_attempts as bigint) as challenge_attempts,
    cast(challenge_mean as double) as challenge_mean,
    cast(deviation as double) as deviation,
    cast(direction as varchar) as direction,
    cast(is_eligible as boolean) as is_eligible,
    cast(is_flagged as boolean) as is_flagged
from flagged
