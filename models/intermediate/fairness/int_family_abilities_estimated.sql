{#
    One row per (challenge, model family) cell: the family's ability estimated from its
    results on the OTHER challenges (leave-this-challenge-out), net of challenge difficulty.

    Fit (an additive two-way model on trimmed cell means, by alternating averages):
      reference_c = mean over the families on c of (trimmed_mean_fc - ability_f)
      ability_f   = attempt-weighted mean over c of (trimmed_mean_fc - reference_c)
    repeated `ability_fit_iterations` times from ability = 0. The reference is
    family-balanced (each family counts once), so a big family does not drag it, and a
    family routed to harder challenges is not made to look weaker: residuals are taken
    within each challenge. Leave-out: ability_f(-c) drops the cell's own residual; its
    variance is the attempt-weighted sandwich estimate over the other challenges.
#}
{%- set iterations = var('ability_fit_iterations') | int %}
{%- if iterations < 1 -%}
    {{ exceptions.raise_compiler_error("ability_fit_iterations must be >= 1") }}
{%- endif %}
with

cells as (
    select * from {{ ref('int_challenge_family_cells_trimmed') }}
    where trimmed_mean is not null
),

abilities_0 as (
    select distinct model_family, 0.0 as ability
    from cells
),

{% for iteration in range(1, iterations + 1) %}
references_{{ iteration }} as (
    select
        cells.challenge_id,
        avg(cells.trimmed_mean - abilities_{{ iteration - 1 }}.ability) as reference
    from cells
    inner join abilities_{{ iteration - 1 }}
        on cells.model_family = abilities_{{ iteration - 1 }}.model_family
    group by cells.challenge_id
),

abilities_{{ iteration }} as (
    select
        cells.model_family,
        sum(cells.attempts * (cells.trimmed_mean - references_{{ iteration }}.reference))
            / sum(cells.attempts) as ability
    from cells
    inner join references_{{ iteration }}
        on cells.challenge_id = references_{{ iteration }}.challenge_id
    group by cells.model_family
),

{% endfor %}
references_final as (
    select
        cells.challenge_id,
        avg(cells.trimmed_mean - abilities_{{ iterations }}.ability) as reference
    from cells
    inner join abilities_{{ iterations }}
        on cells.model_family = abilities_{{ iterations }}.model_family
    group by cells.challenge_id
),

residuals as (
    select
        cells.challenge_id,
        cells.model_family,
        cast(cells.attempts as double) as weight,
        cells.trimmed_mean_variance,
        references_final.reference,
        cells.trimmed_mean - references_final.reference as residual
    from cells
    inner join references_final
        on cells.challenge_id = references_final.challenge_id
),

family_totals as (
    select
        model_family,
        count(*) as challenges,
        sum(weight) as weight_sum,
        sum(weight * residual) as weighted_residual_sum,
        sum(weight * weight) as squared_weight_sum,
        sum(weight * weight * residual) as squared_weight_residual_sum,
        sum(weight * weight * residual * residual) as squared_weight_squared_residual_sum,
        sum(weight * weight * coalesce(trimmed_mean_variance, 0)) as squared_weight_variance_sum
    from residuals
    group by model_family
),

left_out as (
    select
        residuals.challenge_id,
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
),

abilities as (
    select
        challenge_id,
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
)

select * from with_variance
