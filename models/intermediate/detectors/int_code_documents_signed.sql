{#
    One row per (compared code document, normalisation): its MinHash signature
    (var `minhash_permutations` positions) and its LSH band hashes (var `minhash_bands`
    bands of minhash_permutations / minhash_bands positions each). Documents with fewer
    than `contamination_min_shingles` distinct normalised shingles are not signed.
#}
{%- set rows_per_band = lsh_rows_per_band() %}
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
        {{ signature_bands('signature', var('minhash_bands'), rows_per_band) }} as band_hashes
    from signed
)

select
    cast(document_number as bigint) as document_number,
    cast(document_kind as varchar) as document_kind,
    cast(normalisation as varchar) as normalisation,
    signature,
    band_hashes
from banded
