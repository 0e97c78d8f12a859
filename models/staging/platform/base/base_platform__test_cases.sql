{#
    Every raw test case row, typed, with the first rule it breaks (NULL when clean).
    `test_cases` is optional: when the platform has no such table this model is empty.
    A NULL input_text is kept (the input is unknown; it covers no Unicode category).
#}
-- depends_on: {{ ref('stg_platform__appended_files') }}
{{ scan_stage_config('table') }}
{%- if scan_stage_from_files() %}
{{ scan_stage_files() }}
{%- else %}
with

source as (
    select * from {{ optional_source_rows(
        'test_cases',
        {'test_case_id': 'string', 'challenge_id': 'string', 'input_text': 'string'}
    ) }}
),

duplicates as (
    {{ key_duplicates('source', 'test_case_id', ['challenge_id', 'input_text']) }}
),

checked as (
    select
        source.source_row_number,
        cast(source.test_case_id as string) as test_case_id,
        cast(source.challenge_id as string) as challenge_id,
        cast(source.input_text as string) as input_text,
        {{ optional_column('test_cases', 'test_code', 'string') }} as test_code,
        nullif(lower(trim({{ optional_column('test_cases', 'language', 'string') }})), '')
            as language,
        case
            when nullif(trim(cast(source.test_case_id as string)), '') is null
                then 'null_test_case_id'
            when duplicates.duplicate_kind = 'conflicting' then 'conflicting_test_case_id'
            when duplicates.duplicate_kind = 'duplicate' then 'duplicate_test_case_id'
            when nullif(trim(cast(source.challenge_id as string)), '') is null
                then 'null_challenge_id'
        end as rejection_reason,
        {{ record_to_json(['test_case_id', 'challenge_id', 'input_text'], 'source') }} as raw_record
    from source
    left join duplicates
        on source.source_row_number = duplicates.source_row_number
)

select
    source_row_number,
    test_case_id,
    challenge_id,
    input_text,
    test_code,
    language,
    rejection_reason,
    {#- every row's (a small table): a check after staging may reject a row clean here #}
    raw_record
from checked
{#- Stored in source order: downstream scans and sums see the rows in the same order on every build. #}
order by source_row_number
{%- endif %}
