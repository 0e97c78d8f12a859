{#
    One row per (code document, normalisation): the distinct hashes of the document's
    token shingles, under this run's document numbers. The shingles are stored per document
    by int_code_documents_scanned (a run scans only new or changed documents); this view
    puts each on its number (int_code_documents_indexed).
#}
{{ config(materialized='view') }}
with

documents as (
    select * from {{ ref('int_code_documents_indexed') }}
),

scanned as (
    select * from {{ ref('int_code_documents_scanned') }}
)

select
    documents.document_number,
    scanned.document_kind,
    scanned.normalisation,
    scanned.tokens,
    scanned.shingle_count,
    scanned.is_compared,
    scanned.shingles
from scanned
inner join documents
    on scanned.document_key = documents.document_key
