with

family_summaries as (
    select * from {{ ref('int_challenge_families_summarised') }}
    where scored_attempts > 0
),

raw_deviations as (
    select * from {{ ref('fct_family_deviation') }}
),

cells as (
    select * from {{ ref('int_challenge_family_cells_trimmed') }}
),

abilities as (
    select * from {{ ref('int_family_abilities_estimated') }}
),

effects as (
    select * from {{ ref('int_family_effects_adjusted') }}
),

challenges_tested as (
    select * from {{ ref('int_challenges_tested') }}
),

joined as (
    select
        family_summaries.challenge_id,
        family_summaries.model_family,
        family_summaries.scored_attempts as attempts,
        family_summaries.mean_score,
        raw_deviations.deviation as raw_deviation,
        cells.trimmed_mean,
        abilities.ability as family_ability,
        effects.adjusted_deviation,
        effects.standard_error,
        effects.degrees_of_freedom,
        effects.ci_low,
        effects.ci_high,
        effects.t_statistic,
        effects.p_value,
        effects.p_value_sidak,
        challenges_tested.eligibility = 'tested' as is_challenge_tested,
        challenges_tested.eligibility = 'tested'
            and challenges_tested.is_selected
            and effects.p_value_sidak <= challenges_tested.selection_p_cutoff as is_significant
    from family_summaries
    inner join challenges_tested
        on family_summaries.challenge_id = challenges_tested.challenge_id
    left join raw_deviations
        on family_summaries.challenge_id = raw_deviations.challenge_id
        and family_summaries.model_family = raw_deviations.model_family
    left join cells
        on family_summaries.challenge_id = cells.challenge_id
        and family_summaries.model_family = cells.model_family
    left join abilities
        on family_summaries.challenge_id = abilities.challenge_id
        and family_summaries.model_family = abilities.model_family
    left join effects
        on family_summaries.challenge_id = effects.challenge_id
        and family_summaries.model_family = effects.model_family
),

flagged as (
    select
        *,
        case
            when adjusted_deviation > 0 then 'advantage'
            when adjusted_deviation < 0 then 'disadvantage'
            when adjusted_deviation = 0 then 'none'
        end as direction,
        coalesce(is_significant, false)
            and abs(adjusted_deviation) > {{ var('family_deviation_threshold') }} as is_flagged,
        ci_low > -{{ var('family_deviation_threshold') }}
            and ci_high < {{ var('family_deviation_threshold') }} as is_within_threshold
    from joined
)

select
    cast(challenge_id as varchar) as challenge_id,
    cast(model_family as varchar) as model_family,
    cast(attempts as bigint) as attempts,
    cast(mean_score as double) as mean_score,
    cast(raw_deviation as double) as raw_deviation,
    cast(trimmed_mean as double) as trimmed_mean,
    cast(family_ability as double) as family_ability,
    cast(adjusted_deviation as double) as adjusted_deviation,
    cast(standard_error as double) as standard_error,
    cast(degrees_of_freedom as double) as degrees_of_freedom,
    cast(ci_low as double) as ci_low,
    cast(ci_high as double) as ci_high,
    cast(1 - {{ var('alpha') }} as double) as interval_level,
    cast(t_statistic as double) as t_statistic,
    cast(p_value as double) as p_value,
    cast(p_value_sidak as double) as p_value_sidak,
    cast(direction as varchar) as direction,
    cast(is_challenge_tested as boolean) as is_challenge_tested,
    cast(coalesce(is_significant, false) as boolean) as is_significant,
    cast(is_flagged as boolean) as is_flagged,
    cast(is_within_threshold as boolean) as is_within_threshold
from flagged
