with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

challenges_tested as (
    select * from {{ ref('int_challenges_tested') }}
),

family_effects as (
    select * from {{ ref('fct_family_adjusted_effects') }}
),

adjusted_ranks as (
    select * from {{ ref('int_challenge_adjusted_ranks_tested') }}
),

raw_deviations as (
    select * from {{ ref('fct_family_deviation') }}
),

raw_kruskal_wallis as (
    select * from {{ ref('fct_family_kruskal_wallis') }}
),

raw_effect_sizes as (
    select * from {{ ref('fct_family_effect_sizes') }}
),

{%- set threshold = var('family_deviation_threshold') %}

described_effects as (
    select
        *,
        'family ' || model_family || ' '
            || {{ format_number('adjusted_deviation', '%+.1f') }} || ' points ('
            || {{ format_number('100 * interval_level', '%.0f') }} || '% CI '
            || {{ format_number('ci_low', '%+.1f') }} || ' to '
            || {{ format_number('ci_high', '%+.1f') }} || ')' as evidence,
        row_number() over (
            partition by challenge_id
            order by
                is_flagged desc,
                case
                    when is_flagged then abs(adjusted_deviation)
                    else greatest(abs(ci_low), abs(ci_high))
                end desc nulls last,
                model_family
        ) as lead_rank
    from family_effects
),

effect_summaries as (
    select
        challenge_id,
        count(*) filter (where is_flagged) as flagged_families,
        count(*) filter (where not is_within_threshold) as uncertain_families,
        string_agg(evidence, '; ' order by abs(adjusted_deviation) desc)
            filter (where is_flagged) as flagged_evidence,
        max(case when lead_rank = 1 then model_family end) as lead_family,
        max(case when lead_rank = 1 then adjusted_deviation end) as lead_adjusted_deviation,
        max(case when lead_rank = 1 then ci_low end) as lead_ci_low,
        max(case when lead_rank = 1 then ci_high end) as lead_ci_high,
        max(case when lead_rank = 1 then evidence end) as lead_evidence,
        max(interval_level) as interval_level
    from described_effects
    group by challenge_id
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
        challenges.challenge_id,
        challenges.template_id,
        challenges_tested.attempts,
        challenges_tested.families,
        challenges_tested.smallest_family_attempts,
        case
            when challenges_tested.eligibility <> 'tested' then challenges_tested.eligibility
            when effect_summaries.flagged_families > 0 then 'flagged'
            when effect_summaries.uncertain_families > 0 then 'insufficient_evidence'
            else 'pass'
        end as verdict,
        case
            when challenges_tested.eligibility <> 'tested' then challenges_tested.eligibility_reason
            when effect_summaries.flagged_families > 0 then
                effect_summaries.flagged_evidence
                || ' against the other families, beyond what ability elsewhere predicts;'
                || ' significant after FDR control (q = '
                || {{ format_number('challenges_tested.q_value', '%.2g') }}
                || ' < alpha = {{ var("alpha") }}) and larger than family_deviation_threshold = {{ threshold }}'
            when effect_summaries.uncertain_families > 0 then
                'no family is significantly beyond the threshold, but '
                || effect_summaries.lead_evidence
                || ' could exceed family_deviation_threshold = {{ threshold }}: more attempts needed'
            else
                'every family is within family_deviation_threshold = {{ threshold }} of the others'
                || ' after ability adjustment, with confidence (largest: '
                || effect_summaries.lead_evidence || '; q = '
                || {{ format_number('challenges_tested.q_value', '%.2g') }} || ')'
        end as reason,
        effect_summaries.flagged_families,
        effect_summaries.lead_family,
        effect_summaries.lead_adjusted_deviation,
        effect_summaries.lead_ci_low,
        effect_summaries.lead_ci_high,
        coalesce(effect_summaries.interval_level, 1 - {{ var('alpha') }}) as interval_level,
        challenges_tested.p_value,
        challenges_tested.q_value,
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
    from challenges
    inner join challenges_tested
        on challenges.challenge_id = challenges_tested.challenge_id
    left join effect_summaries
        on challenges.challenge_id = effect_summaries.challenge_id
    left join adjusted_ranks
        on challenges.challenge_id = adjusted_ranks.challenge_id
    left join adjusted_rank_q_values
        on challenges.challenge_id = adjusted_rank_q_values.challenge_id
    left join raw_kruskal_wallis
        on challenges.challenge_id = raw_kruskal_wallis.challenge_id
    left join raw_deviation_flags
        on challenges.challenge_id = raw_deviation_flags.challenge_id
    left join raw_effect_size_flags
        on challenges.challenge_id = raw_effect_size_flags.challenge_id
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
