{#
    The usable test results as one fact: one row per (test case, agent, score band of the
    attempt, passed) with the number of results (band NULL: the attempt was unscored).
    Compressed in the one pass over the raw table (int_keyed__test_results_checked). Only the
    results of attempts in this run's scan (with var bias_scan_date: submitted by then).
#}
with

source as (
    select * from {{ ref('int_keyed__test_results_checked') }}
),

renamed as (
    select
        test_case_id,
        agent_id,
        score_band,
        passed,
        results
    from source
    where rejection_reason is null
        and is_in_scan
)

select * from renamed
