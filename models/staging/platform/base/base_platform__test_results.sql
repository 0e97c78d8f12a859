{#
    Every raw test result row, typed, with the first rule it breaks (NULL when clean).
    `test_results` is optional: when the platform has no such table this model is empty.
    The key is (attempt_id, test_case_id); `test_result_id` spells it 'attempt/test case'
    for listings. `passed` must read as a boolean (true/false, t/f, 1/0, yes/no).
#}
with

source as (
    select
        raw_rows.*,
        {# length-prefixed, so that ('a/b', 'c') and ('a', 'b/c') stay different keys #}
        length(cast(raw_rows.attempt_id as varchar)) || ':'
            || cast(raw_rows.attempt_id as varchar) || '/'
            || cast(raw_rows.test_case_id as varchar) as test_result_key
    from {{ optional_source_rows(
        'test_results',
        {'attempt_id': 'varchar', 'test_case_id': 'varchar', 'passed': 'boolean'}
    ) }} as raw_rows
),

attempts as (
    select * from {{ ref('stg_platform__attempts') }}
),

test_cases as (
    select * from {{ ref('stg_platform__test_cases') }}
),

duplicates as (
    {{ key_duplicates('source', 'test_result_key', ['passed']) }}
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
        typed.attempt_id || '/' || typed.test_case_id as test_result_id,
        typed.attempt_id,
        typed.test_case_id,
        typed.passed,
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
    test_result_id,
    attempt_id,
    test_case_id,
    passed,
    rejection_reason,
    case
        when rejection_reason is not null then
            {{ record_to_json(
                {'attempt_id': 'attempt_id', 'test_case_id': 'test_case_id', 'passed': 'raw_passed'},
                'checked'
            ) }}
    end as raw_record
from checked
{#- Stored in source order: downstream scans and sums see the rows in the same order on every build. #}
order by source_row_number
