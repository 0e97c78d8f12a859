{#
    One row per clean model: its training cutoff in years relative to the mean cutoff of
    the models that have one (NULL when the model has no cutoff). Centring makes the
    intercepts of the cutoff regressions the score of an average-cutoff model.
#}
with

models as (
    select * from {{ ref('stg_platform__models') }}
),

in_days as (
    select
        model_id,
        model_family,
        training_cutoff,
        {{ dbt.datediff("cast('1970-01-01' as date)", 'training_cutoff', 'day') }}
            as cutoff_day  -- noqa: LT05
    from models
),

centred as (
    select
        model_id,
        model_family,
        training_cutoff,
        (cutoff_day - avg(cutoff_day) over ()) / 365.25 as cutoff_years
    from in_days
)

select * from centred
