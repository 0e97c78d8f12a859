with

source as (
    select * from {{ ref('base_platform__agents') }}
),

renamed as (
    select
        agent_id,
        model_id
    from source
    where rejection_reason is null
        and {{ kept_after_staging('agents') }}
)

select * from renamed
