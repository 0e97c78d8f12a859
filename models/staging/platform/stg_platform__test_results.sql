with

source as (
    select * from {{ ref('base_platform__test_results') }}
),

renamed as (
    select
        attempt_id || '/' || test_case_id as test_result_id,
        attempt_id,
        test_case_id,
        passed,
        agent_id,
        attempt_score
    from source
    where rejection_reason is null
)

select * from renamed
