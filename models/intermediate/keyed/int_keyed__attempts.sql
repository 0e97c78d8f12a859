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
        source.attempt_id,
        source.challenge_id,
        source.agent_id,
        source.score,
        source.score is not null as is_scored,
        source.submitted_at,
        source.attempt_id_copies
    from source
    left join {{ rejected_after_staging('attempts') }} as rejected
        on source.source_row_number = rejected.source_row_number
    where source.rejection_reason is null
        and rejected.source_row_number is null
        and {{ attempt_in_scan('source.submitted_at') }}
)

select * from renamed
