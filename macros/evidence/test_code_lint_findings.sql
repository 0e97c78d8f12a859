{#
    The findings of detector `test_code_lint`, one row per test case whose code has a
    finding, in the shape int_bias_evidence_unioned unions. Its cause is the test case's
    ('test_case:<test_case_id>', as test_case_bias's), so a lint finding and the test case's
    DIF are one review-queue item; the evidence cites the first finding's line and, when the
    test case's DIF recommends review, the family that passes it less often. A test case
    without attempts is still a finding (a new challenge's tests). Declared in
    detector_registry() (`evidence`). A query.
#}
{% macro default__test_code_lint_findings() %}
with

linted as (
    select * from {{ ref('fct_test_code_lint') }}
),

test_cases as (
    select * from {{ ref('fct_test_case_bias') }}
),

findings as (
    select
        linted.challenge_id,
        'test_code_lint' as detector,
        linted.challenge_id || '/' || linted.test_case_id as finding_id,
        case when test_cases.is_review_recommended then test_cases.lead_family end
            as model_family,
        cast(null as double) as effect,
        cast(null as varchar) as effect_unit,
        cast(null as double) as ci_low,
        cast(null as double) as ci_high,
        cast(null as double) as q_value,
        cast(null as double) as threshold,
        'test case ' || linted.test_case_id || ' line '
            || cast(linted.first_finding_line as varchar) || ' ('
            || linted.first_finding_category || '): ' || linted.first_finding_message
            || case
                when linted.finding_count > 1
                    then ' (+' || cast(linted.finding_count - 1 as varchar) || ' more)'
                else ''
            end
            || case
                when test_cases.is_review_recommended
                    then '; its DIF: ' || test_cases.reason
                when test_cases.results > 0 then '; no DIF that recommends review'
                else '; no attempt yet'
            end as evidence,
        'fix_tests' as recommended_action,
        'line ' || cast(linted.first_finding_line as varchar) || ' of test case '
            || linted.test_case_id || ' checks the implementation, not the behaviour ('
            || linted.first_finding_category || '): ' || linted.first_finding_rewrite
            || case
                when test_cases.is_review_recommended
                    then '; family ' || test_cases.lead_family
                        || ' already fails it more often than equally scored others'
                else ''
            end as action_reason
    from linted
    left join test_cases
        on linted.test_case_id = test_cases.test_case_id
    where linted.finding_count > 0
)

select * from findings
{% endmacro %}
