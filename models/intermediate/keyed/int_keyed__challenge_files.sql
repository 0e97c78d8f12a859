with

source as (
    select * from {{ ref('base_platform__challenge_files') }}
),

renamed as (
    select
        challenge_id,
        file_path,
        content
    from source
    where rejection_reason is null
        and {{ kept_after_staging('challenge_files') }}
)

select * from renamed
