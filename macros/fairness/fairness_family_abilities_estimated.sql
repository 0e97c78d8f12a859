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
#}
{% macro fairness_family_abilities_estimated(cells, partition_by=[]) -%}
{%- set p = partition_by -%}
{%- set iterations = challenge_fairness.validated_var('ability_fit_iterations') | int %}
{%- if iterations < 1 -%}
    {{ exceptions.raise_compiler_error("ability_fit_iterations must be >= 1") }}
{%- endif %}
with

fitted_cells as (
    select * from {{ cells }}
    where trimmed_mean is not null
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
references_final as (
    select
        {{ _partition_columns('fitted_cells', p) }}fitted_cells.challenge_id,
        avg(fitted_cells.trimmed_mean - abilities_{{ iterations }}.ability
            order by fitted_cells.model_family) as reference
    from fitted_cells
    inner join abilities_{{ iterations }}
        on fitted_cells.model_family = abilities_{{ iterations }}.model_family
        {{- _partition_join('fitted_cells', 'abilities_' ~ iterations, p) }}
    group by {{ _partition_columns('fitted_cells', p) }}fitted_cells.challenge_id
),

residuals as (
    select
        {{ _partition_columns('fitted_cells', p) }}fitted_cells.challenge_id,
        fitted_cells.model_family,
        cast(fitted_cells.attempts as double) as weight,
        fitted_cells.trimmed_mean_variance,
        references_final.reference,
        fitted_cells.trimmed_mean - references_final.reference as residual
    from fitted_cells
    inner join references_final
        on fitted_cells.challenge_id = references_final.challenge_id
        {{- _partition_join('fitted_cells', 'references_final', p) }}
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
    group by {{ _partition_columns(none, p) }}model_family
),

left_out as (
    select
        {{ _partition_columns('residuals', p) }}residuals.challenge_id,
        residuals.model_family,
        residuals.reference,
        residuals.residual,
        family_totals.challenges - 1 as other_challenges,
        family_totals.weight_sum - residuals.weight as other_weight,
        family_totals.weighted_residual_sum - residuals.weight * residuals.residual
            as other_weighted_residual_sum,
        family_totals.squared_weight_sum - residuals.weight * residuals.weight
            as other_squared_weight_sum,
        family_totals.squared_weight_residual_sum
            - residuals.weight * residuals.weight * residuals.residual
            as other_squared_weight_residual_sum,
        family_totals.squared_weight_squared_residual_sum
            - residuals.weight * residuals.weight * residuals.residual * residuals.residual
            as other_squared_weight_squared_residual_sum,
        family_totals.squared_weight_variance_sum
            - residuals.weight * residuals.weight * coalesce(residuals.trimmed_mean_variance, 0)
            as other_squared_weight_variance_sum
    from residuals
    inner join family_totals
        on residuals.model_family = family_totals.model_family
        {{- _partition_join('residuals', 'family_totals', p) }}
),

abilities as (
    select
        {{ _partition_columns(none, p) }}challenge_id,
        model_family,
        reference as challenge_reference,
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
