{#
    Every raw rubric score row, typed, with the first rule it breaks (NULL when clean).
    `rubric_scores` is optional: when the platform has no such table this model is empty.
    The key is (attempt_id, rubric_item_id); `rubric_score_id` spells it
    'attempt/rubric item' for listings. `points` must read as a finite number in
    [0, max_points of the item]. The join that finds the attempt also keeps its agent and
    score (`agent_id`, `attempt_score`), so that no later model joins the scores to the
    attempts again. `is_in_scan` (NULL for a rejected row) says whether the attempt is in
    this run's scan (macro attempt_in_scan): a valid score of an attempt after var
    bias_scan_date is kept here and left out of int_keyed__rubric_scores.

    Incremental, equal to a full refresh (as base_platform__attempts; macro
    revalidated_rows): a run validates again the new rows, the rows rejected before, the
    rows of an attempt that is rejected now, every row sharing an attempt id with those
    (except the ids of attempts new since the last run, past `last_attempt_row_number`: no
    score validated before can share them unless it was rejected or its attempt is
    rejected now), and every row when what a score is validated with (`validated_with`: var
    bias_scan_date, the clean rubric items) changed. It stops, asking for `--full-refresh`, when a row
    that was clean is no longer in the raw table or, with var check_history true, not as
    validated (`row_checksum`).
#}
-- depends_on: {{ ref('stg_platform__appended_files') }}
{#- Not read: ordered after the test-result fold, never beside it. Under a memory cap each
    may run on one DuckDB thread (macro spill_safe_threads_start); two at once would share
    the cap and each restore the other's threads. #}
-- depends_on: {{ ref('int_keyed__test_results_checked') }}
{{ config(
    materialized='incremental',
    incremental_strategy='delete+insert',
    unique_key='source_row_number',
    on_schema_change='fail',
    pre_hook="{{ spill_safe_threads_start(ref('base_platform__attempts')) }}",
    post_hook="{{ spill_safe_threads_end() }}",
) }}
{{ scan_stage_config('incremental') }}
{%- if scan_stage_from_files() %}
{{ scan_stage_files() }}
{%- else %}
{%- set raw_rubric_scores = ref('base_platform__rubric_scores') %}
{%- set validated_with -%}
{{ sql_string_literal(
    'bias_scan_date=' ~ (var('bias_scan_date', none) or '') ~ ';checksum=typed;rubric_items=') }}
    || (
        select cast(count(*) as string) || ':'
            || cast(coalesce({{ checksum_sum(row_hash(['rubric_item_id', 'challenge_id', 'max_points'])) }}, 0) as string)
        from {{ ref('int_keyed__rubric_items') }}
    )
{%- endset %}
{#- The attempts new since the last run, looked up first (int_keyed__test_results_checked). #}
{%- set new_attempts_after = stored_maximum('last_attempt_row_number') %}
{#- Only the rows whose outcome can change, unless the stored rows were validated otherwise. #}
{%- set changed_rows_only = folds_changed_rows('validated_with', validated_with) %}
with

{% if changed_rows_only %}
{# Also validated again: the scores of an attempt that is not clean (now); a score that
   was clean leaves the clean side. #}
{{ revalidated_rows(
    raw_rubric_scores,
    id_column='attempt_id',
    columns=['attempt_id', 'rubric_item_id', 'points'],
    checksum=raw_row_checksum('rubric_scores', 'raw'),
    also_ids='select record_id from ' ~ ref('int_keyed__rows_rejected') ~ " where source_table = 'attempts'",
    ids_without_history=none if new_attempts_after is none
        else attempt_ids_validated_after(new_attempts_after),
    raw_table='rubric_scores',
) }},

{# Every row clean before is still in the raw table as it was validated. #}
previous_kept as (
    select
        count(*) as kept_rows,
        sum(row_checksum) as checksum
    from {{ this }}
    where rejection_reason is null
),

duplicates as (
    {{ key_duplicates('source', ['attempt_id', 'rubric_item_id'], ['points']) }}
),
{% else %}
source as (
    select * from {{ raw_rubric_scores }}
),

{# Reads the raw rows itself: a second reference to `source` would materialise it. #}
duplicates as (
    {{ key_duplicates(raw_rubric_scores, ['attempt_id', 'rubric_item_id'], ['points']) }}
),
{% endif %}

attempts as (
    {{ attempts_to_validate_against(
        'select cast(attempt_id as string) from source' if changed_rows_only else none,
        recent_after=new_attempts_after if changed_rows_only else none) }}
),

rubric_items as (
    select
        rubric_items.rubric_item_id,
        rubric_items.max_points,
        challenge_numbers.challenge_number
    from {{ ref('int_keyed__rubric_items') }} as rubric_items
    left join {{ challenge_fairness.challenge_numbers() }} as challenge_numbers
        on rubric_items.challenge_id = challenge_numbers.challenge_id
),

typed as (
    select
        {{ raw_row_checksum('rubric_scores', 'source') }} as row_checksum,
        source.source_row_number,
        {{ raw_typed('rubric_scores', 'attempt_id') }} as attempt_id,
        {{ raw_typed('rubric_scores', 'rubric_item_id') }} as rubric_item_id,
        source.points as raw_points,
        {{ raw_typed('rubric_scores', 'points') }} as points,
        duplicates.duplicate_kind
    from source
    left join duplicates
        on source.source_row_number = duplicates.source_row_number
),

checked as (
    select
        typed.*,
        typed.attempt_id || '/' || typed.rubric_item_id as rubric_score_id,
        attempts.agent_id,
        attempts.score as attempt_score,
        attempts.is_in_scan,
        case
            {#- A found attempt or rubric item has a non-blank id: trim only the others. #}
            when attempts.attempt_id is null and nullif(trim(typed.attempt_id), '') is null
                then 'null_attempt_id'
            when rubric_items.rubric_item_id is null
                and nullif(trim(typed.rubric_item_id), '') is null
                then 'null_rubric_item_id'
            when typed.duplicate_kind = 'conflicting' then 'conflicting_rubric_score_id'
            when typed.duplicate_kind = 'duplicate' then 'duplicate_rubric_score_id'
            when attempts.attempt_id is null then 'unknown_attempt_id'
            when rubric_items.rubric_item_id is null then 'unknown_rubric_item_id'
            when rubric_items.challenge_number <> attempts.challenge_number
                then 'rubric_item_of_other_challenge'
            when typed.raw_points is null then 'null_points'
            when typed.points is null then 'points_not_numeric'
            when not {{ is_finite('typed.points') }} then 'points_not_finite'
            when typed.points < 0 then 'points_negative'
            when typed.points > rubric_items.max_points then 'points_above_max_points'
        end as rejection_reason
    from typed
    left join attempts
        on typed.attempt_id = attempts.attempt_id
    left join rubric_items
        on typed.rubric_item_id = rubric_items.rubric_item_id
)

select
    source_row_number,
    rubric_score_id,
    attempt_id,
    rubric_item_id,
    case when rejection_reason is null then points end as points,
    agent_id,
    attempt_score,
    case when rejection_reason is null then is_in_scan end as is_in_scan,
    rejection_reason,
    case
        when rejection_reason is not null then
            {{ record_to_json(
                {'attempt_id': 'attempt_id', 'rubric_item_id': 'rubric_item_id',
                 'points': 'raw_points'},
                'checked'
            ) }}
    end as raw_record,
    row_checksum,
    (
        select max(attempts.source_row_number)
        from {{ ref('base_platform__attempts') }} as attempts
    ) as last_attempt_row_number,
    {{ validated_with }} as validated_with
from checked
{%- if changed_rows_only %}

{# Reached only when a row validated clean before changed in the raw table, or the attempt
   id of a row rejected before was edited (its new id's other rows are not read again). #}
union all
{{ raw_rows_changed_guard('int_keyed__rubric_scores_checked', 'raw rubric scores', 13) }}
{%- endif %}
{#- Not sorted: its readers count and sum exactly (the checksums are integers), so the order
    of its rows does not reach a result, and a sort of every row on top of the join with
    every attempt did not fit under a small memory cap (1M attempts at 64MB). #}
{%- endif %}
