with

source as (
    select * from {{ ref('base_platform__rubric_items') }}
),

renamed as (
    select
        rubric_item_id,
        challenge_id,
        description,
        max_points
    from source
    where rejection_reason is null
        and {{ kept_after_staging('rubric_items') }}
)

select * from renamed
