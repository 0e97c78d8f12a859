{#
    Every raw test result row, typed, with the first rule it breaks (NULL when clean).
    `test_results` is optional: when the platform has no such table this model is empty.
    The key is (attempt_id, test_case_id), compared column by column (no key string is
    built for the largest raw table); stg_platform__test_results spells it
    `test_result_id` ('attempt/test case') for listings. `passed` must read as a boolean
    (true/false, t/f, 1/0, yes/no).
    The join that finds the attempt also keeps its agent and score (`agent_id`,
    `attempt_score`), so that no later model joins the results to the attempts again.
    Not sorted: everything downstream counts rows (integers), which no row order changes.
#}
{%- set raw_test_results = optional_source_rows(
    'test_results',
    {'attempt_id': 'varchar', 'test_case_id': 'varchar', 'passed': 'boolean'}
) %}
with

source as (
    select * from {{ raw_test_results }}
),

attempts as (
    select * from {{ ref('stg_platform__attempts') }}
),

test_cases as (
    select * from {{ ref('stg_platform__test_cases') }}
),

{# Reads the raw rows itself: a second reference to `source` would materialise it. #}
duplicates as (
    {{ key_duplicates(raw_test_results, ['attempt_id', 'test_case_id'], ['passed']) }}
),

typed as (
    select
        source.source_row_number,
        cast(source.attempt_id as varchar) as attempt_id,
        cast(source.test_case_id as varchar) as test_case_id,
        source.passed as raw_passed,
        try_cast(cast(source.passed as varchar) as boolean) as passed,
        duplicates.duplicate_kind
    from source
    left join duplicates
        on source.source_row_number = duplicates.source_row_number
),

checked as (
    select
        typed.source_row_number,
        typed.attempt_id,
        typed.test_case_id,
        typed.passed,
        attempts.agent_id,
        attempts.score as attempt_score,
        case
            when nullif(trim(typed.attempt_id), '') is null then 'null_attempt_id'
            when nullif(trim(typed.test_case_id), '') is null then 'null_test_case_id'
            when typed.duplicate_kind = 'conflicting' then 'conflicting_test_result_id'
            when typed.duplicate_kind = 'duplicate' then 'duplicate_test_result_id'
            when attempts.attempt_id is null then 'unknown_attempt_id'
            when test_cases.test_case_id is null then 'unknown_test_case_id'
            when test_cases.challenge_id <> attempts.challenge_id
                then 'test_case_of_other_challenge'
            when typed.raw_passed is null then 'null_passed'
            when typed.passed is null then 'passed_not_boolean'
        end as rejection_reason,
        typed.raw_passed
    from typed
    left join attempts
        on typed.attempt_id = attempts.attempt_id
    left join test_cases
        on typed.test_case_id = test_cases.test_case_id
)

select
    source_row_number,
    attempt_id,
    test_case_id,
    passed,
    agent_id,
    attempt_score,
    rejection_reason,
    case
        when rejection_reason is not null then
            {{ record_to_json(
                {'attempt_id': 'attempt_id', 'test_case_id': 'test_case_id', 'passed': 'raw_passed'},
                'checked'
            ) }}
    end as raw_record
from checked
