{#
    The findings of detector `attempts_needed`, one row per finding in the shape
    int_bias_evidence_unioned unions: challenge, detector, finding_id, family, effect with
    its unit, interval, q, threshold, evidence, and the recommended action with its reason.
    Its entry in detector_registry() declares it (`evidence`). A query.
#}
{% macro default__attempts_needed_findings() %}
with

attempts_needed as (
    select * from {{ ref('fct_challenge_attempts_needed') }}
),

{#- Undecided verdicts: the plan that would settle them (fct_challenge_attempts_needed,
    all-time). Not a bias: the challenge's own evidence is too thin to tell, so the action
    is to collect attempts, ranked after every bias, trend and fix. #}
findings as (
    select
        challenge_id,
        'attempts_needed' as detector,
        challenge_id || '/attempts_needed' as finding_id,
        cast(null as varchar) as model_family,
        cast(max(challenge_additional_attempts) as double) as effect,
        'more scored attempts (all families topped up to the challenge plan)' as effect_unit,
        cast(null as double) as ci_low,
        cast(null as double) as ci_high,
        cast(null as double) as q_value,
        cast(null as double) as threshold,
        string_agg(
            recommendation, '; '
            order by additional_family_attempts desc nulls last, model_family
        ) as evidence,
        'collect_attempts' as recommended_action,
        'the verdict is insufficient evidence ('
            || max(eligibility) || '): collect about '
            || coalesce(cast(max(challenge_additional_attempts) as varchar), 'more')
            || ' more scored attempts in all (every family topped up to about '
            || coalesce(cast(max(challenge_plan_family_attempts) as varchar), '?')
            || ') to detect a ' || {{ format_number('max(detectable_shift)', '%g') }}
            || '-point bias with ' || {{ format_number('100 * max(target_power)', '%.0f') }}
            || '% power' as action_reason
    from attempts_needed
    where verdict_window = 'all' and recommendation is not null
    group by challenge_id
)

select * from findings
{% endmacro %}
