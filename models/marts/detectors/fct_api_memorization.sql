{%- set threshold = var('api_memorization_slope_threshold') %}
with

slopes as (
    select * from {{ ref('int_api_memorization_slopes_fitted') }}
),

cells as (
    select * from {{ ref('int_api_memorization_cells_prepared') }}
),

cutoffs as (
    select * from {{ ref('int_model_cutoffs_centred') }}
),

platform_counts as (
    select
        count(*) filter (where training_cutoff is not null) as models_with_cutoff,
        count(*) filter (where training_cutoff is null) as models_without_cutoff
    from cutoffs
),

control_counts as (
    select
        count(distinct challenge_id) as control_challenges,
        coalesce(sum(scored_attempts), 0) as control_attempts
    from cells
    where is_control
),

combined as (
    select
        api_name,
        count(*) as tagged_challenges,
        count(*) filter (where fit_status = 'ok') as tested_challenges,
        coalesce(sum(attempts) filter (where fit_status = 'ok'), 0) as tagged_attempts,
        avg(control_slope order by challenge_id) filter (where fit_status = 'ok')
            as control_slope,
        avg(tagged_slope order by challenge_id) filter (where fit_status = 'ok')
            as tagged_slope,
        {{ mean_of_estimates(
            "coalesce(list(slope_difference order by challenge_id) filter (where fit_status = 'ok'), cast([] as double[]))",
            "coalesce(list(standard_error order by challenge_id) filter (where fit_status = 'ok'), cast([] as double[]))",
            "coalesce(list(degrees_of_freedom order by challenge_id) filter (where fit_status = 'ok'), cast([] as double[]))",
            var('alpha')
        ) }} as effect,
        min(fit_reason) filter (where fit_status <> 'ok') as first_fit_reason
    from slopes
    group by api_name
),

effects as (
    select
        combined.api_name,
        combined.tagged_challenges,
        combined.tested_challenges,
        combined.tagged_attempts,
        control_counts.control_challenges,
        control_counts.control_attempts,
        platform_counts.models_with_cutoff,
        platform_counts.models_without_cutoff,
        combined.control_slope,
        combined.tagged_slope,
        combined.effect.estimate as slope_difference,
        combined.effect.standard_error,
        combined.effect.degrees_of_freedom,
        combined.effect.variance_source,
        combined.effect.t_statistic,
        combined.effect.p_value,
        combined.effect.ci_low,
        combined.effect.ci_high,
        case when combined.effect.status = 'ok' then 'tested' else 'not_testable' end as status,
        case
            when combined.effect.status = 'ok' then null
            when platform_counts.models_with_cutoff = 0 then 'no model has a training_cutoff'
            when control_counts.control_challenges = 0
                then 'no untagged (control) challenge with scored attempts to compare with'
            else combined.effect.reason || coalesce(' (' || combined.first_fit_reason || ')', '')
        end as reason
    from combined
    cross join platform_counts
    cross join control_counts
),

q_values as (
    {{ benjamini_hochberg('effects', 'api_name', 'p_value') }}
),

flagged as (
    select
        effects.*,
        q_values.q_value,
        coalesce(q_values.q_value < {{ var('alpha') }}, false) as is_significant,
        coalesce(
            q_values.q_value < {{ var('alpha') }}
            and effects.slope_difference > {{ threshold }},
            false
        ) as is_flagged
    from effects
    left join q_values
        on effects.api_name = q_values.api_name
)

select
    cast(api_name as varchar) as api_name,
    cast('api:' || api_name as varchar) as tag,
    cast(tagged_challenges as bigint) as tagged_challenges,
    cast(tested_challenges as bigint) as tested_challenges,
    cast(tagged_attempts as bigint) as tagged_attempts,
    cast(control_challenges as bigint) as control_challenges,
    cast(control_attempts as bigint) as control_attempts,
    cast(models_with_cutoff as bigint) as models_with_cutoff,
    cast(models_without_cutoff as bigint) as models_without_cutoff,
    cast(control_slope as double) as control_slope,
    cast(tagged_slope as double) as tagged_slope,
    cast(slope_difference as double) as slope_difference,
    cast(standard_error as double) as standard_error,
    cast(degrees_of_freedom as double) as degrees_of_freedom,
    cast(variance_source as varchar) as variance_source,
    cast(t_statistic as double) as t_statistic,
    cast(p_value as double) as p_value,
    cast(q_value as double) as q_value,
    cast(ci_low as double) as ci_low,
    cast(ci_high as double) as ci_high,
    cast(1 - {{ var('alpha') }} as double) as interval_level,
    cast({{ threshold }} as double) as slope_threshold,
    cast(is_significant as boolean) as is_significant,
    cast(is_flagged as boolean) as is_flagged,
    cast(status as varchar) as status,
    cast(reason as varchar) as reason
from flagged
