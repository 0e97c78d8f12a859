with

source as (
    select * from {{ ref('base_platform__models') }}
),

renamed as (
    select
        model_id,
        model_family,
        training_cutoff
    from source
    where rejection_reason is null
)

select * from renamed
