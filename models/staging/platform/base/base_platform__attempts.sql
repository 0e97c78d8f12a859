{#
    Every raw attempt row, typed, with the first rule it breaks (NULL when clean).
    A NULL score is valid (the attempt was not scored); it is counted downstream.
    A timestamp outside the plausible window (not before var earliest_plausible_timestamp,
    not after the run date plus var plausible_timestamp_days_ahead days) is rejected, so
    the scan date and the verdict history never follow an outlier such as 9999-12-31.
#}
with

source as (
    select * from {{ source_rows('attempts') }}
),

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

agents as (
    select * from {{ ref('stg_platform__agents') }}
),

{# Reads the raw rows itself: a second reference to `source` would materialise it. #}
duplicates as (
    {{ key_duplicates(
        source_rows('attempts'),
        'attempt_id',
        ['challenge_id', 'agent_id', 'score', 'submitted_at']
    ) }}
),

typed as (
    select
        source.source_row_number,
        cast(source.attempt_id as varchar) as attempt_id,
        cast(source.challenge_id as varchar) as challenge_id,
        cast(source.agent_id as varchar) as agent_id,
        source.score as raw_score,
        try_cast(source.score as double) as score,
        source.submitted_at as raw_submitted_at,
        try_cast(source.submitted_at as timestamp) as submitted_at,
        case
            when source.attempt_id is not null then coalesce(duplicates.key_copies, 1)
        end as attempt_id_copies,
        duplicates.duplicate_kind
    from source
    left join duplicates
        on source.source_row_number = duplicates.source_row_number
),

checked as (
    select
        typed.source_row_number,
        typed.attempt_id,
        typed.challenge_id,
        typed.agent_id,
        typed.score,
        typed.submitted_at,
        typed.attempt_id_copies,
        case
            when nullif(trim(typed.attempt_id), '') is null then 'null_attempt_id'
            when typed.duplicate_kind = 'conflicting' then 'conflicting_attempt_id'
            when typed.duplicate_kind = 'duplicate' then 'duplicate_attempt_id'
            {#- A found challenge or agent has a non-blank id: trim only the others. #}
            when challenges.challenge_id is null and nullif(trim(typed.challenge_id), '') is null
                then 'null_challenge_id'
            when agents.agent_id is null and nullif(trim(typed.agent_id), '') is null
                then 'null_agent_id'
            when challenges.challenge_id is null then 'unknown_challenge_id'
            when agents.agent_id is null then 'unknown_agent_id'
            when typed.raw_score is not null and typed.score is null then 'score_not_numeric'
            when isnan(typed.score) or isinf(typed.score) then 'score_not_finite'
            when typed.score < 0 or typed.score > 100 then 'score_out_of_range'
            when typed.raw_submitted_at is not null and typed.submitted_at is null
                then 'submitted_at_not_timestamp'
            when {{ outside_plausible_window('typed.submitted_at') }}
                then 'submitted_at_implausible'
        end as rejection_reason,
        typed.raw_score,
        typed.raw_submitted_at
    from typed
    left join challenges
        on typed.challenge_id = challenges.challenge_id
    left join agents
        on typed.agent_id = agents.agent_id
)

select
    source_row_number,
    attempt_id,
    challenge_id,
    agent_id,
    score,
    submitted_at,
    attempt_id_copies,
    rejection_reason,
    case
        when rejection_reason is not null then
            {{ record_to_json(
                {'attempt_id': 'attempt_id', 'challenge_id': 'challenge_id', 'agent_id': 'agent_id',
                 'score': 'raw_score', 'submitted_at': 'raw_submitted_at'},
                'checked'
            ) }}
    end as raw_record
from checked
{#- Not sorted: every reader counts or sums these rows by key, so their stored order does
    not matter, and sorting 10M rows cost a quarter of this model's time. #}
