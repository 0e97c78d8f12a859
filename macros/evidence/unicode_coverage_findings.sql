{#
    The findings of detector `unicode_coverage`, one row per finding in the shape
    int_bias_evidence_unioned unions: challenge, detector, finding_id, family, effect with
    its unit, interval, q, threshold, evidence, and the recommended action with its reason.
    Its entry in detector_registry() declares it (`evidence`). A query.
#}
{% macro default__unicode_coverage_findings() %}
with

unicode_coverage as (
    select * from {{ ref('fct_string_challenge_unicode_coverage') }}
),

findings as (
    select
        challenge_id,
        'unicode_coverage' as detector,
        challenge_id || '/' || {{ sql_string_literal(var("unicode_coverage_tag")) }} as finding_id,
        cast(null as varchar) as model_family,
        cast(required_categories - covered_category_count as double) as effect,
        'Unicode input categories missing from the test inputs' as effect_unit,
        cast(null as double) as ci_low,
        cast(null as double) as ci_high,
        cast(null as double) as q_value,
        cast(0 as double) as threshold,
        'Unicode coverage of its test inputs: ' || reason as evidence,
        'fix_tests' as recommended_action,
        'a ' || {{ sql_string_literal(var("unicode_coverage_tag")) }} || ' challenge must test every Unicode category and'
            || ' its tests do not: add test inputs for the missing categories' as action_reason
    from unicode_coverage
    where not is_fully_covered
)

select * from findings
{% endmacro %}
