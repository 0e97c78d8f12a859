{#
    The clean attempts of this run's bias scan: every valid attempt, or with var
    bias_scan_date those submitted on or before it (macro attempt_in_scan). Every detector
    reads attempts through this model, so a scan as of a past date sees what was there then.
#}
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
        and {{ kept_after_staging('attempts') }}
        and {{ attempt_in_scan('submitted_at') }}
)

select * from renamed
