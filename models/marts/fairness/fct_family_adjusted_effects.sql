with

flagged as (
    select * from {{ ref('int_family_effects_flagged') }}
    where verdict_window = 'all'
),

raw_deviations as (
    select * from {{ ref('int_family_deviations_measured') }}
),

with_raw_deviations as (
    select
        flagged.*,
        raw_deviations.deviation as raw_deviation
    from flagged
    left join raw_deviations
        on flagged.challenge_id = raw_deviations.challenge_id
        and flagged.model_family = raw_deviations.model_family
)

select
    cast(challenge_id as varchar) as challenge_id,
    cast(model_family as varchar) as model_family,
    cast(attempts as bigint) as attempts,
    cast(mean_score as double) as mean_score,
    cast(raw_deviation as double) as raw_deviation,
    cast(trimmed_mean as double) as trimmed_mean,
    cast(trim_proportion as double) as trim_proportion,
    cast(family_ability as double) as family_ability,
    cast(adjusted_deviation as double) as adjusted_deviation,
    cast(is_left_out_of_fit as boolean) as is_left_out_of_fit,
    cast(reference_excludes_family as varchar) as reference_excludes_family,
    cast(standard_error as double) as standard_error,
    cast(degrees_of_freedom as double) as degrees_of_freedom,
    cast(ci_low as double) as ci_low,
    cast(ci_high as double) as ci_high,
    cast(interval_level as double) as interval_level,
    cast(t_statistic as double) as t_statistic,
    cast(p_value as double) as p_value,
    cast(p_value_sidak as double) as p_value_sidak,
    cast(direction as varchar) as direction,
    cast(is_challenge_tested as boolean) as is_challenge_tested,
    cast(coalesce(is_judged, false) as boolean) as is_judged,
    cast(coalesce(is_significant, false) as boolean) as is_significant,
    cast(is_flagged as boolean) as is_flagged,
    cast(is_within_threshold as boolean) as is_within_threshold
from with_raw_deviations
