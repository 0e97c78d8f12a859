with

family_summaries as (
    select * from {{ ref('int_challenge_families_summarised') }}
    where verdict_window = 'all'
        and scored_attempts > 0
),

pairs as (
    select
        family_a.challenge_id,
        family_a.model_family as family_a,
        family_b.model_family as family_b,
        family_a.scored_attempts as attempts_a,
        family_a.mean_score as mean_a,
        family_a.variance_score as variance_a,
        family_b.scored_attempts as attempts_b,
        family_b.mean_score as mean_b,
        family_b.variance_score as variance_b
    from family_summaries as family_a
    inner join family_summaries as family_b
        on family_a.challenge_id = family_b.challenge_id
        and family_a.model_family < family_b.model_family
),

measured as (
    select
        *,
        {{ cohens_d('attempts_a', 'mean_a', 'variance_a', 'attempts_b', 'mean_b', 'variance_b') }}
            as effect
    from pairs
),

corrected as (
    select
        *,
        {{ hedges_g('attempts_a', 'attempts_b', 'effect.cohens_d', var('alpha')) }}
            as corrected_effect
    from measured
),

labelled as (
    select
        challenge_id,
        family_a,
        family_b,
        attempts_a,
        mean_a,
        attempts_b,
        mean_b,
        effect.pooled_sd,
        effect.cohens_d,
        corrected_effect.hedges_g,
        corrected_effect.ci_low as hedges_g_ci_low,
        corrected_effect.ci_high as hedges_g_ci_high,
        {#- Classed on |d| to 9 decimals: a d of exactly 0.5 or 0.8 computed an ulp below
            or above (a square root of a pooled variance) keeps its class. #}
        case
            when round(abs(effect.cohens_d), 9) < 0.5 then 'small'
            when round(abs(effect.cohens_d), 9) <= 0.8 then 'medium'
            when round(abs(effect.cohens_d), 9) > 0.8 then 'large'
        end as magnitude,
        coalesce(
            round(abs(effect.cohens_d), 9) > {{ var('effect_size_threshold') }}, false
        ) as is_flagged,
        case when effect.status = 'ok' then 'computed' else 'not_computable' end as status,
        effect.reason
    from corrected
)

select
    cast(challenge_id as varchar) as challenge_id,
    cast(family_a as varchar) as family_a,
    cast(family_b as varchar) as family_b,
    cast(attempts_a as bigint) as attempts_a,
    cast(mean_a as double) as mean_a,
    cast(attempts_b as bigint) as attempts_b,
    cast(mean_b as double) as mean_b,
    cast(pooled_sd as double) as pooled_sd,
    cast(cohens_d as double) as cohens_d,
    cast(hedges_g as double) as hedges_g,
    cast(hedges_g_ci_low as double) as hedges_g_ci_low,
    cast(hedges_g_ci_high as double) as hedges_g_ci_high,
    cast(1 - {{ var('alpha') }} as double) as interval_level,
    cast(magnitude as varchar) as magnitude,
    cast(is_flagged as boolean) as is_flagged,
    cast(status as varchar) as status,
    cast(reason as varchar) as reason
from labelled
