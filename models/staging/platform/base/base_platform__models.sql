{# Every raw model row, typed, with the first rule it breaks (NULL when clean). #}
-- depends_on: {{ ref('stg_platform__appended_files') }}
{{ scan_stage_config('table') }}
{%- if scan_stage_from_files() %}
{{ scan_stage_files() }}
{%- else %}
with

source as (
    select * from {{ source_rows('models') }}
),

duplicates as (
    {{ key_duplicates('source', 'model_id', ['model_family', 'training_cutoff']) }}
),

checked as (
    select
        source.source_row_number,
        cast(source.model_id as string) as model_id,
        cast(source.model_family as string) as model_family,
        try_cast(source.training_cutoff as date) as training_cutoff,
        case
            when nullif(trim(cast(source.model_id as string)), '') is null then 'null_model_id'
            when duplicates.duplicate_kind = 'conflicting' then 'conflicting_model_id'
            when duplicates.duplicate_kind = 'duplicate' then 'duplicate_model_id'
            when nullif(trim(cast(source.model_family as string)), '') is null
                then 'null_model_family'
            when source.training_cutoff is not null
                and try_cast(source.training_cutoff as date) is null
                then 'training_cutoff_not_date'
        end as rejection_reason,
        {{ record_to_json(['model_id', 'model_family', 'training_cutoff'], 'source') }}
            as raw_record
    from source
    left join duplicates
        on source.source_row_number = duplicates.source_row_number
)

select
    source_row_number,
    model_id,
    model_family,
    training_cutoff,
    rejection_reason,
    case when rejection_reason is not null then raw_record end as raw_record
from checked
{#- Stored in source order: downstream scans and sums see the rows in the same order on every build. #}
order by source_row_number
{%- endif %}
