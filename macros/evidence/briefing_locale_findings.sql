{#
    The findings of detector `briefing_locale`, one row per finding in the shape
    int_bias_evidence_unioned unions: challenge, detector, finding_id, family, effect with
    its unit, interval, q, threshold, evidence, and the recommended action with its reason.
    Its entry in detector_registry() declares it (`evidence`). A query.
#}
{% macro default__briefing_locale_findings() %}
with

locale_findings as (
    select * from {{ ref('fct_briefing_locale_findings') }}
),

verdicts as (
    select * from {{ ref('fct_challenge_verdicts') }}
),

{#- a finding on any challenge whose verdict is flagged can explain its family bias, tagged
    competitive or not; the tag only makes an unreviewed finding a queue item on its own
    (and a gate failure) #}
flagged_challenges as (
    select challenge_id
    from verdicts
    where verdict = 'flagged'
),

findings as (
    select
        challenge_id,
        'briefing_locale' as detector,
        challenge_id || '/' || rule_id || ':' || match_position as finding_id,
        cast(null as varchar) as model_family,
        cast(null as double) as effect,
        cast(null as varchar) as effect_unit,
        cast(null as double) as ci_low,
        cast(null as double) as ci_high,
        cast(null as double) as q_value,
        cast(null as double) as threshold,
        'its briefing assumes a locale: "' || matched_text || '" (' || rule_description
            || ') in a '
            || case when is_competitive then 'competitive challenge' else 'challenge' end
            || ', not reviewed' as evidence,
        'fix_briefing' as recommended_action,
        case when is_competitive then 'a competitive briefing' else 'a briefing' end
            || ' must not assume a locale: replace "' || matched_text
            || '" with ' || coalesce(suggested_neutral_form, 'a locale-neutral form')
            as action_reason
    from locale_findings
    where needs_review
        or (
            not is_reviewed
            and challenge_id in (select challenge_id from flagged_challenges)
        )
)

select * from findings
{% endmacro %}
