{# Every raw agent row, typed, with the first rule it breaks (NULL when clean). #}
{{ scan_stage_config('table') }}
{%- if scan_stage_from_files() %}
{{ scan_stage_files() }}
{%- else %}
with

source as (
    select * from {{ source_rows('agents') }}
),

models as (
    select * from {{ ref('stg_platform__models') }}
),

duplicates as (
    {{ key_duplicates('source', 'agent_id', ['model_id']) }}
),

checked as (
    select
        source.source_row_number,
        cast(source.agent_id as string) as agent_id,
        cast(source.model_id as string) as model_id,
        case
            when nullif(trim(cast(source.agent_id as string)), '') is null then 'null_agent_id'
            when duplicates.duplicate_kind = 'conflicting' then 'conflicting_agent_id'
            when duplicates.duplicate_kind = 'duplicate' then 'duplicate_agent_id'
            when nullif(trim(cast(source.model_id as string)), '') is null then 'null_model_id'
            when models.model_id is null then 'unknown_model_id'
        end as rejection_reason,
        {{ record_to_json(['agent_id', 'model_id'], 'source') }} as raw_record
    from source
    left join duplicates
        on source.source_row_number = duplicates.source_row_number
    left join models
        on cast(source.model_id as string) = models.model_id
)

select
    source_row_number,
    agent_id,
    model_id,
    rejection_reason,
    case when rejection_reason is not null then raw_record end as raw_record
from checked
{#- Stored in source order: downstream scans and sums see the rows in the same order on every build. #}
order by source_row_number
{%- endif %}
