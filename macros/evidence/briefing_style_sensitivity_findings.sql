{#
    The findings of detector `briefing_style_sensitivity`, one row per finding in the shape
    int_bias_evidence_unioned unions: challenge, detector, finding_id, family, effect with
    its unit, interval, q, threshold, evidence, and the recommended action with its reason.
    Its entry in detector_registry() declares it (`evidence`). A query.
#}
{% macro default__briefing_style_sensitivity_findings() %}
with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

briefing_styles as (
    select * from {{ ref('fct_briefing_style_sensitivity') }}
),

{#- Briefing style: a flagged content points at the briefings of its styles other than the
    recommended one (all of them when no style is recommended). #}
findings as (
    select
        challenges.challenge_id,
        'briefing_style_sensitivity' as detector,
        challenges.challenge_id || '/' || briefing_styles.briefing_style as finding_id,
        briefing_styles.most_affected_family as model_family,
        briefing_styles.max_family_effect_change as effect,
        'points of change in the family effect across briefing styles' as effect_unit,
        cast(null as double) as ci_low,
        cast(null as double) as ci_high,
        briefing_styles.q_value,
        cast({{ var('briefing_style_threshold') }} as double) as threshold,
        'in briefing style ' || briefing_styles.briefing_style || ', family '
            || briefing_styles.most_affected_family || ' fares differently: its effect against'
            || ' the other families changes by '
            || {{ format_number('briefing_styles.max_family_effect_change', '%.1f') }}
            || ' points across the styles of this content (template '
            || briefing_styles.template_id || ' ' || briefing_styles.variable_combination
            || '; family x style interaction q = '
            || {{ format_number('briefing_styles.q_value', '%.2g') }}
            || '; threshold {{ var("briefing_style_threshold") }} points)' as evidence,
        'fix_briefing' as recommended_action,
        'the briefing format, not the task, moves a family''s result: rewrite this briefing ('
            || briefing_styles.briefing_style || ') in the style '
            || coalesce(briefing_styles.recommended_style, 'with the lowest cross-family variance')
            || case
                when briefing_styles.recommended_style is not null
                    then ', which has the lowest cross-family variance'
                else ''
            end as action_reason
    from briefing_styles
    inner join challenges
        on briefing_styles.template_id = challenges.template_id
        and briefing_styles.variable_combination = challenges.variable_combination
        and briefing_styles.briefing_style = challenges.briefing_style
    where briefing_styles.is_flagged
        and not briefing_styles.is_recommended_style
)

select * from findings
{% endmacro %}
