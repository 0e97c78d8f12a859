with

source as (
    select * from {{ ref('base_platform__test_cases') }}
),

renamed as (
    select
        test_case_id,
        challenge_id,
        input_text,
        case when nullif(trim(test_code), '') is not null then test_code end as test_code,
        language
    from source
    where rejection_reason is null
        and {{ kept_after_staging('test_cases') }}
)

select * from renamed
