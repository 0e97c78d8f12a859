{#
    One row per (API, tagged challenge): the challenge's memorisation slope. Each model's
    general strength is its attempt-weighted residual on the control challenges (no `api:*`
    tag), which carries the "newer models are stronger everywhere" trend; the cell's excess
    is its residual minus that. A weighted least-squares line of the excess on the centred
    cutoff (weights: the cell's scored attempts) gives the slope difference in points per
    year; the same line through the control residuals gives the control slope on the same
    models and weights, so tagged_slope = control_slope + slope_difference exactly.
    Models without control cells cannot be compared and are left out (counted).
#}
with

cells as (
    select * from {{ ref('int_api_memorization_cells_prepared') }}
),

api_challenges as (
    select * from {{ ref('int_api_challenges_tagged') }}
),

control_profiles as (
    select
        model_id,
        {#- in challenge order: the same bits on every build #}
        sum(scored_attempts * residual order by challenge_id) / sum(scored_attempts)
            as control_residual
    from cells
    where is_control
    group by model_id
),

tagged_cells as (
    select
        api_challenges.api_name,
        api_challenges.challenge_id,
        cells.model_id,
        cells.cutoff_years,
        cells.scored_attempts,
        cells.residual,
        control_profiles.control_residual
    from api_challenges
    inner join cells
        on api_challenges.challenge_id = cells.challenge_id
    left join control_profiles
        on cells.model_id = control_profiles.model_id
),

cell_lists as (
    select
        api_name,
        challenge_id,
        count(*) as models_with_cutoff,
        count(control_residual) as models,
        coalesce(sum(scored_attempts) filter (where control_residual is not null), 0)
            as attempts,
        coalesce(
            list(cutoff_years order by model_id) filter (where control_residual is not null),
            cast([] as double[])
        ) as cutoffs,
        coalesce(
            list(residual - control_residual order by model_id)
            filter (where control_residual is not null),
            cast([] as double[])
        ) as excess_residuals,
        coalesce(
            list(control_residual order by model_id) filter (where control_residual is not null),
            cast([] as double[])
        ) as control_residuals,
        coalesce(
            list(cast(scored_attempts as double) order by model_id)
            filter (where control_residual is not null),
            cast([] as double[])
        ) as weights
    from tagged_cells
    group by api_name, challenge_id
),

fitted as (
    select
        api_name,
        challenge_id,
        models_with_cutoff,
        models,
        attempts,
        {{ weighted_slope('cutoffs', 'excess_residuals', 'weights') }} as excess_fit,
        {{ weighted_slope('cutoffs', 'control_residuals', 'weights') }} as control_fit
    from cell_lists
),

slopes as (
    select
        api_challenges.api_name,
        api_challenges.challenge_id,
        coalesce(fitted.models_with_cutoff, 0) as models_with_cutoff,
        coalesce(fitted.models, 0) as models,
        coalesce(fitted.attempts, 0) as attempts,
        fitted.control_fit.slope as control_slope,
        fitted.control_fit.slope + fitted.excess_fit.slope as tagged_slope,
        fitted.excess_fit.slope as slope_difference,
        fitted.excess_fit.standard_error,
        fitted.excess_fit.degrees_of_freedom,
        coalesce(fitted.excess_fit.status, 'not_computable') as fit_status,
        case
            when fitted.challenge_id is null
                then 'no scored attempts by a model with a training cutoff'
            when (select count(*) from control_profiles) = 0
                then 'no untagged (control) challenge with scored attempts to compare with'
            else fitted.excess_fit.reason
        end as fit_reason
    from api_challenges
    left join fitted
        on api_challenges.api_name = fitted.api_name
        and api_challenges.challenge_id = fitted.challenge_id
)

select * from slopes
