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
        coalesce(abilities.is_left_out_of_fit, false) as is_left_out_of_fit,
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
        {{ _family_contrast_columns(
            'first_pass.adjusted_score',
            'first_pass.adjusted_score_variance',
            'first_pass.welch_term',
            'first_pass.adjusted_score_sum - first_pass.adjusted_score - leads.lead_score',
            'first_pass.variance_sum - first_pass.adjusted_score_variance - leads.lead_variance',
            'first_pass.welch_term_sum - first_pass.welch_term - leads.lead_welch_term',
            'first_pass.compared_families - 2',
        ) }}
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
            'adjusted_deviation', 'standard_error', 'degrees_of_freedom',
            var('alpha'), 'compared_families'
        ) }} as test
    from (
        select
            *,
            {{ _family_contrast_error() }}
        from recontrasted
    ) as recontrasted
),

stepped_down as (
    {#- the re-tested families take their new test; the others keep the first one #}
    select
        first_pass.* replace (
            if(retested.model_family is null, first_pass.adjusted_deviation,
                retested.adjusted_deviation) as adjusted_deviation,
            if(retested.model_family is null, first_pass.standard_error,
                retested.standard_error) as standard_error,
            if(retested.model_family is null, first_pass.degrees_of_freedom,
                retested.degrees_of_freedom) as degrees_of_freedom,
            if(retested.model_family is null, first_pass.ci_low, retested.test.ci_low)
                as ci_low,
            if(retested.model_family is null, first_pass.ci_high, retested.test.ci_high)
                as ci_high,
            if(retested.model_family is null, first_pass.t_statistic,
                retested.test.t_statistic) as t_statistic,
            if(retested.model_family is null, first_pass.p_value, retested.test.p_value)
                as p_value,
            if(retested.model_family is null, first_pass.p_value_sidak,
                retested.test.p_value_sidak) as p_value_sidak,
            if(retested.model_family is null, first_pass.is_significant,
                first_pass.is_challenge_tested
                and first_pass.is_challenge_selected
                and first_pass.is_judged
                and retested.test.p_value_sidak <= first_pass.selection_p_cutoff)
                as is_significant
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
