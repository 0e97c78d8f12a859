with

source as (
    select * from {{ ref('base_platform__challenge_files') }}
),

renamed as (
    select
        source.challenge_id,
        source.file_path,
        source.content
    from source
    left join {{ rejected_after_staging('challenge_files') }} as rejected
        on source.source_row_number = rejected.source_row_number
    where source.rejection_reason is null
        and rejected.source_row_number is null
)

select * from renamed
