{#
    Every raw agent row, typed, with the first rule of this table it breaks (NULL when
    clean by them). Whether its model exists is checked after staging (int_keyed__rows_rejected).
#}
-- depends_on: {{ ref('stg_platform__appended_files') }}
{{ scan_stage_config('table') }}
{%- if scan_stage_from_files() %}
{{ scan_stage_files() }}
{%- else %}
with

source as (
    select * from {{ source_rows('agents') }}
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
        end as rejection_reason,
        {{ record_to_json(['agent_id', 'model_id'], 'source') }} as raw_record
    from source
    left join duplicates
        on source.source_row_number = duplicates.source_row_number
)

select
    source_row_number,
    agent_id,
    model_id,
    rejection_reason,
    {#- every row's (a small table): a check after staging may reject a row clean here #}
    raw_record
from checked
{#- Stored in source order: downstream scans and sums see the rows in the same order on every build. #}
order by source_row_number
{%- endif %}
