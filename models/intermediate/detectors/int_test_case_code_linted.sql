{#
    One row per clean test case with test code: the test-code lint's result (status,
    language, interface style and the list of findings), against its challenge's briefing
    (NULL when the challenge has none: then no name is the briefing's).
#}
with

test_code as (
    select
        test_case_id,
        challenge_id,
        test_code,
        language
    from {{ ref('int_keyed__test_cases') }}
    where test_code is not null
),

briefings as (
    select
        challenge_id,
        briefing_text
    from {{ ref('stg_platform__challenges') }}
    where briefing_text is not null
),

linted as (
    select
        test_code.test_case_id,
        test_code.challenge_id,
        test_code.language as declared_language,
        briefings.challenge_id is not null as has_briefing,
        {{ challenge_fairness.lint_test_code(
            'test_code.test_code', 'test_code.language', 'briefings.briefing_text') }} as lint
    from test_code
    left join briefings
        on test_code.challenge_id = briefings.challenge_id
)

select
    test_case_id,
    challenge_id,
    declared_language,
    has_briefing,
    lint.status as lint_status,
    lint.reason as lint_reason,
    lint.language,
    lint.is_language_inferred,
    lint.interface_style,
    lint.findings
from linted
order by test_case_id
