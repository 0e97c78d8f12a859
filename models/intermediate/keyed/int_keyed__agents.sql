with

source as (
    select * from {{ ref('base_platform__agents') }}
),

renamed as (
    select
        source.agent_id,
        source.model_id
    from source
    left join {{ rejected_after_staging('agents') }} as rejected
        on source.source_row_number = rejected.source_row_number
    where source.rejection_reason is null
        and rejected.source_row_number is null
)

select * from renamed
