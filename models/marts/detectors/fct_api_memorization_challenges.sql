with

slopes as (
    select * from {{ ref('int_api_memorization_slopes_fitted') }}
),

tested as (
    select
        *,
        {{ contrast_test(
            'slope_difference', 'standard_error', 'degrees_of_freedom', var('alpha'), 1
        ) }}
            as slope_test
    from slopes
),

described as (
    select
        api_name,
        challenge_id,
        models,
        models_with_cutoff - models as models_without_control,
        attempts,
        control_slope,
        tagged_slope,
        slope_difference,
        standard_error,
        degrees_of_freedom,
        slope_test.ci_low,
        slope_test.ci_high,
        1 - {{ var('alpha') }} as interval_level,
        slope_test.p_value,
        case when fit_status = 'ok' then 'tested' else 'not_testable' end as status,
        case when fit_status <> 'ok' then fit_reason end as reason
    from tested
)

select
    cast(api_name as varchar) as api_name,
    cast(challenge_id as varchar) as challenge_id,
    cast(models as bigint) as models,
    cast(models_without_control as bigint) as models_without_control,
    cast(attempts as bigint) as attempts,
    cast(control_slope as double) as control_slope,
    cast(tagged_slope as double) as tagged_slope,
    cast(slope_difference as double) as slope_difference,
    cast(standard_error as double) as standard_error,
    cast(degrees_of_freedom as double) as degrees_of_freedom,
    cast(ci_low as double) as ci_low,
    cast(ci_high as double) as ci_high,
    cast(interval_level as double) as interval_level,
    cast(p_value as double) as p_value,
    cast(status as varchar) as status,
    cast(reason as varchar) as reason
from described
