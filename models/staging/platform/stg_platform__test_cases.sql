with

source as (
    select * from {{ ref('base_platform__test_cases') }}
),

renamed as (
    select
        test_case_id,
        challenge_id,
        input_text
    from source
    where rejection_reason is null
)

select * from renamed
