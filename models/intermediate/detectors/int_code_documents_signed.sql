{#
    One row per (compared code document, normalisation): its MinHash signature
    (var `minhash_permutations` positions) and its LSH band hashes (var `minhash_bands`
    bands of minhash_permutations / minhash_bands positions each). Documents with fewer
    than `contamination_min_shingles` distinct normalised shingles are not signed.
    Raw signatures of challenge files and reference documents also get containment band
    hashes (var `contamination_containment_bands` bands of fewer positions): a file
    contained in a larger text has a low Jaccard with it (|A| / |B| when wholly
    contained), which the Jaccard bands rarely catch; bands of 2 positions catch a pair
    with Jaccard 0.16 (containment 0.7 at a size ratio of 4) with probability 0.81. Raw
    only: unrelated code shares few raw shingles, but many normalised ones, which would
    make every pair a candidate.
#}
{%- set rows_per_band = lsh_rows_per_band() %}
{%- set containment_rows_per_band = lsh_rows_per_band('contamination_containment_bands') %}
with

documents as (
    select * from {{ ref('int_code_documents_shingled') }}
    where is_compared
),

signed as (
    select
        document_number,
        document_kind,
        normalisation,
        {{ minhash_signature('shingles', var('minhash_permutations')) }} as signature
    from documents
),

banded as (
    select
        *,
        {{ signature_bands('signature', var('minhash_bands'), rows_per_band) }} as band_hashes,
        case
            when normalisation = 'raw'
                and document_kind in ('challenge_file', 'reference_document')
                then {{ signature_bands(
                    'signature', var('contamination_containment_bands'), containment_rows_per_band
                ) }}
        end as containment_band_hashes
    from signed
)

select
    cast(document_number as bigint) as document_number,
    cast(document_kind as varchar) as document_kind,
    cast(normalisation as varchar) as normalisation,
    signature,
    band_hashes,
    containment_band_hashes
from banded
