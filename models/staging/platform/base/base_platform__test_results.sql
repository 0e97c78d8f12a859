{#
    The raw test results in one pass, validated and compressed: each raw row is typed and
    checked against the first rule it breaks, then
    - a rejected row is kept as it is (its source_row_number, attempt_id, raw_record and
      rejection_reason; `results` = 1), and
    - the clean rows are counted per (test case, agent, score band of the attempt, passed):
      `results` rows each, source_row_number and attempt_id NULL.
    So the largest raw table is read once and never copied row by row: its clean rows
    become one fact every test-case detector reads (stg_platform__test_results).
    `test_results` is optional: when the platform has no such table this model is empty.

    The key is (attempt_id, test_case_id), compared column by column (no key string is
    built); its repeats come from base_platform__test_result_duplicates. `passed` must read
    as a boolean (true/false, t/f, 1/0, yes/no). The join that finds the attempt also gives
    its agent and score band (macro dif_score_band); the band is NULL for a result of an
    unscored attempt (it takes no part in the DIF). `is_in_scan` says whether the attempt
    is in this run's scan (macro attempt_in_scan; NULL for a rejected row): the results
    of an attempt after var bias_scan_date are valid, counted, and left out of the scan.
    Rows conserved: raw rows = sum(results) over clean and rejected rows (fct_source_row_counts).
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
    {{ attempts_to_validate_against() }}
),

test_cases as (
    select * from {{ ref('stg_platform__test_cases') }}
),

duplicates as (
    select * from {{ ref('base_platform__test_result_duplicates') }}
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
        {{ challenge_fairness.dif_score_band('attempts.score') }} as score_band,
        attempts.is_in_scan,
        case
            {#- A found attempt or test case has a non-blank id: trim only the others. #}
            when attempts.attempt_id is null and nullif(trim(typed.attempt_id), '') is null
                then 'null_attempt_id'
            when test_cases.test_case_id is null and nullif(trim(typed.test_case_id), '') is null
                then 'null_test_case_id'
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
),

{# A rejected row keeps its identity; clean rows keep only what the detectors count by. #}
keyed as (
    select
        case when rejection_reason is not null then source_row_number end as source_row_number,
        case when rejection_reason is not null then attempt_id end as attempt_id,
        test_case_id,
        case when rejection_reason is null then agent_id end as agent_id,
        case when rejection_reason is null then score_band end as score_band,
        case when rejection_reason is null then is_in_scan end as is_in_scan,
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
),

compressed as (
    select
        source_row_number,
        attempt_id,
        test_case_id,
        agent_id,
        score_band,
        is_in_scan,
        passed,
        rejection_reason,
        {#- a rejected row is a group of its own (source_row_number); clean rows have none #}
        min(raw_record) as raw_record,
        count(*) as results
    from keyed
    group by
        source_row_number,
        attempt_id,
        test_case_id,
        agent_id,
        score_band,
        is_in_scan,
        passed,
        rejection_reason
)

select * from compressed
