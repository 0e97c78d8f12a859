{#
    Every raw attempt row, typed, with the first rule of this table it breaks (NULL when
    clean by them). A NULL score is valid (the attempt was not scored); it is counted
    downstream. A timestamp outside the plausible window (not before var
    earliest_plausible_timestamp, not after the run date plus var
    plausible_timestamp_days_ahead days) is rejected, so the scan date and the verdict
    history never follow an outlier such as 9999-12-31. Whether the challenge and the agent
    exist is checked after staging (int_keyed__rows_rejected); for those checks the row
    keeps what its rejection record needs: `raw_score` and `raw_submitted_at`, the raw
    value when the typed one does not give it back (macro raw_value_kept), and the
    optional `approach` label.

    Incremental, equal to a full refresh. The raw table is an append-only log: its rows
    keep their `source_row_number`, and the watermark is the largest one already here. A
    run validates again, with the same rules, only the rows whose outcome can change:
    - the new rows (past the watermark), whatever their submitted_at (late attempts too);
    - every rejected row (read again from the raw table: a fix in place moves it to the
      clean side; so does a timestamp the run date has caught up with);
    - every row sharing an attempt_id with those (a correction, the same attempt_id with
      other values, makes every copy conflicting; an exact repeat, a duplicate);
    - every row when a validation var changed (`validated_with`).
    They are found in this table (the copies of an id by `attempt_id_hash`), and read from
    the raw table by their row numbers, which the scan skips to (macro revalidated_rows).
    Everything else is checked, not trusted: the run stops, asking for `--full-refresh`,
    when a row that was clean is no longer in the raw table (their count), or, with var
    check_history true (the default; false for a daily run), not as validated (the sum of
    `row_checksum`, the hash of the typed values, macro raw_row_checksum: one pass over the
    raw table), or when the
    attempt_id of a rejected row was edited in place (its new id's other copies would not
    be read again).
#}
-- depends_on: {{ ref('stg_platform__appended_files') }}
{{ config(
    materialized='incremental',
    incremental_strategy='delete+insert',
    unique_key='source_row_number',
    on_schema_change='fail',
) }}
{{ scan_stage_config('incremental') }}
{%- if scan_stage_from_files() %}
{{ scan_stage_files() }}
{%- else %}
{%- set raw_attempts = source_rows('attempts') %}
{%- set compared = ['challenge_id', 'agent_id', 'score', 'submitted_at'] %}
{#- `checksum=typed`: the rows' checksums are of their typed values (macro raw_row_checksum);
    a table whose checksums are of the raw values is validated again once. #}
{%- set validated_with -%}
    {{ sql_string_literal(
        'rules=own-table;earliest_plausible_timestamp=' ~ var('earliest_plausible_timestamp')
        ~ ';plausible_timestamp_days_ahead=' ~ var('plausible_timestamp_days_ahead')
        ~ ';checksum=typed') }}
{%- endset %}
{#- The raw columns a row is validated from; the optional label is staged with the row
    (int_keyed__attempt_approaches), so it is part of what the row was validated as. #}
{%- set validated_columns = ['attempt_id', 'challenge_id', 'agent_id', 'score', 'submitted_at'] %}
{%- if 'approach' in source_column_names('attempts') %}
{%- do validated_columns.append('approach') %}
{%- endif %}
{#- Only the rows whose outcome can change, unless the stored rows were validated otherwise. #}
{%- set changed_rows_only = folds_changed_rows('validated_with', validated_with) %}
with

{% if changed_rows_only %}
{{ revalidated_rows(
    raw_attempts,
    id_column='attempt_id',
    columns=validated_columns,
    checksum=raw_row_checksum('attempts', 'raw'),
    id_hash_column='attempt_id_hash',
    raw_table='attempts',
) }},

duplicates as (
    {{ key_duplicates('source', 'attempt_id', compared) }}
),

{# Every row clean before is still in the raw table as it was validated: a clean row never
   changes in an append-only log, so the models that fold these rows in incrementally may
   rely on that. #}
previous_kept as (
    select
        count(*) as kept_rows,
        sum(row_checksum) as checksum
    from {{ this }}
    where rejection_reason is null
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

typed as (
    select
        source.source_row_number,
        {{ raw_typed('attempts', 'attempt_id') }} as attempt_id,
        {{ raw_typed('attempts', 'challenge_id') }} as challenge_id,
        {{ raw_typed('attempts', 'agent_id') }} as agent_id,
        source.score as raw_score,
        {{ raw_typed('attempts', 'score') }} as score,
        source.submitted_at as raw_submitted_at,
        {{ raw_typed('attempts', 'submitted_at') }} as submitted_at,
        {{ raw_typed('attempts', 'approach') }} as approach,
        {{ raw_row_checksum('attempts', 'source') }} as row_checksum,
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
        typed.approach,
        typed.row_checksum,
        case
            when nullif(trim(typed.attempt_id), '') is null then 'null_attempt_id'
            when typed.duplicate_kind = 'conflicting' then 'conflicting_attempt_id'
            when typed.duplicate_kind = 'duplicate' then 'duplicate_attempt_id'
            when nullif(trim(typed.challenge_id), '') is null then 'null_challenge_id'
            when nullif(trim(typed.agent_id), '') is null then 'null_agent_id'
            when typed.raw_score is not null and typed.score is null then 'score_not_numeric'
            when not {{ is_finite('typed.score') }} then 'score_not_finite'
            when typed.score < 0 or typed.score > 100 then 'score_out_of_range'
            when typed.raw_submitted_at is not null and typed.submitted_at is null
                then 'submitted_at_not_timestamp'
            when {{ outside_plausible_window('typed.submitted_at') }}
                then 'submitted_at_implausible'
        end as rejection_reason,
        typed.raw_score,
        typed.raw_submitted_at
    from typed
)

select
    source_row_number,
    attempt_id,
    challenge_id,
    agent_id,
    score,
    submitted_at,
    attempt_id_copies,
    approach,
    rejection_reason,
    case
        when rejection_reason is not null then
            {{ record_to_json(
                {'attempt_id': 'attempt_id', 'challenge_id': 'challenge_id', 'agent_id': 'agent_id',
                 'score': 'raw_score', 'submitted_at': 'raw_submitted_at'},
                'checked'
            ) }}
    end as raw_record,
    case
        when rejection_reason is null then
            {{ raw_value_kept(
                'checked.raw_score', 'checked.score', 'attempts', 'score', 'double'
            ) }}
    end as raw_score,
    case
        when rejection_reason is null then
            {{ raw_value_kept(
                'checked.raw_submitted_at', 'checked.submitted_at', 'attempts', 'submitted_at', 'timestamp'
            ) }}
    end as raw_submitted_at,
    row_checksum,
    {{ row_hash(['attempt_id']) }} as attempt_id_hash,
    {{ validated_with }} as validated_with
from checked
{%- if changed_rows_only %}

{# Reached only when a row validated clean before changed in the raw table, or the id of
   a row rejected before was edited (its new id may be another row's: that is not re-read). #}
union all
{{ raw_rows_changed_guard('base_platform__attempts', 'raw attempts', 15) }}
{%- endif %}
{#- Not sorted: every reader counts or sums these rows by key, so their stored order does
    not matter, and sorting 10M rows cost a quarter of this model's time. #}
{%- endif %}
