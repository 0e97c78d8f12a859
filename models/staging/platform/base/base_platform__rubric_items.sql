{#
    Every raw rubric item row, typed, with the first rule it breaks (NULL when clean).
    `rubric_items` is optional: when the platform has no such table this model is empty.
    `max_points` must read as a finite number > 0; a NULL description is kept (nothing to
    lint).
#}
-- depends_on: {{ ref('stg_platform__appended_files') }}
{{ scan_stage_config('table') }}
{%- if scan_stage_from_files() %}
{{ scan_stage_files() }}
{%- else %}
with

source as (
    select * from {{ optional_source_rows(
        'rubric_items',
        {'rubric_item_id': 'string', 'challenge_id': 'string', 'description': 'string',
         'max_points': 'double'}
    ) }}
),

duplicates as (
    {{ key_duplicates('source', 'rubric_item_id', ['challenge_id', 'description', 'max_points']) }}
),

typed as (
    select
        source.source_row_number,
        cast(source.rubric_item_id as string) as rubric_item_id,
        cast(source.challenge_id as string) as challenge_id,
        cast(source.description as string) as description,
        source.max_points as raw_max_points,
        try_cast(cast(source.max_points as string) as double) as max_points,
        duplicates.duplicate_kind
    from source
    left join duplicates
        on source.source_row_number = duplicates.source_row_number
),

checked as (
    select
        typed.*,
        case
            when nullif(trim(typed.rubric_item_id), '') is null then 'null_rubric_item_id'
            when typed.duplicate_kind = 'conflicting' then 'conflicting_rubric_item_id'
            when typed.duplicate_kind = 'duplicate' then 'duplicate_rubric_item_id'
            when nullif(trim(typed.challenge_id), '') is null then 'null_challenge_id'
            when typed.raw_max_points is null then 'null_max_points'
            when typed.max_points is null then 'max_points_not_numeric'
            when not {{ is_finite('typed.max_points') }} then 'max_points_not_finite'
            when typed.max_points <= 0 then 'max_points_not_positive'
        end as rejection_reason
    from typed
)

select
    source_row_number,
    rubric_item_id,
    challenge_id,
    description,
    case when rejection_reason is null then max_points end as max_points,
    rejection_reason,
    case
        when rejection_reason is null then
            {{ raw_value_kept(
                'checked.raw_max_points', 'checked.max_points', 'rubric_items', 'max_points', 'double'
            ) }}
    end as raw_max_points,
    case
        when rejection_reason is not null then
            {{ record_to_json(
                {'rubric_item_id': 'rubric_item_id', 'challenge_id': 'challenge_id',
                 'description': 'description', 'max_points': 'raw_max_points'},
                'checked'
            ) }}
    end as raw_record
from checked
{#- Stored in source order: downstream scans and sums see the rows in the same order on every build. #}
order by source_row_number
{%- endif %}
