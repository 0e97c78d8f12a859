{#
    Every raw reference document row (optional table `reference_corpus`), typed, with the
    first rule it breaks (NULL when clean). `published_at` is an optional column: NULL when
    the table does not have it. When the table is absent this is empty, with the same typed
    columns.

    Staged again only when what it stages changed (`staged_with`): the raw rows (their
    count and the sum of their hashes, one pass over the raw table), the SQL that stages
    them (the model's code and what its macros and vars render), or DuckDB's version. A run
    that finds them as they were staged inserts nothing and leaves the table as it is:
    with 100,000 documents, a build with nothing new rewrote about 100 MB of text, which
    DuckDB then checkpointed (issue 35). Otherwise the table is emptied (pre-hook) and
    every row staged again, as by a full build: this is a dimension table, whose rows may
    be edited or removed in place, so no part of it is kept. For the same reason a table
    built by an older version (without `staged_with`) is emptied, its columns synced and
    every row staged: an upgrade needs no --full-refresh for this model.
#}
-- depends_on: {{ ref('stg_platform__appended_files') }}
{{ config(
    materialized='incremental',
    incremental_strategy='append',
    on_schema_change='sync_all_columns',
    meta={'restaged_in_full': true},
    pre_hook="{% if is_incremental() and challenge_fairness.restaging(this) %}delete from {{ this }}{% endif %}",
) }}
{{ scan_stage_config('incremental') }}
{%- if scan_stage_from_files() %}
{{ scan_stage_files() }}
{%- else %}
{%- set has_published_at = 'published_at' in source_column_names('reference_corpus') %}
{%- set raw_published_at = 'source.published_at' if has_published_at else 'cast(null as string)' %}
{%- set raw_reference_corpus = optional_source_rows(
    'reference_corpus',
    {'document_id': 'string', 'source': 'string', 'content': 'string'}
) %}
{%- set staged_ctes %}
source as (
    select * from {{ raw_reference_corpus }}
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
        {{ raw_published_at }} as raw_published_at,
        try_cast({{ raw_published_at }} as date) as published_at,
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
{%- endset %}
{%- set hashed = ['raw.source_row_number', 'raw.document_id', 'raw.source', 'raw.content']
    + (['raw.published_at'] if has_published_at else []) %}
{#- The digest leaves out where the raw rows are read from (the database's or the files'
    name), which their count and hash sum stand for: two builds of the same rows agree. #}
{%- set raw_rows -%}
    select
        cast(count(*) as string) || ':'
        || cast(coalesce({{ checksum_sum(row_hash(hashed)) }}, 0) as string)
    from {{ raw_reference_corpus }} as raw
{%- endset %}
{%- set staged_with = sql_string_literal(local_md5(
        model.raw_code ~ staged_ctes | replace(raw_reference_corpus, 'raw_reference_corpus')))
    ~ " || ' rows ' || (" ~ raw_rows ~ ")"
    ~ (" || ' on DuckDB ' || version()" if target.type == 'duckdb' else '') %}
{%- if not is_incremental() or challenge_fairness.restaging(this, staged_with) %}
with
{{ staged_ctes }}

select
    source_row_number,
    document_id,
    source,
    content,
    published_at,
    rejection_reason,
    case when rejection_reason is not null then raw_record end as raw_record,
    {{ staged_with }} as staged_with
from checked
{#- Stored in source order: downstream scans and sums see the rows in the same order on every build. #}
order by source_row_number
{%- else %}

{#- Staged as they are: nothing to insert. #}
select * from {{ this }}
where false
{%- endif %}
{%- endif %}
