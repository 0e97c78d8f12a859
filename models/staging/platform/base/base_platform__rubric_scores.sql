{#
    Every raw rubric score row, typed, with the first rule it breaks (NULL when clean).
    `rubric_scores` is optional: when the platform has no such table this model is empty.
    The key is (attempt_id, rubric_item_id); `rubric_score_id` spells it
    'attempt/rubric item' for listings. `points` must read as a finite number in
    [0, max_points of the item]. The join that finds the attempt also keeps its agent and
    score (`agent_id`, `attempt_score`), so that no later model joins the scores to the
    attempts again. `is_in_scan` (NULL for a rejected row) says whether the attempt is in
    this run's scan (macro attempt_in_scan): a valid score of an attempt after var
    bias_scan_date is kept here and left out of stg_platform__rubric_scores.
#}
{%- set raw_rubric_scores = optional_source_rows(
    'rubric_scores',
    {'attempt_id': 'varchar', 'rubric_item_id': 'varchar', 'points': 'double'}
) %}
with

source as (
    select * from {{ raw_rubric_scores }}
),

attempts as (
    {{ attempts_to_validate_against() }}
),

rubric_items as (
    select * from {{ ref('stg_platform__rubric_items') }}
),

{# Reads the raw rows itself: a second reference to `source` would materialise it. #}
duplicates as (
    {{ key_duplicates(raw_rubric_scores, ['attempt_id', 'rubric_item_id'], ['points']) }}
),

typed as (
    select
        source.source_row_number,
        cast(source.attempt_id as varchar) as attempt_id,
        cast(source.rubric_item_id as varchar) as rubric_item_id,
        source.points as raw_points,
        try_cast(cast(source.points as varchar) as double) as points,
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
            when rubric_items.rubric_item_id is null and nullif(trim(typed.rubric_item_id), '') is null
                then 'null_rubric_item_id'
            when typed.duplicate_kind = 'conflicting' then 'conflicting_rubric_score_id'
            when typed.duplicate_kind = 'duplicate' then 'duplicate_rubric_score_id'
            when attempts.attempt_id is null then 'unknown_attempt_id'
            when rubric_items.rubric_item_id is null then 'unknown_rubric_item_id'
            when rubric_items.challenge_id <> attempts.challenge_id
                then 'rubric_item_of_other_challenge'
            when typed.raw_points is null then 'null_points'
            when typed.points is null then 'points_not_numeric'
            when not isfinite(typed.points) then 'points_not_finite'
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
    end as raw_record
from checked
{#- Stored in source order: downstream scans and sums see the rows in the same order on every build. #}
order by source_row_number
