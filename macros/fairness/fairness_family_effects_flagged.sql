{#
    One row per (partition..., challenge, model family) with scored attempts: the family's
    ability-adjusted effect with its interval, and whether it is significant (the challenge
    is selected by Benjamini-Hochberg and the family's Sidak p is within the
    Benjamini-Bogomolov cutoff), flagged (significant and beyond
    family_deviation_threshold) or confidently within the threshold (interval inside it).
    Inputs are the outputs of the other fairness_* macros on the same partitions. A query.
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
        challenges_tested.eligibility = 'tested'
            and challenges_tested.is_selected
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

flagged as (
    select
        *,
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
    from joined
)

select * from flagged
{%- endmacro %}
