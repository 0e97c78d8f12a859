{#
    The findings of detector `briefing_domain_assumptions`, one row per finding in the shape
    int_bias_evidence_unioned unions: challenge, detector, finding_id, family, effect with
    its unit, interval, q, threshold, evidence, and the recommended action with its reason.
    Its entry in detector_registry() declares it (`evidence`). A query.
#}
{% macro default__briefing_domain_assumptions_findings() %}
with

domain_assumptions as (
    select * from {{ ref('fct_briefing_domain_assumptions') }}
),

verdicts as (
    select * from {{ ref('fct_challenge_verdicts') }}
),

{#- a jargon candidate (severity 'candidate') is evidence only where it can explain a
    flagged family bias; a curated term is a queue item on its own #}
flagged_challenges as (
    select challenge_id
    from verdicts
    where verdict = 'flagged'
),

findings as (
    select
        challenge_id,
        'briefing_domain_assumptions' as detector,
        challenge_id || '/' || term_id as finding_id,
        cast(null as varchar) as model_family,
        cast(null as double) as effect,
        cast(null as varchar) as effect_unit,
        cast(null as double) as ci_low,
        cast(null as double) as ci_high,
        cast(null as double) as q_value,
        cast(null as double) as threshold,
        reason as evidence,
        'fix_briefing' as recommended_action,
        'the briefing relies on ' || domain || ' knowledge ("' || matched_text
            || '") without stating the requirement: state it in the briefing' as action_reason
    from domain_assumptions
    where is_flagged
        and (
            severity = 'high'
            or challenge_id in (select challenge_id from flagged_challenges)
        )
)

select * from findings
{% endmacro %}
