{#
    Every raw attempt row, typed, with the first rule it breaks (NULL when clean).
    A NULL score is valid (the attempt was not scored); it is counted downstream.
    A timestamp outside the plausible window (not before var earliest_plausible_timestamp,
    not after the run date plus var plausible_timestamp_days_ahead days) is rejected, so
    the scan date and the verdict history never follow an outlier such as 9999-12-31.

    Incremental, equal to a full refresh. The raw table is an append-only log: its rows
    keep their `source_row_number`, and the watermark is the largest one already here. A
    run validates again, with the same rules, only the rows whose outcome can change:
    - the new rows (past the watermark), whatever their submitted_at (late attempts too);
    - every rejected row (read again from the raw table: a fix in place, or a challenge or
      agent that now exists, moves it to the clean side; so does a timestamp the run date
      has caught up with);
    - every row sharing an attempt_id with those (a correction, the same attempt_id with
      other values, makes every copy conflicting; an exact repeat, a duplicate);
    - clean rows whose challenge or agent is no longer clean;
    - every row when a validation var changed (`validated_with`).
    Everything else is checked, not trusted: the run stops, asking for `--full-refresh`,
    when a row that was clean is not in the raw table as validated (a table that was
    truncated, rewritten or edited in place; checksum of the typed values).
#}
{{ config(
    materialized='incremental',
    incremental_strategy='delete+insert',
    unique_key='source_row_number',
    on_schema_change='fail',
) }}
{%- set raw_attempts = source_rows('attempts') %}
{%- set compared = ['challenge_id', 'agent_id', 'score', 'submitted_at'] %}
{%- set validated_with -%}
    {{ sql_string_literal(
        'earliest_plausible_timestamp=' ~ var('earliest_plausible_timestamp')
        ~ ';plausible_timestamp_days_ahead=' ~ var('plausible_timestamp_days_ahead')) }}
{%- endset %}
with

{% if is_incremental() %}
{#- This table is read where needed, not through a CTE: DuckDB materialises a CTE read
    several times, here all of its rows. #}
watermark as (
    select coalesce(max(source_row_number), -1) as last_row_number
    from {{ this }}
),

{# The raw ids of the new rows and of the rows rejected before (one scan). #}
reread_keys as (
    select distinct cast(raw.attempt_id as varchar) as attempt_id
    from {{ raw_attempts }} as raw
    where raw.attempt_id is not null
        and (
            raw.source_row_number > (select last_row_number from watermark)
            or raw.source_row_number in (
                select source_row_number from {{ this }} where rejection_reason is not null
            )
        )
),

rechecked as (
    select
        source_row_number,
        attempt_id
    from {{ this }}
    where rejection_reason is not null
        or validated_with <> {{ validated_with }}
        or attempt_id in (select attempt_id from reread_keys)
        or challenge_id not in (select challenge_id from {{ ref('stg_platform__challenges') }})
        or agent_id not in (select agent_id from {{ ref('stg_platform__agents') }})
),

batch_keys as (
    select attempt_id from reread_keys
    union
    select attempt_id from rechecked where attempt_id is not null
),

{# The rows validated in this run: every copy of every key they carry is among them. #}
batch as (
    select *
    from {{ raw_attempts }} as raw
    where raw.source_row_number > (select last_row_number from watermark)
        or raw.source_row_number in (select source_row_number from rechecked)
        or cast(raw.attempt_id as varchar) in (select attempt_id from batch_keys)
),

{# Every row clean before is still in the raw table with the same typed values (the rows
   rejected before are read again anyway): a clean row never changes in an append-only
   log, so the models that fold these rows in incrementally may rely on that. #}
{%- set kept_checksum -%}
    count(*) as kept_rows,
    sum(hash(source_row_number, attempt_id, challenge_id, agent_id, score, submitted_at,
        score_unreadable, submitted_at_unreadable)) as checksum
{%- endset %}
raw_kept as (
    select {{ kept_checksum }}
    from (
        select
            *,
            raw_score is not null and score is null as score_unreadable,
            raw_submitted_at is not null and submitted_at is null as submitted_at_unreadable
        from (
            select {{ typed_attempt_columns('raw') }}
            from {{ raw_attempts }} as raw
            where raw.source_row_number <= (select last_row_number from watermark)
                and raw.source_row_number not in (
                    select source_row_number from {{ this }} where rejection_reason is not null
                )
        ) as typed_raw
    ) as flagged_raw
),

previous_kept as (
    select {{ kept_checksum }}
    from (
        select
            source_row_number,
            attempt_id,
            challenge_id,
            agent_id,
            score,
            submitted_at,
            false as score_unreadable,
            false as submitted_at_unreadable
        from {{ this }}
        where rejection_reason is null
    ) as typed_previous
),

source as (
    select * from batch
),

duplicates as (
    {{ key_duplicates('batch', 'attempt_id', compared) }}
),
{% else %}
source as (
    select * from {{ raw_attempts }}
),

{# Reads the raw rows itself: a second reference to `source` would materialise it. #}
duplicates as (
    {{ key_duplicates(raw_attempts, 'attempt_id', compared) }}
),
{% endif %}

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

agents as (
    select * from {{ ref('stg_platform__agents') }}
),

typed as (
    select
        {{ typed_attempt_columns('source') }},
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
    end as raw_record,
    {{ validated_with }} as validated_with
from checked
{%- if is_incremental() %}

{# Reached only when a row validated clean before changed in the raw table. #}
union all
select
    cast({{ sql_error(
        "'base_platform__attempts: the raw attempts up to row ' || cast(watermark.last_row_number as varchar)"
        ~ " || ' changed since they were validated (' || cast(previous_kept.kept_rows as varchar)"
        ~ " || ' clean rows expected, ' || cast(raw_kept.kept_rows as varchar) || ' found, or a value edited in place).'"
        ~ " || ' The raw table must be an append-only log; run dbt build --full-refresh to validate it again.'"
    ) }} as bigint) as source_row_number,
    null as attempt_id,
    null as challenge_id,
    null as agent_id,
    null as score,
    null as submitted_at,
    null as attempt_id_copies,
    null as rejection_reason,
    null as raw_record,
    null as validated_with
from raw_kept
cross join previous_kept
cross join watermark
where raw_kept.kept_rows <> previous_kept.kept_rows
    or raw_kept.checksum is distinct from previous_kept.checksum
{%- endif %}
{#- Not sorted: every reader counts or sums these rows by key, so their stored order does
    not matter, and sorting 10M rows cost a quarter of this model's time. #}
