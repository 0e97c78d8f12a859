{# One row: whether the 2PL IRT calibration had anything to fit. #}
with

estimates as (
    select * from {{ ref('int_irt_parameters_estimated') }}
),

fitted as (
    select
        count(*) filter (where fit_status in ('ok', 'boundary')) as fitted_challenges,
        coalesce(sum(attempts) filter (where fit_status in ('ok', 'boundary')), 0)
            as fitted_attempts,
        count(*) as challenges
    from estimates
    where entity_kind = 'challenge'
),

distinct_reasons as (
    select distinct fit_reason
    from estimates
    where entity_kind = 'challenge'
        and fit_reason is not null
),

listed_reasons as (
    select string_agg(fit_reason, '; ' order by fit_reason) as reasons
    from distinct_reasons
),

covered as (
    select
        'challenge_irt' as detector,
        fitted_challenges > 0 as is_available,
        case
            when challenges = 0 then 'no scored attempts'
            when fitted_challenges = 0
                then 'no challenge could be fitted (irt_pass_score = {{ var("irt_pass_score") }}): '
                    || coalesce(listed_reasons.reasons, 'no estimable challenge')
        end as missing_inputs,
        fitted_attempts as rows_analysed
    from fitted
    cross join listed_reasons
)

select
    cast(detector as varchar) as detector,
    cast(is_available as boolean) as is_available,
    cast(missing_inputs as varchar) as missing_inputs,
    cast(rows_analysed as bigint) as rows_analysed
from covered
