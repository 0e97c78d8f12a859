{#
    One row per candidate pair of code documents: pairs that share at least one LSH band
    hash in either normalisation, never all pairs. 'contamination' pairs a challenge file
    with a reference document; 'instance' pairs two challenge codebases (challenge_a <
    challenge_b). A pair with Jaccard J becomes a candidate in a normalisation with
    probability 1 - (1 - J^r)^b (r rows per band, b bands).
#}
with

signatures as (
    select * from {{ ref('int_code_documents_signed') }}
),

documents as (
    select distinct document_number, document_kind, challenge_id
    from {{ ref('int_code_documents_shingled') }}
    where is_compared
),

bands as (
    select
        document_number,
        document_kind,
        normalisation,
        unnest(range(len(band_hashes))) as band,
        unnest(band_hashes) as band_hash
    from signatures
),

contamination_matches as (
    select
        'contamination' as pair_kind,
        challenge_bands.document_number as document_a,
        reference_bands.document_number as document_b,
        challenge_bands.normalisation
    from bands as challenge_bands
    inner join bands as reference_bands
        on challenge_bands.normalisation = reference_bands.normalisation
        and challenge_bands.band = reference_bands.band
        and challenge_bands.band_hash = reference_bands.band_hash
    where challenge_bands.document_kind = 'challenge_file'
        and reference_bands.document_kind = 'reference_document'
),

instance_matches as (
    select
        'instance' as pair_kind,
        bands_a.document_number as document_a,
        bands_b.document_number as document_b,
        bands_a.normalisation
    from bands as bands_a
    inner join bands as bands_b
        on bands_a.normalisation = bands_b.normalisation
        and bands_a.band = bands_b.band
        and bands_a.band_hash = bands_b.band_hash
    inner join documents as documents_a
        on bands_a.document_number = documents_a.document_number
    inner join documents as documents_b
        on bands_b.document_number = documents_b.document_number
    where bands_a.document_kind = 'challenge_codebase'
        and bands_b.document_kind = 'challenge_codebase'
        and documents_a.challenge_id < documents_b.challenge_id
),

matches as (
    select * from contamination_matches
    union all
    select * from instance_matches
),

candidates as (
    select
        pair_kind,
        document_a,
        document_b,
        count(*) filter (where normalisation = 'raw') as raw_shared_bands,
        count(*) filter (where normalisation = 'normalised') as normalised_shared_bands
    from matches
    group by pair_kind, document_a, document_b
)

select
    cast(pair_kind as varchar) as pair_kind,
    cast(document_a as bigint) as document_a,
    cast(document_b as bigint) as document_b,
    cast(raw_shared_bands as bigint) as raw_shared_bands,
    cast(normalised_shared_bands as bigint) as normalised_shared_bands
from candidates
