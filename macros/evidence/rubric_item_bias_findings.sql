{#
    The findings of detector `rubric_item_bias`, one row per finding in the shape
    int_bias_evidence_unioned unions: challenge, detector, finding_id, family, effect with
    its unit, interval, q, threshold, evidence, and the recommended action with its reason.
    Its entry in detector_registry() declares it (`evidence`). A query.
#}
{% macro default__rubric_item_bias_findings() %}
with

rubric_items as (
    select * from {{ ref('fct_rubric_item_bias') }}
),

rubric_item_families as (
    select * from {{ ref('int_rubric_item_family_dif') }}
),

{#- F6 audit: rubric-item DIF, locale-specific briefings, undefined regulated-domain terms. #}
findings as (
    select
        rubric_items.challenge_id,
        'rubric_item_bias' as detector,
        rubric_items.challenge_id || '/' || rubric_items.rubric_item_id as finding_id,
        rubric_items.lead_family as model_family,
        rubric_items.lead_d_dif as effect,
        'MH D-DIF (ETS delta scale; negative = the family earns the item less often)'
            as effect_unit,
        lead_family_dif.d_dif_ci_low as ci_low,
        lead_family_dif.d_dif_ci_high as ci_high,
        rubric_items.gcmh_q_value as q_value,
        cast({{ var('dif_large_d_dif') }} as double) as threshold,
        'rubric item ' || rubric_items.rubric_item_id || ' ("' || rubric_items.description
            || '"): ' || rubric_items.reason as evidence,
        'fix_rubric' as recommended_action,
        'rubric item ' || rubric_items.rubric_item_id || ' is earned at different rates by'
            || ' families whose attempts are equally good: it rewards a style rather than the'
            || ' result; reword it'
            || coalesce(' (suggested: ' || rubric_items.suggested_rewording || ')', '')
            as action_reason
    from rubric_items
    left join rubric_item_families as lead_family_dif
        on rubric_items.rubric_item_id = lead_family_dif.rubric_item_id
        and rubric_items.lead_family = lead_family_dif.model_family
    where rubric_items.is_flagged
)

select * from findings
{% endmacro %}
