with

source as (
    select * from {{ ref('base_platform__rubric_items') }}
),

renamed as (
    select
        source.rubric_item_id,
        source.challenge_id,
        source.description,
        source.max_points
    from source
    left join {{ rejected_after_staging('rubric_items') }} as rejected
        on source.source_row_number = rejected.source_row_number
    where source.rejection_reason is null
        and rejected.source_row_number is null
)

select * from renamed
