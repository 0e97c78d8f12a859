{#
    The findings of detector `approach_bias`, one row per finding in the shape
    int_bias_evidence_unioned unions: challenge, detector, finding_id, family, effect with
    its unit, interval, q, threshold, evidence, and the recommended action with its reason.
    Its entry in detector_registry() declares it (`evidence`). A query.
#}
{% macro default__approach_bias_findings() %}
with

approach_pairs as (
    select * from {{ ref('fct_approach_bias') }}
),

findings as (
    select
        challenge_id,
        'approach_bias' as detector,
        challenge_id || '/' || approach_a || ' vs ' || approach_b as finding_id,
        cast(null as varchar) as model_family,
        stratified_gap as effect,
        'points (approach_a minus approach_b, within model families)' as effect_unit,
        ci_low,
        ci_high,
        q_value,
        gap_threshold as threshold,
        'approach ' || approach_a || ' scores '
            || {{ format_number('stratified_gap', '%+.1f') }} || ' points against '
            || approach_b || ' within model families ('
            || {{ format_number('100 * interval_level', '%.0f') }} || '% CI '
            || {{ format_number('ci_low', '%+.1f') }} || ' to '
            || {{ format_number('ci_high', '%+.1f') }} || '; naive gap '
            || {{ format_number('naive_gap', '%+.1f') }} || '; q = '
            || {{ format_number('q_value', '%.2g') }} || '; threshold '
            || {{ format_number('gap_threshold', '%g') }} || ' points)' as evidence,
        'fix_tests' as recommended_action,
        'two solution approaches are scored differently among comparable attempts: the tests'
            || ' or scorer reward '
            || case when stratified_gap > 0 then approach_a else approach_b end
            || ' over the equally valid '
            || case when stratified_gap > 0 then approach_b else approach_a end
            || '; make them accept both (families prefer different approaches)' as action_reason
    from approach_pairs
    where is_flagged
)

select * from findings
{% endmacro %}
