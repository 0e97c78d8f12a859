{#
    The findings of detector `combination_difficulty`, one row per finding in the shape
    int_bias_evidence_unioned unions: challenge, detector, finding_id, family, effect with
    its unit, interval, q, threshold, evidence, and the recommended action with its reason.
    Its entry in detector_registry() declares it (`evidence`). A query.
#}
{% macro default__combination_difficulty_findings() %}
with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

combinations as (
    select * from {{ ref('fct_combination_difficulty') }}
),

findings as (
    select
        challenges.challenge_id,
        'combination_difficulty' as detector,
        challenges.challenge_id || '/' || combinations.variable_combination as finding_id,
        cast(null as varchar) as model_family,
        combinations.deviation as effect,
        'points against the template mean (negative = harder)' as effect_unit,
        cast(null as double) as ci_low,
        cast(null as double) as ci_high,
        cast(null as double) as q_value,
        cast({{ var('combination_deviation_threshold') }} as double) as threshold,
        'its variable combination ' || combinations.variable_combination || ' scores '
            || {{ format_number('combinations.deviation', '%+.1f') }} || ' points against the'
            || ' mean of template ' || combinations.template_id || '''s '
            || combinations.template_combinations || ' combinations ('
            || combinations.attempts || ' attempts; threshold '
            || '{{ var("combination_deviation_threshold") }} points)' as evidence,
        'rebalance_combinations' as recommended_action,
        'the challenge is '
            || case when combinations.deviation < 0 then 'harder' else 'easier' end
            || ' than the other combinations of its template, so agents that draw it are'
            || case when combinations.deviation < 0 then ' penalised' else ' favoured' end
            || ': rebalance the template''s combinations (difficulty tiers, adjusted scores or'
            || ' pools of equivalent combinations)' as action_reason
    from combinations
    inner join challenges
        on combinations.template_id = challenges.template_id
        and combinations.variable_combination = challenges.variable_combination
    where combinations.is_flagged
)

select * from findings
{% endmacro %}
