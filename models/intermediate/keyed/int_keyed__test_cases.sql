with

source as (
    select * from {{ ref('base_platform__test_cases') }}
),

renamed as (
    select
        source.test_case_id,
        source.challenge_id,
        source.input_text,
        case
            when nullif(trim(source.test_code), '') is not null then source.test_code
        end as test_code,
        source.language
    from source
    left join {{ rejected_after_staging('test_cases') }} as rejected
        on source.source_row_number = rejected.source_row_number
    where source.rejection_reason is null
        and rejected.source_row_number is null
)

select * from renamed
