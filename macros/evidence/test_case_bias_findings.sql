{#
    The findings of detector `test_case_bias`, one row per finding in the shape
    int_bias_evidence_unioned unions: challenge, detector, finding_id, family, effect with
    its unit, interval, q, threshold, evidence, and the recommended action with its reason.
    Its entry in detector_registry() declares it (`evidence`). A query.
#}
{% macro default__test_case_bias_findings() %}
with

test_cases as (
    select * from {{ ref('fct_test_case_bias') }}
),

test_case_families as (
    select * from {{ ref('fct_test_case_family_dif') }}
),

{#- the test-code lint's first finding on the test case, cited as the likely cause #}
test_code_lints as (
    select * from {{ ref('fct_test_code_lint') }}
    where finding_count > 0
),

findings as (
    select
        test_cases.challenge_id,
        'test_case_bias' as detector,
        test_cases.challenge_id || '/' || test_cases.test_case_id as finding_id,
        test_cases.lead_family as model_family,
        test_cases.lead_d_dif as effect,
        'MH D-DIF (ETS delta scale; negative = the family passes less often)' as effect_unit,
        lead_family_dif.d_dif_ci_low as ci_low,
        lead_family_dif.d_dif_ci_high as ci_high,
        test_cases.gcmh_q_value as q_value,
        cast({{ var('dif_large_d_dif') }} as double) as threshold,
        'test case ' || test_cases.test_case_id || ': ' || test_cases.reason
            || coalesce(
                '; its code, line ' || cast(test_code_lints.first_finding_line as varchar) || ' ('
                    || test_code_lints.first_finding_category || '): '
                    || test_code_lints.first_finding_message,
                ''
            ) as evidence,
        'fix_tests' as recommended_action,
        'test case ' || test_cases.test_case_id || ' is passed at different rates by families'
            || ' whose attempts are equally good (differential item functioning): it likely'
            || ' checks names or formats rather than behaviour; rewrite it to test behaviour'
            || coalesce(
                ' (line ' || cast(test_code_lints.first_finding_line as varchar) || ': '
                    || test_code_lints.first_finding_rewrite || ')',
                ''
            ) as action_reason
    from test_cases
    left join test_case_families as lead_family_dif
        on test_cases.test_case_id = lead_family_dif.test_case_id
        and test_cases.lead_family = lead_family_dif.model_family
    left join test_code_lints
        on test_cases.test_case_id = test_code_lints.test_case_id
    where test_cases.is_review_recommended
)

select * from findings
{% endmacro %}
