with

source as (
    select * from {{ ref('base_platform__attempts') }}
),

renamed as (
    select
        attempt_id,
        challenge_id,
        agent_id,
        score,
        score is not null as is_scored,
        submitted_at,
        attempt_id_copies
    from source
    where rejection_reason is null
)

select * from renamed
