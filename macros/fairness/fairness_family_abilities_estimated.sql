{#
    One row per (partition..., challenge, model family) cell of `cells` (the
    fairness_family_cells_trimmed shape): the family's ability estimated from its results
    on the OTHER challenges of the same partition (leave-this-challenge-out), net of
    challenge difficulty. A query.

    Fit (an additive two-way model on trimmed cell means, by alternating averages):
      reference_c = mean over the families on c of (trimmed_mean_fc - ability_f)
      ability_f   = attempt-weighted mean over c of (trimmed_mean_fc - reference_c)
    repeated `ability_fit_iterations` times from ability = 0. The reference is
    family-balanced (each family counts once), so a big family does not drag it, and a
    family routed to harder challenges is not made to look weaker: residuals are taken
    within each challenge. Leave-out: ability_f(-c) drops the cell's own residual; its
    variance is the attempt-weighted sandwich estimate over the other challenges.
    Floating sums and means run in family or challenge order: the same bits on every build.

    Purification: `excluded`, when given, is a boolean column of `cells` true on the cells
    to leave out of the fit (the cells a first round flagged as biased: a family's bias on
    some challenges would otherwise lower its ability and so shrink its effect there and
    show the opposite effect on its fair challenges). An excluded cell counts neither in its
    challenge's reference nor in any ability; its own ability is its family's from every
    fitted cell (there is nothing of its own to leave out), and its residual is against
    the reference of the challenge's fitted cells. When none of a challenge's cells is
    fitted (both families of a two-family challenge flagged), its reference is over all
    its cells, so that it keeps a difficulty; `is_in_challenge_reference` marks the cells
    the reference is a mean of.
#}
{% macro fairness_family_abilities_estimated(cells, partition_by=[], excluded=none) -%}
{%- set p = partition_by -%}
{%- set iterations = challenge_fairness.validated_var('ability_fit_iterations') | int %}
{%- if iterations < 1 -%}
    {{ exceptions.raise_compiler_error("ability_fit_iterations must be >= 1") }}
{%- endif %}
with

scored_cells as (
    select
        *,
        {{ 'coalesce(' ~ excluded ~ ', false)' if excluded else 'false' }} as is_excluded_from_fit
    from {{ cells }}
    where trimmed_mean is not null
),

fitted_cells as (
    select * from scored_cells
    where not is_excluded_from_fit
),

abilities_0 as (
    select distinct {{ _partition_columns(none, p) }}model_family, 0.0 as ability
    from fitted_cells
),

{% for iteration in range(1, iterations + 1) %}
references_{{ iteration }} as (
    select
        {{ _partition_columns('fitted_cells', p) }}fitted_cells.challenge_id,
        avg(fitted_cells.trimmed_mean - abilities_{{ iteration - 1 }}.ability
            order by fitted_cells.model_family) as reference
    from fitted_cells
    inner join abilities_{{ iteration - 1 }}
        on fitted_cells.model_family = abilities_{{ iteration - 1 }}.model_family
        {{- _partition_join('fitted_cells', 'abilities_' ~ (iteration - 1), p) }}
    group by {{ _partition_columns('fitted_cells', p) }}fitted_cells.challenge_id
),

abilities_{{ iteration }} as (
    select
        {{ _partition_columns('fitted_cells', p) }}fitted_cells.model_family,
        sum(fitted_cells.attempts * (fitted_cells.trimmed_mean - references_{{ iteration }}.reference)
            order by fitted_cells.challenge_id)
            / sum(fitted_cells.attempts) as ability
    from fitted_cells
    inner join references_{{ iteration }}
        on fitted_cells.challenge_id = references_{{ iteration }}.challenge_id
        {{- _partition_join('fitted_cells', 'references_' ~ iteration, p) }}
    group by {{ _partition_columns('fitted_cells', p) }}fitted_cells.model_family
),

{% endfor %}
{#- The challenge's reference: over its fitted cells, or over all its scored cells when
    every one is left out (two families flagged on it), so that the challenge keeps its
    difficulty; the fit itself never reads this fallback. A family with no fitted cell
    has no ability and counts in neither. #}
references_final as (
    select
        {{ _partition_columns('scored_cells', p) }}scored_cells.challenge_id,
        coalesce(
            avg(scored_cells.trimmed_mean - abilities_{{ iterations }}.ability
                order by scored_cells.model_family)
                filter (where not scored_cells.is_excluded_from_fit),
            avg(scored_cells.trimmed_mean - abilities_{{ iterations }}.ability
                order by scored_cells.model_family)
        ) as reference,
        count(abilities_{{ iterations }}.ability)
            filter (where not scored_cells.is_excluded_from_fit) = 0 as is_reference_unfitted
    from scored_cells
    left join abilities_{{ iterations }}
        on scored_cells.model_family = abilities_{{ iterations }}.model_family
        {{- _partition_join('scored_cells', 'abilities_' ~ iterations, p) }}
    group by {{ _partition_columns('scored_cells', p) }}scored_cells.challenge_id
),

residuals as (
    select
        {{ _partition_columns('scored_cells', p) }}scored_cells.challenge_id,
        scored_cells.model_family,
        scored_cells.is_excluded_from_fit,
        cast(scored_cells.attempts as double) as weight,
        scored_cells.trimmed_mean_variance,
        references_final.reference,
        references_final.is_reference_unfitted,
        scored_cells.trimmed_mean - references_final.reference as residual
    from scored_cells
    left join references_final
        on scored_cells.challenge_id = references_final.challenge_id
        {{- _partition_join('scored_cells', 'references_final', p) }}
),

family_totals as (
    select
        {{ _partition_columns(none, p) }}model_family,
        count(*) as challenges,
        sum(weight) as weight_sum,
        sum(weight * residual order by challenge_id) as weighted_residual_sum,
        sum(weight * weight) as squared_weight_sum,
        sum(weight * weight * residual order by challenge_id) as squared_weight_residual_sum,
        sum(weight * weight * residual * residual order by challenge_id)
            as squared_weight_squared_residual_sum,
        sum(weight * weight * coalesce(trimmed_mean_variance, 0) order by challenge_id)
            as squared_weight_variance_sum
    from residuals
    where not is_excluded_from_fit
    group by {{ _partition_columns(none, p) }}model_family
),

{#- What is left of the family's totals without this cell; an excluded cell is in none of
    them, so it keeps them whole (own = 0 below). #}
own as (
    select
        residuals.*,
        case when residuals.is_excluded_from_fit then 0 else 1 end as in_fit,
        case when residuals.is_excluded_from_fit then 0.0 else residuals.weight end as own_weight,
        case when residuals.is_excluded_from_fit then 0.0 else residuals.residual end
            as own_residual,
        case when residuals.is_excluded_from_fit then 0.0
            else coalesce(residuals.trimmed_mean_variance, 0)
        end as own_variance
    from residuals
),

left_out as (
    select
        {{ _partition_columns('own', p) }}own.challenge_id,
        own.model_family,
        own.is_excluded_from_fit,
        own.reference,
        {#- the cells the reference is a mean of (a family with no fitted cell has no
            ability, so it is in none) #}
        family_totals.model_family is not null
            and (not own.is_excluded_from_fit or own.is_reference_unfitted)
            as is_in_reference,
        own.residual,
        coalesce(family_totals.challenges, 0) - own.in_fit as other_challenges,
        family_totals.weight_sum - own.own_weight as other_weight,
        family_totals.weighted_residual_sum - own.own_weight * own.own_residual
            as other_weighted_residual_sum,
        family_totals.squared_weight_sum - own.own_weight * own.own_weight
            as other_squared_weight_sum,
        family_totals.squared_weight_residual_sum
            - own.own_weight * own.own_weight * own.own_residual
            as other_squared_weight_residual_sum,
        family_totals.squared_weight_squared_residual_sum
            - own.own_weight * own.own_weight * own.own_residual * own.own_residual
            as other_squared_weight_squared_residual_sum,
        family_totals.squared_weight_variance_sum
            - own.own_weight * own.own_weight * own.own_variance
            as other_squared_weight_variance_sum
    from own
    left join family_totals
        on own.model_family = family_totals.model_family
        {{- _partition_join('own', 'family_totals', p) }}
),

abilities as (
    select
        {{ _partition_columns(none, p) }}challenge_id,
        model_family,
        is_excluded_from_fit as is_left_out_of_fit,
        reference as challenge_reference,
        is_in_reference as is_in_challenge_reference,
        residual as cell_residual,
        other_challenges,
        case
            when other_challenges >= 1 then other_weighted_residual_sum / other_weight
        end as ability
    from left_out
),

with_variance as (
    select
        abilities.*,
        {# the larger of: the sampling variance of the cells it averages (a floor), and the
           sandwich estimate that also carries true challenge-to-challenge variation #}
        case
            when abilities.other_challenges >= 1 then
                greatest(
                    left_out.other_squared_weight_variance_sum
                        / (left_out.other_weight * left_out.other_weight),
                    case
                        when abilities.other_challenges >= 2 then
                            greatest(
                                left_out.other_squared_weight_squared_residual_sum
                                - 2 * abilities.ability * left_out.other_squared_weight_residual_sum
                                + abilities.ability * abilities.ability
                                    * left_out.other_squared_weight_sum,
                                0
                            )
                            / (left_out.other_weight * left_out.other_weight)
                            * abilities.other_challenges / (abilities.other_challenges - 1)
                        else 0
                    end
                )
        end as ability_variance
    from abilities
    inner join left_out
        on abilities.challenge_id = left_out.challenge_id
        and abilities.model_family = left_out.model_family
        {{- _partition_join('abilities', 'left_out', p) }}
)

select * from with_variance
{%- endmacro %}
