{#
    One row per (compared code document, normalisation): its MinHash signature
    (var `minhash_permutations` positions) and its LSH band hashes (var `minhash_bands`
    bands of minhash_permutations / minhash_bands positions each), under this run's document
    numbers. Documents with fewer than `contamination_min_shingles` distinct normalised
    shingles are not signed. The signatures are stored per document by
    int_code_documents_scanned (a run signs only new or changed documents).
    Raw signatures of challenge files and reference documents also get containment band
    hashes (var `contamination_containment_bands` bands of fewer positions): a file
    contained in a larger text has a low Jaccard with it (|A| / |B| when wholly
    contained), which the Jaccard bands rarely catch; bands of 2 positions catch a pair
    with Jaccard 0.16 (containment 0.7 at a size ratio of 4) with probability 0.81. Raw
    only: unrelated code shares few raw shingles, but many normalised ones, which would
    make every pair a candidate.
#}
{{ config(materialized='view') }}
with

documents as (
    select * from {{ ref('int_code_documents_indexed') }}
),

scanned as (
    select * from {{ ref('int_code_documents_scanned') }}
    where is_compared
)

select
    documents.document_number,
    scanned.document_kind,
    scanned.normalisation,
    scanned.signature,
    scanned.band_hashes,
    scanned.containment_band_hashes
from scanned
inner join documents
    on scanned.document_key = documents.document_key
