{#
    One row per (partition..., challenge, model family with scored attempts) of the
    challenges whose verdict in `verdicts` (fairness_challenge_verdicts) is
    'insufficient_evidence': how many more scored attempts would give the family's
    adjusted contrast `target_power` to detect a shift of family_deviation_threshold
    points at the partition's current FDR level, by the verdict's variance model (the
    cells' observed Yuen variances per attempt, the abilities' variances, the contrast
    with the other families, Welch df with the cells' df raised by variance_shrinkage_df
    as the verdict does, the Sidak max-t step; cf_attempts_needed), for
    the family alone and as its share of a plan for the whole challenge.

    FDR level (conservative): alpha * max(R, 1) / m, R the partition's challenges
    selected by Benjamini-Hochberg now and m its judged challenges (plus this one when it
    is not judged yet). A max-t p at or below it is selected whatever the other
    challenges do, and then the family's Sidak p is within the Benjamini-Bogomolov
    cutoff alpha * R' / m (R' >= max(R, 1)). A query.
#}
{% macro fairness_attempts_needed(
    cells, abilities, challenges_tested, verdicts, partition_by=[]
) -%}
{%- set p = partition_by -%}
with

undecided as (
    select
        {{ _partition_columns('verdicts', p) }}verdicts.challenge_id,
        verdicts.template_id,
        verdicts.verdict,
        challenges_tested.eligibility,
        cast({{ var('alpha') }} as double) * greatest(coalesce(challenges_tested.selected_challenges, 0), 1)
            / (coalesce(challenges_tested.judged_challenges, 0)
                + case when challenges_tested.eligibility = 'tested' then 0 else 1 end)
            as fdr_level
    from {{ verdicts }} as verdicts
    inner join {{ challenges_tested }} as challenges_tested
        on verdicts.challenge_id = challenges_tested.challenge_id
        {{- _partition_join('verdicts', 'challenges_tested', p) }}
    where verdicts.verdict = 'insufficient_evidence'
),

family_cells as (
    select
        {{ _partition_columns('undecided', p) }}undecided.challenge_id,
        cells.model_family,
        cells.attempts,
        cells.trimmed_mean_variance,
        cells.trim_proportion,
        abilities.ability_variance
    from undecided
    inner join {{ cells }} as cells
        on undecided.challenge_id = cells.challenge_id
        {{- _partition_join('undecided', 'cells', p) }}
    left join {{ abilities }} as abilities
        on cells.challenge_id = abilities.challenge_id
        and cells.model_family = abilities.model_family
        {{- _partition_join('cells', 'abilities', p) }}
    where cells.attempts > 0
),

challenge_lists as (
    select
        {{ _partition_columns('family_cells', p) }}family_cells.challenge_id,
        list(family_cells.model_family order by family_cells.model_family) as families,
        list(family_cells.attempts order by family_cells.model_family) as attempts,
        list(family_cells.trimmed_mean_variance order by family_cells.model_family)
            as cell_variances,
        list(family_cells.ability_variance order by family_cells.model_family)
            as ability_variances,
        {#- the challenge's estimator: one trim for all its families #}
        min(family_cells.trim_proportion) as trim_proportion
    from family_cells
    {{ _partition_group_by(p, 'family_cells') }}{{ ', ' if p else 'group by ' }}family_cells.challenge_id
),

solved as (
    select
        {{ _partition_columns('challenge_lists', p) }}challenge_lists.challenge_id,
        challenge_lists.families,
        challenge_lists.attempts,
        cf_attempts_needed(
            challenge_lists.attempts,
            challenge_lists.cell_variances,
            challenge_lists.ability_variances,
            undecided.fdr_level,
            cast({{ var('family_deviation_threshold') }} as double),
            cast({{ var('target_power') }} as double),
            cast(challenge_lists.trim_proportion as double),
            cast({{ var('min_family_attempts') }} as double),
            cast({{ var('min_attempts') }} as double),
            cast({{ var('max_family_attempts_planned') }} as double),
            cast({{ var('variance_shrinkage_df') }} as double)
        ) as needed
    from challenge_lists
    inner join undecided
        on challenge_lists.challenge_id = undecided.challenge_id
        {{- _partition_join('challenge_lists', 'undecided', p) }}
),

unnested as (
    select
        {{ _partition_columns(none, p) }}challenge_id,
        unnest(families) as model_family,
        unnest(attempts) as scored_attempts,
        unnest(needed.current_power) as current_power,
        unnest(needed.family_additional) as additional_family_attempts,
        unnest(needed.family_status) as family_plan_status,
        unnest(needed.plan_additional) as family_attempts_in_challenge_plan,
        needed.plan_family_attempts as challenge_plan_family_attempts,
        needed.plan_status as challenge_plan_status,
        needed.plan_reason as challenge_plan_reason
    from solved
),

planned as (
    select
        {{ _partition_columns('undecided', p) }}undecided.challenge_id,
        undecided.template_id,
        undecided.verdict,
        undecided.eligibility,
        undecided.fdr_level,
        unnested.model_family,
        unnested.scored_attempts,
        family_cells.trimmed_mean_variance as cell_variance,
        family_cells.ability_variance,
        unnested.current_power,
        unnested.additional_family_attempts,
        unnested.family_plan_status,
        unnested.family_attempts_in_challenge_plan,
        unnested.challenge_plan_family_attempts,
        sum(unnested.family_attempts_in_challenge_plan) over (
            partition by {{ _partition_columns('undecided', p) }}undecided.challenge_id
        ) as challenge_additional_attempts,
        unnested.challenge_plan_status,
        unnested.challenge_plan_reason
    from unnested
    inner join undecided
        on unnested.challenge_id = undecided.challenge_id
        {{- _partition_join('unnested', 'undecided', p) }}
    inner join family_cells
        on unnested.challenge_id = family_cells.challenge_id
        and unnested.model_family = family_cells.model_family
        {{- _partition_join('unnested', 'family_cells', p) }}
)

select * from planned
{%- endmacro %}
