{#
    One row per row of `challenges_tested` (challenge_id plus the partition columns): the
    verdict ('flagged', 'pass', 'insufficient_evidence', 'not_testable') with its reason
    and the lead family's effect, from fairness_challenges_tested and
    fairness_family_effects_flagged on the same partitions; `challenges` supplies
    template_id. The lead family is the flagged one with the largest |effect| (the one the
    other families' contrasts leave out), else the one whose interval reaches furthest
    from 0. A query.
#}
{% macro fairness_challenge_verdicts(
    challenges, challenges_tested, family_effects, partition_by=[]
) -%}
{%- set p = partition_by -%}
{%- set threshold = var('family_deviation_threshold') -%}
with

described_effects as (
    select
        *,
        'family ' || model_family || ' '
            || {{ format_number('adjusted_deviation', '%+.1f') }} || ' points ('
            || {{ format_number('100 * interval_level', '%.0f') }} || '% CI '
            || {{ format_number('ci_low', '%+.1f') }} || ' to '
            || {{ format_number('ci_high', '%+.1f') }} || ')' as evidence,
        {#- rounded, so that floating noise never decides between mirror-image effects
            (two families' contrasts are each other's negatives): the family name does.
            An untested challenge has no intervals: its largest |effect| leads. A flagged
            challenge's lead is the family the others were contrasted without
            (fairness_family_effects_flagged), even where another family's contrast
            against the rest came out larger. #}
        row_number() over (
            partition by {{ _partition_columns(none, p) }}challenge_id
            order by
                is_flagged desc,
                reference_excludes_family is null desc,
                round(case
                    when is_flagged then abs(adjusted_deviation)
                    else greatest(abs(ci_low), abs(ci_high))
                end, 9) desc nulls last,
                round(abs(adjusted_deviation), 9) desc nulls last,
                model_family
        ) as lead_rank,
        {#- No family leads where every effect is 0 (to 9 decimals) and has no interval. #}
        is_flagged
            or ci_low is not null
            or round(abs(adjusted_deviation), 9) > 0 as can_lead
    from {{ family_effects }}
),

effect_summaries as (
    select
        {{ _partition_columns(none, p) }}challenge_id,
        count(*) filter (where is_flagged) as flagged_families,
        count(adjusted_deviation) as compared_families,
        count(*) filter (where not is_within_threshold) as uncertain_families,
        string_agg(evidence, '; ' order by round(abs(adjusted_deviation), 9) desc, model_family)
            filter (where is_flagged) as flagged_evidence,
        max(case when lead_rank = 1 and can_lead then model_family end) as lead_family,
        max(case when lead_rank = 1 and can_lead then adjusted_deviation end)
            as lead_adjusted_deviation,
        max(case when lead_rank = 1 and can_lead then ci_low end) as lead_ci_low,
        max(case when lead_rank = 1 and can_lead then ci_high end) as lead_ci_high,
        max(case when lead_rank = 1 and can_lead then evidence end) as lead_evidence,
        max(interval_level) as interval_level
    from described_effects
    group by {{ _partition_columns(none, p) }}challenge_id
),

verdicts as (
    select
        {{ _partition_columns('challenges_tested', p) }}challenges.challenge_id,
        challenges.template_id,
        challenges_tested.attempts,
        challenges_tested.families,
        challenges_tested.smallest_family_attempts,
        challenges_tested.eligibility,
        case
            when challenges_tested.eligibility <> 'tested' then challenges_tested.eligibility
            when effect_summaries.flagged_families > 0 then 'flagged'
            when effect_summaries.uncertain_families > 0
                or challenges_tested.unjudged_families > 0 then 'insufficient_evidence'
            else 'pass'
        end as verdict,
        case
            when challenges_tested.eligibility <> 'tested' then challenges_tested.eligibility_reason
            when effect_summaries.flagged_families > 0 then
                effect_summaries.flagged_evidence
                {#- two families' effects are each other's negatives: the data cannot tell
                    which of them the challenge is biased against #}
                || case
                    when effect_summaries.compared_families = 2
                        then ' against each other (only two families compared: the bias of'
                            || ' either one explains the gap)'
                    else ' against the other families'
                end
                || ', beyond what ability elsewhere predicts;'
                || ' significant after FDR control (q = '
                || {{ format_number('challenges_tested.q_value', '%.2g') }}
                || ' < alpha = {{ var("alpha") }}) and larger than family_deviation_threshold = {{ threshold }}'
                || coalesce(' (not judged: ' || challenges_tested.unjudged_reason || ')', '')
            when effect_summaries.uncertain_families > 0 then
                'no family is significantly beyond the threshold, but '
                || effect_summaries.lead_evidence
                || ' could exceed family_deviation_threshold = {{ threshold }}'
                || coalesce(', and ' || challenges_tested.unjudged_reason, '')
                || ': more attempts needed'
            when challenges_tested.unjudged_families > 0 then
                'no judged family is beyond family_deviation_threshold = {{ threshold }}, but '
                || challenges_tested.unjudged_reason || ': more attempts needed'
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
        challenges_tested.q_value
    from {{ challenges_tested }} as challenges_tested
    inner join {{ challenges }} as challenges
        on challenges_tested.challenge_id = challenges.challenge_id
    left join effect_summaries
        on challenges_tested.challenge_id = effect_summaries.challenge_id
        {{- _partition_join('challenges_tested', 'effect_summaries', p) }}
)

select * from verdicts
{%- endmacro %}
