{#
    One row per candidate pair of code documents: pairs that share at least one LSH band
    hash in either normalisation, never all pairs. 'contamination' pairs a challenge file
    with a reference document; 'instance' pairs two challenge codebases (challenge_a <
    challenge_b); 'instance_file' pairs two files of different challenges (the file of the
    smaller challenge id first), the grain at which per-file containment is measured (a
    file shared among unrelated files barely moves the codebases' Jaccard, but its own
    pair is a near-duplicate). A pair with Jaccard J becomes a candidate in a
    normalisation with probability 1 - (1 - J^r)^b (r rows per band, b bands).
#}
with

signatures as (
    select * from {{ ref('int_code_documents_signed') }}
),

documents as (
    select * from {{ ref('int_code_documents_indexed') }}
),

bands as (
    select
        signatures.document_number,
        signatures.document_kind,
        documents.challenge_id,
        signatures.normalisation,
        unnest(range(len(signatures.band_hashes))) as band,
        unnest(signatures.band_hashes) as band_hash
    from signatures
    inner join documents
        on signatures.document_number = documents.document_number
),

challenge_file_bands as (
    select * from bands
    where document_kind = 'challenge_file'
),

reference_bands as (
    select * from bands
    where document_kind = 'reference_document'
),

containment_bands as (
    select
        signatures.document_number,
        signatures.document_kind,
        documents.challenge_id,
        'containment' as normalisation,
        unnest(range(len(signatures.containment_band_hashes))) as band,
        unnest(signatures.containment_band_hashes) as band_hash
    from signatures
    inner join documents
        on signatures.document_number = documents.document_number
    where signatures.containment_band_hashes is not null
),

file_containment_bands as (
    select * from containment_bands
    where document_kind = 'challenge_file'
),

reference_containment_bands as (
    select * from containment_bands
    where document_kind = 'reference_document'
),

codebase_bands as (
    select * from bands
    where document_kind = 'challenge_codebase'
),

contamination_matches as (
    select
        'contamination' as pair_kind,
        challenge_file_bands.document_number as document_a,
        reference_bands.document_number as document_b,
        challenge_file_bands.normalisation
    from challenge_file_bands
    inner join reference_bands
        on challenge_file_bands.normalisation = reference_bands.normalisation
        and challenge_file_bands.band = reference_bands.band
        and challenge_file_bands.band_hash = reference_bands.band_hash
),

instance_matches as (
    select
        'instance' as pair_kind,
        codebase_bands_a.document_number as document_a,
        codebase_bands_b.document_number as document_b,
        codebase_bands_a.normalisation
    from codebase_bands as codebase_bands_a
    inner join codebase_bands as codebase_bands_b
        on codebase_bands_a.normalisation = codebase_bands_b.normalisation
        and codebase_bands_a.band = codebase_bands_b.band
        and codebase_bands_a.band_hash = codebase_bands_b.band_hash
        and codebase_bands_a.challenge_id < codebase_bands_b.challenge_id
),

instance_file_matches as (
    select
        'instance_file' as pair_kind,
        file_bands_a.document_number as document_a,
        file_bands_b.document_number as document_b,
        file_bands_a.normalisation
    from challenge_file_bands as file_bands_a
    inner join challenge_file_bands as file_bands_b
        on file_bands_a.normalisation = file_bands_b.normalisation
        and file_bands_a.band = file_bands_b.band
        and file_bands_a.band_hash = file_bands_b.band_hash
        and file_bands_a.challenge_id < file_bands_b.challenge_id
),

contamination_containment_matches as (
    select
        'contamination' as pair_kind,
        file_containment_bands.document_number as document_a,
        reference_containment_bands.document_number as document_b,
        file_containment_bands.normalisation
    from file_containment_bands
    inner join reference_containment_bands
        on file_containment_bands.band = reference_containment_bands.band
        and file_containment_bands.band_hash = reference_containment_bands.band_hash
),

instance_file_containment_matches as (
    select
        'instance_file' as pair_kind,
        file_bands_a.document_number as document_a,
        file_bands_b.document_number as document_b,
        file_bands_a.normalisation
    from file_containment_bands as file_bands_a
    inner join file_containment_bands as file_bands_b
        on file_bands_a.band = file_bands_b.band
        and file_bands_a.band_hash = file_bands_b.band_hash
        and file_bands_a.challenge_id < file_bands_b.challenge_id
),

matches as (
    select * from contamination_matches
    union all
    select * from contamination_containment_matches
    union all
    select * from instance_file_containment_matches
    union all
    select * from instance_matches
    union all
    select * from instance_file_matches
),

candidates as (
    select
        pair_kind,
        document_a,
        document_b,
        count(*) filter (where normalisation = 'raw') as raw_shared_bands,
        count(*) filter (where normalisation = 'normalised') as normalised_shared_bands,
        count(*) filter (where normalisation = 'containment') as containment_shared_bands
    from matches
    group by pair_kind, document_a, document_b
)

select
    cast(pair_kind as varchar) as pair_kind,
    cast(document_a as bigint) as document_a,
    cast(document_b as bigint) as document_b,
    cast(raw_shared_bands as bigint) as raw_shared_bands,
    cast(normalised_shared_bands as bigint) as normalised_shared_bands,
    cast(containment_shared_bands as bigint) as containment_shared_bands
from candidates
