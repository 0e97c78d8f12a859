{#
    Every raw challenge file row (optional table `challenge_files`), typed, with the first
    rule it breaks (NULL when clean). A file is keyed by (challenge_id, file_path). When the
    table is absent this is empty, with the same typed columns.
#}
-- depends_on: {{ ref('stg_platform__appended_files') }}
{{ scan_stage_config('table') }}
{%- if scan_stage_from_files() %}
{{ scan_stage_files() }}
{%- else %}
with

source as (
    select * from {{ optional_source_rows(
        'challenge_files',
        {'challenge_id': 'string', 'file_path': 'string', 'content': 'string'}
    ) }}
),

keyed as (
    select
        *,
        {# length-prefixed, so ('a/b', 'c') and ('a', 'b/c') stay different keys #}
        length(cast(challenge_id as string)) || ':' || cast(challenge_id as string)
        || cast(file_path as string) as file_key
    from source
),

duplicates as (
    {{ key_duplicates('keyed', 'file_key', ['content']) }}
),

typed as (
    select
        keyed.source_row_number,
        cast(keyed.challenge_id as string) as challenge_id,
        cast(keyed.file_path as string) as file_path,
        cast(keyed.content as string) as content,
        duplicates.duplicate_kind
    from keyed
    left join duplicates
        on keyed.source_row_number = duplicates.source_row_number
),

checked as (
    select
        typed.source_row_number,
        typed.challenge_id,
        typed.file_path,
        typed.content,
        case
            when nullif(trim(typed.challenge_id), '') is null then 'null_challenge_id'
            when nullif(trim(typed.file_path), '') is null then 'null_file_path'
            when typed.duplicate_kind = 'conflicting' then 'conflicting_file_path'
            when typed.duplicate_kind = 'duplicate' then 'duplicate_file_path'
            when typed.content is null then 'null_content'
        end as rejection_reason,
        {{ record_to_json(['challenge_id', 'file_path', 'content'], 'typed') }} as raw_record
    from typed
)

select
    source_row_number,
    challenge_id,
    file_path,
    content,
    rejection_reason,
    case when rejection_reason is not null then raw_record end as raw_record
from checked
{#- Stored in source order: downstream scans and sums see the rows in the same order on every build. #}
order by source_row_number
{%- endif %}
