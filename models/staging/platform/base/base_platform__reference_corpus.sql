{#
    Every raw reference document row (optional table `reference_corpus`), typed, with the
    first rule it breaks (NULL when clean). `published_at` is an optional column: NULL when
    the table does not have it. When the table is absent this is empty, with the same typed
    columns.
#}
-- depends_on: {{ ref('stg_platform__appended_files') }}
{{ scan_stage_config('table') }}
{%- if scan_stage_from_files() %}
{{ scan_stage_files() }}
{%- else %}
{%- set has_published_at = 'published_at' in source_column_names('reference_corpus') %}
with

source as (
    select * from {{ optional_source_rows(
        'reference_corpus',
        {'document_id': 'string', 'source': 'string', 'content': 'string'}
    ) }}
),

duplicates as (
    {{ key_duplicates('source', 'document_id', ['source', 'content']
        + (['published_at'] if has_published_at else [])) }}
),

typed as (
    select
        source.source_row_number,
        cast(source.document_id as string) as document_id,
        cast(source.source as string) as source,
        cast(source.content as string) as content,
        {% if has_published_at -%}
        source.published_at as raw_published_at,
        try_cast(source.published_at as date) as published_at,
        {%- else -%}
        cast(null as string) as raw_published_at,
        cast(null as date) as published_at,
        {%- endif %}
        duplicates.duplicate_kind
    from source
    left join duplicates
        on source.source_row_number = duplicates.source_row_number
),

checked as (
    select
        source_row_number,
        document_id,
        source,
        content,
        published_at,
        case
            when nullif(trim(document_id), '') is null then 'null_document_id'
            when duplicate_kind = 'conflicting' then 'conflicting_document_id'
            when duplicate_kind = 'duplicate' then 'duplicate_document_id'
            when content is null then 'null_content'
            when raw_published_at is not null and published_at is null
                then 'published_at_not_date'
        end as rejection_reason,
        {{ record_to_json(
            {'document_id': 'document_id', 'source': 'source', 'content': 'content',
             'published_at': 'raw_published_at'},
            'typed'
        ) }} as raw_record
    from typed
)

select
    source_row_number,
    document_id,
    source,
    content,
    published_at,
    rejection_reason,
    case when rejection_reason is not null then raw_record end as raw_record
from checked
{#- Stored in source order: downstream scans and sums see the rows in the same order on every build. #}
order by source_row_number
{%- endif %}
