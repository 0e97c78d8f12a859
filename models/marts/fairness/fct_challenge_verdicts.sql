with

challenges_tested as (
    select * from {{ ref('int_challenges_tested') }}
    where verdict_window = 'all'
),

verdict_rules as (
    select * from {{ ref('int_challenge_verdicts_decided') }}
    where verdict_window = 'all'
),

adjusted_ranks as (
    select * from {{ ref('int_challenge_adjusted_ranks_tested') }}
),

raw_deviations as (
    select * from {{ ref('int_family_deviations_measured') }}
),

raw_kruskal_wallis as (
    select * from {{ ref('int_challenge_raw_ranks_tested') }}
),

raw_effect_sizes as (
    select * from {{ ref('int_family_effect_sizes_measured') }}
),

adjusted_rank_q_values as (
    {{ benjamini_hochberg(
        '(select adjusted_ranks.* from adjusted_ranks inner join challenges_tested'
        ~ ' on adjusted_ranks.challenge_id = challenges_tested.challenge_id'
        ~ " where challenges_tested.eligibility = 'tested')",
        'challenge_id',
        'p_value'
    ) }}
),

raw_deviation_flags as (
    select
        challenge_id,
        max(abs(deviation)) as raw_max_abs_deviation,
        bool_or(is_flagged) as is_raw_deviation_flagged
    from raw_deviations
    group by challenge_id
),

raw_effect_size_flags as (
    select
        challenge_id,
        max(abs(cohens_d)) as raw_max_abs_cohens_d,
        bool_or(is_flagged) as is_raw_effect_size_flagged
    from raw_effect_sizes
    group by challenge_id
),

verdicts as (
    select
        verdict_rules.challenge_id,
        verdict_rules.template_id,
        verdict_rules.attempts,
        verdict_rules.families,
        verdict_rules.smallest_family_attempts,
        verdict_rules.verdict,
        verdict_rules.reason,
        verdict_rules.flagged_families,
        verdict_rules.lead_family,
        verdict_rules.lead_adjusted_deviation,
        verdict_rules.lead_ci_low,
        verdict_rules.lead_ci_high,
        verdict_rules.interval_level,
        verdict_rules.p_value,
        verdict_rules.q_value,
        adjusted_ranks.h_statistic as adjusted_kruskal_wallis_h,
        adjusted_ranks.p_value as adjusted_kruskal_wallis_p,
        adjusted_rank_q_values.q_value as adjusted_kruskal_wallis_q,
        adjusted_ranks.epsilon_squared,
        raw_deviation_flags.raw_max_abs_deviation,
        coalesce(raw_deviation_flags.is_raw_deviation_flagged, false) as is_raw_deviation_flagged,
        raw_kruskal_wallis.p_value as raw_kruskal_wallis_p,
        raw_effect_size_flags.raw_max_abs_cohens_d,
        coalesce(raw_effect_size_flags.is_raw_effect_size_flagged, false)
            as is_raw_effect_size_flagged
    from verdict_rules
    left join adjusted_ranks
        on verdict_rules.challenge_id = adjusted_ranks.challenge_id
    left join adjusted_rank_q_values
        on verdict_rules.challenge_id = adjusted_rank_q_values.challenge_id
    left join raw_kruskal_wallis
        on verdict_rules.challenge_id = raw_kruskal_wallis.challenge_id
    left join raw_deviation_flags
        on verdict_rules.challenge_id = raw_deviation_flags.challenge_id
    left join raw_effect_size_flags
        on verdict_rules.challenge_id = raw_effect_size_flags.challenge_id
)

select
    cast(challenge_id as varchar) as challenge_id,
    cast(template_id as varchar) as template_id,
    cast(verdict as varchar) as verdict,
    cast(reason as varchar) as reason,
    cast(attempts as bigint) as attempts,
    cast(families as bigint) as families,
    cast(smallest_family_attempts as bigint) as smallest_family_attempts,
    cast(coalesce(flagged_families, 0) as bigint) as flagged_families,
    cast(lead_family as varchar) as lead_family,
    cast(lead_adjusted_deviation as double) as lead_adjusted_deviation,
    cast(lead_ci_low as double) as lead_ci_low,
    cast(lead_ci_high as double) as lead_ci_high,
    cast(interval_level as double) as interval_level,
    cast(p_value as double) as p_value,
    cast(q_value as double) as q_value,
    cast(adjusted_kruskal_wallis_h as double) as adjusted_kruskal_wallis_h,
    cast(adjusted_kruskal_wallis_p as double) as adjusted_kruskal_wallis_p,
    cast(adjusted_kruskal_wallis_q as double) as adjusted_kruskal_wallis_q,
    cast(epsilon_squared as double) as epsilon_squared,
    cast(raw_max_abs_deviation as double) as raw_max_abs_deviation,
    cast(is_raw_deviation_flagged as boolean) as is_raw_deviation_flagged,
    cast(raw_kruskal_wallis_p as double) as raw_kruskal_wallis_p,
    cast(raw_max_abs_cohens_d as double) as raw_max_abs_cohens_d,
    cast(is_raw_effect_size_flagged as boolean) as is_raw_effect_size_flagged
from verdicts
