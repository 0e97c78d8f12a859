{#
    One row per code document: every usable challenge file, every usable reference
    document, and every challenge codebase (a challenge's files taken together), numbered
    1..n (challenge files, then reference documents, then codebases, each ordered by key).
    `document_key` names a document the same way in every run (its kind and key columns as
    a JSON list), where the numbers shift when documents come and go: the stored scans
    (int_code_documents_scanned) are kept under it.
    Narrow on purpose: the texts stay in staging until they are tokenised.
#}
with

challenge_files as (
    select * from {{ ref('int_keyed__challenge_files') }}
),

reference_corpus as (
    select * from {{ ref('stg_platform__reference_corpus') }}
),

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

files_numbered as (
    select
        'challenge_file' as document_kind,
        row_number() over (order by challenge_id, file_path) as document_number,
        challenge_id,
        file_path,
        cast(null as varchar) as document_id,
        cast(null as varchar) as source,
        cast(null as date) as published_at
    from challenge_files
),

references_numbered as (
    select
        'reference_document' as document_kind,
        (select count(*) from challenge_files)
        + row_number() over (order by document_id) as document_number,
        cast(null as varchar) as challenge_id,
        cast(null as varchar) as file_path,
        document_id,
        source,
        published_at
    from reference_corpus
),

codebases_numbered as (
    select
        'challenge_codebase' as document_kind,
        (select count(*) from challenge_files) + (select count(*) from reference_corpus)
        + row_number() over (order by challenge_id) as document_number,
        challenge_id,
        cast(null as varchar) as file_path,
        cast(null as varchar) as document_id,
        cast(null as varchar) as source,
        cast(null as date) as published_at
    from (select distinct challenge_id from challenge_files) as challenges_with_files
),

indexed as (
    select * from files_numbered
    union all
    select * from references_numbered
    union all
    select * from codebases_numbered
)

select
    cast(indexed.document_number as bigint) as document_number,
    cast(to_json(list_value(
        indexed.document_kind, indexed.challenge_id, indexed.file_path, indexed.document_id
    )) as varchar) as document_key,
    cast(indexed.document_kind as varchar) as document_kind,
    cast(indexed.challenge_id as varchar) as challenge_id,
    cast(challenges.template_id as varchar) as template_id,
    cast(indexed.file_path as varchar) as file_path,
    cast(indexed.document_id as varchar) as document_id,
    cast(indexed.source as varchar) as source,
    cast(indexed.published_at as date) as published_at
from indexed
left join challenges
    on indexed.challenge_id = challenges.challenge_id
