{# One row: whether the API memorisation detector had its inputs, and what it analysed. #}
with

api_challenges as (
    select * from {{ ref('int_api_challenges_tagged') }}
),

cutoffs as (
    select * from {{ ref('int_model_cutoffs_centred') }}
),

cells as (
    select * from {{ ref('int_api_memorization_cells_prepared') }}
),

counted as (
    select
        (select count(*) from api_challenges) as tagged_rows,
        (select count(*) from cutoffs where training_cutoff is not null) as models_with_cutoff,
        (select count(*) from cells where is_control) as control_cells,
        (
            select coalesce(sum(scored_attempts), 0)
            from cells
            where is_control
                or challenge_id in (select challenge_id from api_challenges)
        ) as attempts_analysed
),

covered as (
    select
        'api_memorization' as detector,
        tagged_rows > 0 and models_with_cutoff > 0 and control_cells > 0 as is_available,
        nullif(concat_ws('; ',
            case when tagged_rows = 0 then 'challenges.tags: no challenge is tagged api:<name>' end,
            case when models_with_cutoff = 0 then 'models.training_cutoff: NULL for every model' end,
            case when tagged_rows > 0 and models_with_cutoff > 0 and control_cells = 0
                then 'no untagged (control) challenge with scored attempts by a model with a cutoff'
            end
        ), '') as missing_inputs,
        case
            when tagged_rows > 0 and models_with_cutoff > 0 and control_cells > 0
                then attempts_analysed
            else 0
        end as rows_analysed
    from counted
)

select
    cast(detector as varchar) as detector,
    cast(is_available as boolean) as is_available,
    cast(missing_inputs as varchar) as missing_inputs,
    cast(rows_analysed as bigint) as rows_analysed
from covered
