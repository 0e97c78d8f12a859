{#
    One row per (content, briefing style, model family) for the families analysed on the
    content: those with at least `min_family_attempts` scored attempts in every style the
    content is offered in (so every style is compared on the same families). The family's
    effect in a style is its mean minus the mean of the other families' means in that
    style: a style-independent family skill gives the same effect in every style, and a
    shift of one family keeps its full size (a contrast with a mean that includes the
    family would shrink it by 1/K).
#}
with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

cells as (
    select * from {{ ref('int_briefing_style_cells_summarised') }}
),

offered_styles as (
    select
        template_id,
        variable_combination,
        count(distinct briefing_style) as styles
    from challenges
    where template_id is not null
        and briefing_style is not null
    group by template_id, variable_combination
),

family_coverage as (
    select
        cells.template_id,
        cells.variable_combination,
        cells.model_family,
        count(*) filter (where cells.attempts >= {{ var('min_family_attempts') }})
            as covered_styles
    from cells
    group by cells.template_id, cells.variable_combination, cells.model_family
),

analysed_cells as (
    select cells.*
    from cells
    inner join family_coverage
        on cells.template_id = family_coverage.template_id
        and cells.variable_combination = family_coverage.variable_combination
        and cells.model_family = family_coverage.model_family
    inner join offered_styles
        on cells.template_id = offered_styles.template_id
        and cells.variable_combination = offered_styles.variable_combination
    where family_coverage.covered_styles = offered_styles.styles
),

style_totals as (
    select
        template_id,
        variable_combination,
        briefing_style,
        count(*) as families,
        sum(mean_score order by model_family) as family_mean_sum
    from analysed_cells
    group by template_id, variable_combination, briefing_style
),

family_effects as (
    select
        analysed_cells.template_id,
        analysed_cells.variable_combination,
        analysed_cells.briefing_style,
        analysed_cells.model_family,
        analysed_cells.attempts,
        analysed_cells.mean_score,
        analysed_cells.within_ss,
        style_totals.families,
        case
            when style_totals.families >= 2 then
                analysed_cells.mean_score
                - (style_totals.family_mean_sum - analysed_cells.mean_score)
                / (style_totals.families - 1)
        end as family_effect
    from analysed_cells
    inner join style_totals
        on analysed_cells.template_id = style_totals.template_id
        and analysed_cells.variable_combination = style_totals.variable_combination
        and analysed_cells.briefing_style = style_totals.briefing_style
)

select * from family_effects
