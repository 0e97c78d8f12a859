{#
    One row per (partition..., challenge, model family) with scored attempts: the family's
    ability-adjusted effect with its interval, whether it is judged (at least
    min_family_attempts scored attempts here, and an effect), and whether it is
    significant (judged, the challenge is selected by Benjamini-Hochberg and the family's
    Sidak p is within the Benjamini-Bogomolov cutoff), flagged (significant and beyond
    family_deviation_threshold) or confidently within the threshold (interval inside it).
    Inputs are the outputs of the other fairness_* macros on the same partitions. A query.

    One bias is one finding. Each family is contrasted with the mean of the OTHER
    families, so a family's shift moves every other family's contrast by shift / (K - 1)
    the other way: a family failing a challenge (-50 points) pushed each of the five
    others 10 points up, and on challenges attempted by three families a -20 made the two
    others +10. So on a challenge with a flagged family, the lead (the flagged family of
    the largest |effect|, ties by name) keeps its contrast, and every other family is
    contrasted again with the others *without the lead* (K - 2 families; its t test,
    interval and flags follow, Sidak still over the challenge's K contrasts).
    `reference_excludes_family` names the family left out. With two families the lead's
    mirror image has nothing else to be contrasted with and keeps its contrast.
#}
{% macro fairness_family_effects_flagged(
    family_summaries, cells, abilities, effects, challenges_tested, partition_by=[]
) -%}
{%- set p = partition_by -%}
{%- set threshold = var('family_deviation_threshold') -%}
with

joined as (
    select
        {{ _partition_columns('family_summaries', p) }}family_summaries.challenge_id,
        family_summaries.model_family,
        family_summaries.scored_attempts as attempts,
        family_summaries.mean_score,
        cells.trimmed_mean,
        cells.trim_proportion,
        abilities.ability as family_ability,
        effects.compared_families,
        effects.adjusted_score,
        effects.adjusted_score_variance,
        effects.welch_term,
        effects.adjusted_score_sum,
        effects.variance_sum,
        effects.welch_term_sum,
        effects.adjusted_deviation,
        effects.standard_error,
        effects.degrees_of_freedom,
        effects.ci_low,
        effects.ci_high,
        cast(1 - {{ var('alpha') }} as double) as interval_level,
        effects.t_statistic,
        effects.p_value,
        effects.p_value_sidak,
        challenges_tested.eligibility = 'tested' as is_challenge_tested,
        challenges_tested.is_selected as is_challenge_selected,
        challenges_tested.selection_p_cutoff,
        {#- a family with fewer than min_family_attempts here is in the others' reference
            but is not tested itself (fairness_challenges_tested) #}
        family_summaries.scored_attempts >= {{ var('min_family_attempts') }}
            and effects.adjusted_deviation is not null as is_judged,
        challenges_tested.eligibility = 'tested'
            and challenges_tested.is_selected
            and family_summaries.scored_attempts >= {{ var('min_family_attempts') }}
            and effects.p_value_sidak <= challenges_tested.selection_p_cutoff as is_significant
    from {{ family_summaries }} as family_summaries
    inner join {{ challenges_tested }} as challenges_tested
        on family_summaries.challenge_id = challenges_tested.challenge_id
        {{- _partition_join('family_summaries', 'challenges_tested', p) }}
    left join {{ cells }} as cells
        on family_summaries.challenge_id = cells.challenge_id
        and family_summaries.model_family = cells.model_family
        {{- _partition_join('family_summaries', 'cells', p) }}
    left join {{ abilities }} as abilities
        on family_summaries.challenge_id = abilities.challenge_id
        and family_summaries.model_family = abilities.model_family
        {{- _partition_join('family_summaries', 'abilities', p) }}
    left join {{ effects }} as effects
        on family_summaries.challenge_id = effects.challenge_id
        and family_summaries.model_family = effects.model_family
        {{- _partition_join('family_summaries', 'effects', p) }}
    where family_summaries.scored_attempts > 0
),

first_pass as (
    select
        *,
        coalesce(is_significant, false)
            and round(abs(adjusted_deviation), 9) > {{ threshold }} as is_flagged_first
    from joined
),

leads as (
    {#- the lead: flagged, largest |effect| (to 9 decimals), then the family name #}
    select
        {{ _partition_columns(none, p) }}challenge_id,
        model_family as lead_family,
        adjusted_score as lead_score,
        adjusted_score_variance as lead_variance,
        welch_term as lead_welch_term
    from first_pass
    where is_flagged_first
    qualify row_number() over (
        partition by {{ _partition_columns(none, p) }}challenge_id
        order by round(abs(adjusted_deviation), 9) desc, model_family
    ) = 1
),

recontrasted as (
    {#- the other families of a challenge with a flagged lead, against the K - 2 others #}
    select
        {{ _partition_columns('first_pass', p) }}first_pass.challenge_id,
        first_pass.model_family,
        leads.lead_family,
        first_pass.compared_families,
        first_pass.adjusted_score
            - (first_pass.adjusted_score_sum - first_pass.adjusted_score - leads.lead_score)
            / (first_pass.compared_families - 2) as adjusted_deviation,
        first_pass.adjusted_score_variance
            + (first_pass.variance_sum - first_pass.adjusted_score_variance
                - leads.lead_variance)
            / power(first_pass.compared_families - 2, 2) as adjusted_deviation_variance,
        first_pass.welch_term
            + (first_pass.welch_term_sum - first_pass.welch_term - leads.lead_welch_term)
            / power(first_pass.compared_families - 2, 4) as welch_denominator
    from first_pass
    inner join leads
        on first_pass.challenge_id = leads.challenge_id
        {{- _partition_join('first_pass', 'leads', p) }}
    where first_pass.model_family <> leads.lead_family
        and first_pass.adjusted_score is not null
        and first_pass.compared_families >= 3
),

retested as (
    select
        *,
        {{ contrast_test(
            'adjusted_deviation', 'sqrt(adjusted_deviation_variance)',
            'case when welch_denominator > 0 then adjusted_deviation_variance'
                ~ ' * adjusted_deviation_variance / welch_denominator end',
            var('alpha'), 'compared_families'
        ) }} as test
    from recontrasted
),

stepped_down as (
    select
        first_pass.* replace (
            coalesce(retested.adjusted_deviation, first_pass.adjusted_deviation)
                as adjusted_deviation,
            case
                when retested.model_family is not null
                    then sqrt(retested.adjusted_deviation_variance)
                else first_pass.standard_error
            end as standard_error,
            case
                when retested.model_family is null then first_pass.degrees_of_freedom
                when retested.welch_denominator > 0
                    then retested.adjusted_deviation_variance
                        * retested.adjusted_deviation_variance / retested.welch_denominator
            end as degrees_of_freedom,
            case when retested.model_family is not null then retested.test.ci_low
                else first_pass.ci_low end as ci_low,
            case when retested.model_family is not null then retested.test.ci_high
                else first_pass.ci_high end as ci_high,
            case when retested.model_family is not null then retested.test.t_statistic
                else first_pass.t_statistic end as t_statistic,
            case when retested.model_family is not null then retested.test.p_value
                else first_pass.p_value end as p_value,
            case when retested.model_family is not null then retested.test.p_value_sidak
                else first_pass.p_value_sidak end as p_value_sidak,
            case
                when retested.model_family is not null then
                    first_pass.is_challenge_tested
                    and first_pass.is_challenge_selected
                    and first_pass.is_judged
                    and retested.test.p_value_sidak <= first_pass.selection_p_cutoff
                else first_pass.is_significant
            end as is_significant
        ),
        retested.lead_family as reference_excludes_family
    from first_pass
    left join retested
        on first_pass.challenge_id = retested.challenge_id
        and first_pass.model_family = retested.model_family
        {{- _partition_join('first_pass', 'retested', p) }}
),

flagged as (
    select
        * exclude (is_flagged_first, adjusted_score, adjusted_score_variance, welch_term,
            adjusted_score_sum, variance_sum, welch_term_sum, compared_families,
            is_challenge_selected, selection_p_cutoff),
        {#- to 9 decimals, as the raw deviation (int_family_deviations_measured) #}
        case
            when round(adjusted_deviation, 9) > 0 then 'advantage'
            when round(adjusted_deviation, 9) < 0 then 'disadvantage'
            when round(adjusted_deviation, 9) = 0 then 'none'
        end as direction,
        coalesce(is_significant, false)
            and round(abs(adjusted_deviation), 9) > {{ threshold }} as is_flagged,
        ci_low > -{{ threshold }}
            and ci_high < {{ threshold }} as is_within_threshold
    from stepped_down
)

select * from flagged
{%- endmacro %}
