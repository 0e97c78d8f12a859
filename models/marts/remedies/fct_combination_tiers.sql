{#
    Difficulty tiers: bands of `combination_tier_width` points centred on the template
    mean (band 0 = within +-width/2 of it, band +k = about k widths easier, -k harder).
    A combination's band is that of its measured difficulty; its interval's ends give
    band_low and band_high, and when they differ the tier is not certain (the label stays
    the point estimate's, is_tier_certain says it may belong to a neighbour).
    tier = dense rank of the occupied bands within the template, 1 = easiest.
#}
{%- set width = challenge_fairness.validated_var('combination_tier_width') %}
{%- if width is none or width | float <= 0 -%}
    {{ exceptions.raise_compiler_error("combination_tier_width must be > 0 points") }}
{%- endif %}
with

difficulties as (
    select * from {{ ref('int_combination_difficulties_measured') }}
),

raw_difficulties as (
    select * from {{ ref('int_combination_deviations_measured') }}
),

banded as (
    select
        difficulties.*,
        raw_difficulties.mean_score as raw_mean_score,
        raw_difficulties.deviation as raw_deviation,
        cast(round(difficulties.difficulty / {{ width }}) as bigint) as difficulty_band,
        cast(round(difficulties.ci_low / {{ width }}) as bigint) as band_low,
        cast(round(difficulties.ci_high / {{ width }}) as bigint) as band_high
    from difficulties
    left join raw_difficulties
        on difficulties.template_id = raw_difficulties.template_id
        and difficulties.variable_combination = raw_difficulties.variable_combination
),

tiered as (
    select
        *,
        case
            when difficulty_band is not null then
                dense_rank() over (
                    partition by template_id, difficulty_band is null
                    order by difficulty_band desc
                )
        end as tier,
        case
            when difficulty_band is null then 'unmeasured'
            when difficulty_band = 0 then 'standard'
            when difficulty_band > 0
                then 'easier by about '
                    || {{ format_number('cast(difficulty_band * ' ~ width ~ ' as double)', '%g') }}
                    || ' points'
            else 'harder by about '
                || {{ format_number('cast(-difficulty_band * ' ~ width ~ ' as double)', '%g') }}
                || ' points'
        end as tier_label,
        band_low = band_high and band_low = difficulty_band as is_tier_certain
    from banded
)

select
    cast(template_id as varchar) as template_id,
    cast(variable_combination as varchar) as variable_combination,
    cast(challenges as bigint) as challenges,
    cast(scored_attempts as bigint) as scored_attempts,
    cast(families as bigint) as families,
    cast(template_combinations as bigint) as template_combinations,
    cast(measured_combinations as bigint) as measured_combinations,
    cast(difficulty as double) as combination_difficulty,
    cast(standard_error as double) as difficulty_standard_error,
    cast(degrees_of_freedom as double) as difficulty_degrees_of_freedom,
    cast(ci_low as double) as difficulty_ci_low,
    cast(ci_high as double) as difficulty_ci_high,
    cast(1 - {{ var('alpha') }} as double) as interval_level,
    cast(p_value as double) as difficulty_p_value,
    cast(raw_mean_score as double) as raw_mean_score,
    cast(raw_deviation as double) as raw_deviation,
    cast(raw_deviation - difficulty as double) as raw_minus_adjusted,
    cast({{ width }} as double) as tier_width,
    cast(difficulty_band as bigint) as difficulty_band,
    cast(band_low as bigint) as band_low,
    cast(band_high as bigint) as band_high,
    cast(tier as bigint) as tier,
    cast(tier_label as varchar) as tier_label,
    cast(is_tier_certain as boolean) as is_tier_certain,
    cast(status as varchar) as status,
    cast(reason as varchar) as reason
from tiered
