{%- set threshold = var('briefing_style_threshold') %}
with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

cells as (
    select * from {{ ref('int_briefing_style_cells_summarised') }}
),

family_effects as (
    select * from {{ ref('int_briefing_style_family_effects') }}
),

contents_tested as (
    select * from {{ ref('int_briefing_style_contents_tested') }}
),

offered_styles as (
    select
        challenges.template_id,
        challenges.variable_combination,
        challenges.briefing_style,
        count(*) as challenges
    from challenges
    inner join contents_tested
        on challenges.template_id = contents_tested.template_id
        and challenges.variable_combination = contents_tested.variable_combination
    where challenges.briefing_style is not null
    group by challenges.template_id, challenges.variable_combination, challenges.briefing_style
),

style_attempts as (
    select
        template_id,
        variable_combination,
        briefing_style,
        sum(attempts) as attempts
    from cells
    group by template_id, variable_combination, briefing_style
),

style_spreads as (
    select
        template_id,
        variable_combination,
        briefing_style,
        {#- in family order: the same bits on every build #}
        avg(mean_score order by model_family) as family_balanced_mean,
        case
            when count(*) >= 2 then var_samp(mean_score order by model_family)
        end as cross_family_variance
    from family_effects
    group by template_id, variable_combination, briefing_style
),

ranked_styles as (
    select
        *,
        row_number() over (
            partition by template_id, variable_combination
            order by cross_family_variance nulls last, briefing_style
        ) as variance_rank,
        count(cross_family_variance) over (partition by template_id, variable_combination)
            as styles_with_variance
    from style_spreads
),

recommendations as (
    select
        template_id,
        variable_combination,
        briefing_style as recommended_style
    from ranked_styles
    where variance_rank = 1
        and styles_with_variance >= 2
),

lead_family_effects as (
    select
        family_effects.template_id,
        family_effects.variable_combination,
        family_effects.briefing_style,
        family_effects.family_effect
    from family_effects
    inner join contents_tested
        on family_effects.template_id = contents_tested.template_id
        and family_effects.variable_combination = contents_tested.variable_combination
        and family_effects.model_family = contents_tested.most_affected_family
),

lead_family_evidence as (
    select
        template_id,
        variable_combination,
        string_agg(
            '''' || briefing_style || ''' ' || {{ format_number('family_effect', '%+.1f') }},
            ', ' order by briefing_style
        ) as effects_by_style
    from lead_family_effects
    group by template_id, variable_combination
),

numbered_contents as (
    select
        *,
        row_number() over (order by template_id, variable_combination) as content_number
    from contents_tested
),

content_q_values as (
    {{ benjamini_hochberg(
        "(select * from numbered_contents where status = 'tested')",
        'content_number',
        'p_value'
    ) }}
),

judged_contents as (
    select
        numbered_contents.*,
        content_q_values.q_value,
        recommendations.recommended_style,
        lead_family_evidence.effects_by_style,
        numbered_contents.status = 'tested'
        and content_q_values.q_value < {{ var('alpha') }}
        and numbered_contents.max_family_effect_change > {{ threshold }} as is_flagged
    from numbered_contents
    left join content_q_values
        on numbered_contents.content_number = content_q_values.content_number
    left join recommendations
        on numbered_contents.template_id = recommendations.template_id
        and numbered_contents.variable_combination = recommendations.variable_combination
    left join lead_family_evidence
        on numbered_contents.template_id = lead_family_evidence.template_id
        and numbered_contents.variable_combination = lead_family_evidence.variable_combination
),

described_contents as (
    select
        *,
        case
            when status <> 'tested' then reason
            else
                'family ' || most_affected_family || ' changes by '
                || {{ format_number('max_family_effect_change', '%.1f') }}
                || ' points across styles against the other families ('
                || effects_by_style || '); family x style interaction F = '
                || {{ format_number('f_statistic', '%.2f') }} || ', q = '
                || {{ format_number('q_value', '%.2g') }}
                || case
                    when is_flagged
                        then
                            ' < alpha = {{ var("alpha") }} and beyond'
                            || ' briefing_style_threshold = {{ threshold }}'
                            || '; recommended style: ''' || coalesce(recommended_style, '?') || ''''
                    when q_value < {{ var('alpha') }}
                        then
                            ' < alpha = {{ var("alpha") }} but within'
                            || ' briefing_style_threshold = {{ threshold }}'
                    else ' >= alpha = {{ var("alpha") }}: no significant style sensitivity'
                end
        end as content_reason
    from judged_contents
),

sensitivity as (
    select
        offered_styles.template_id,
        offered_styles.variable_combination,
        offered_styles.briefing_style,
        offered_styles.challenges,
        coalesce(style_attempts.attempts, 0) as attempts,
        described_contents.styles,
        described_contents.families,
        style_spreads.family_balanced_mean,
        style_spreads.cross_family_variance,
        coalesce(offered_styles.briefing_style = described_contents.recommended_style, false)
            as is_recommended_style,
        described_contents.recommended_style,
        described_contents.most_affected_family,
        lead_family_effects.family_effect as most_affected_family_effect,
        described_contents.max_family_effect_change,
        described_contents.f_statistic,
        described_contents.df_interaction,
        described_contents.df_residual,
        described_contents.p_value,
        described_contents.q_value,
        described_contents.status,
        coalesce(described_contents.is_flagged, false) as is_flagged,
        described_contents.content_reason as reason
    from offered_styles
    inner join described_contents
        on offered_styles.template_id = described_contents.template_id
        and offered_styles.variable_combination = described_contents.variable_combination
    left join style_attempts
        on offered_styles.template_id = style_attempts.template_id
        and offered_styles.variable_combination = style_attempts.variable_combination
        and offered_styles.briefing_style = style_attempts.briefing_style
    left join style_spreads
        on offered_styles.template_id = style_spreads.template_id
        and offered_styles.variable_combination = style_spreads.variable_combination
        and offered_styles.briefing_style = style_spreads.briefing_style
    left join lead_family_effects
        on offered_styles.template_id = lead_family_effects.template_id
        and offered_styles.variable_combination = lead_family_effects.variable_combination
        and offered_styles.briefing_style = lead_family_effects.briefing_style
)

select
    cast(template_id as varchar) as template_id,
    cast(variable_combination as varchar) as variable_combination,
    cast(briefing_style as varchar) as briefing_style,
    cast(challenges as bigint) as challenges,
    cast(attempts as bigint) as attempts,
    cast(styles as bigint) as styles,
    cast(families as bigint) as families,
    cast(family_balanced_mean as double) as family_balanced_mean,
    cast(cross_family_variance as double) as cross_family_variance,
    cast(is_recommended_style as boolean) as is_recommended_style,
    cast(recommended_style as varchar) as recommended_style,
    cast(most_affected_family as varchar) as most_affected_family,
    cast(most_affected_family_effect as double) as most_affected_family_effect,
    cast(max_family_effect_change as double) as max_family_effect_change,
    cast(f_statistic as double) as f_statistic,
    cast(df_interaction as bigint) as df_interaction,
    cast(df_residual as bigint) as df_residual,
    cast(p_value as double) as p_value,
    cast(q_value as double) as q_value,
    cast(status as varchar) as status,
    cast(is_flagged as boolean) as is_flagged,
    cast(reason as varchar) as reason
from sensitivity
