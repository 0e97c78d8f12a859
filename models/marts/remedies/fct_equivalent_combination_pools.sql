with

pools as (
    select * from {{ ref('int_combination_pools_grouped') }}
),

described as (
    select
        *,
        template_id || ':pool-' || lpad(cast(pool_number as varchar), 2, '0') as pool_id,
        case
            when pool_size < 2 then 'single_member'
            when is_pool_equivalent then 'equivalent'
            else 'not_demonstrated'
        end as equivalence_status
    from pools
),

explained as (
    select
        *,
        case equivalence_status
            when 'single_member'
                then 'no other combination of the template lies within the tolerance of this one'
            when 'equivalent'
                then 'every member is significantly within +-'
                    || {{ format_number('equivalence_margin', '%g') }}
                    || ' points of the pool centre (TOST at alpha)'
            else 'not every member is shown within +-'
                || {{ format_number('equivalence_margin', '%g') }}
                || ' points of the pool centre (TOST at alpha): collect more attempts'
        end as reason
    from described
)

select
    cast(template_id as varchar) as template_id,
    cast(variable_combination as varchar) as variable_combination,
    cast(pool_id as varchar) as pool_id,
    cast(pool_number as bigint) as pool_number,
    cast(pool_size as bigint) as pool_size,
    cast(difficulty as double) as combination_difficulty,
    cast(ci_low as double) as difficulty_ci_low,
    cast(ci_high as double) as difficulty_ci_high,
    cast(pool_centre as double) as pool_centre,
    cast(pool_min_difficulty as double) as pool_min_difficulty,
    cast(pool_max_difficulty as double) as pool_max_difficulty,
    cast(pool_max_difficulty - pool_min_difficulty as double) as pool_range,
    cast(tolerance as double) as tolerance,
    cast(equivalence_margin as double) as equivalence_margin,
    cast(difference_from_centre as double) as difference_from_centre,
    cast(difference_standard_error as double) as difference_standard_error,
    cast(difference_degrees_of_freedom as double) as difference_degrees_of_freedom,
    cast(difference_ci_low as double) as difference_ci_low,
    cast(difference_ci_high as double) as difference_ci_high,
    cast(1 - 2 * {{ var('alpha') }} as double) as difference_interval_level,
    cast(tost_p_value as double) as tost_p_value,
    cast(is_member_equivalent as boolean) as is_member_equivalent,
    cast(is_pool_equivalent as boolean) as is_pool_equivalent,
    cast(equivalence_status as varchar) as equivalence_status,
    cast(is_recommended_pool as boolean) as is_recommended_pool,
    cast(reason as varchar) as reason
from explained
