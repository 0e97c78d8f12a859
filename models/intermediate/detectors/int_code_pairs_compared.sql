{#
    One row per candidate pair of code documents: the exact Jaccard similarity of their
    shingle sets (|A n B| / |A u B|) in both normalisations, and the MinHash estimates
    (share of agreeing signature positions) beside them.
#}
with

candidates as (
    select * from {{ ref('int_code_candidate_pairs_banded') }}
),

documents as (
    select * from {{ ref('int_code_documents_shingled') }}
    where is_compared
),

signatures as (
    select * from {{ ref('int_code_documents_signed') }}
),

normalisations as (
    select unnest(['raw', 'normalised']) as normalisation
),

intersected as (
    select
        candidates.pair_kind,
        candidates.document_a,
        candidates.document_b,
        normalisations.normalisation,
        documents_a.shingle_count as shingles_a,
        documents_b.shingle_count as shingles_b,
        {{ shared_elements('documents_a.shingles', 'documents_b.shingles') }} as shared_shingles,
        {{ signature_agreement('signatures_a.signature', 'signatures_b.signature') }}
            as agreeing_positions,
        len(signatures_a.signature) as permutations
    from candidates
    cross join normalisations
    inner join documents as documents_a
        on candidates.document_a = documents_a.document_number
        and normalisations.normalisation = documents_a.normalisation
    inner join documents as documents_b
        on candidates.document_b = documents_b.document_number
        and normalisations.normalisation = documents_b.normalisation
    inner join signatures as signatures_a
        on candidates.document_a = signatures_a.document_number
        and normalisations.normalisation = signatures_a.normalisation
    inner join signatures as signatures_b
        on candidates.document_b = signatures_b.document_number
        and normalisations.normalisation = signatures_b.normalisation
),

measured as (
    select
        *,
        shared_shingles / nullif(shingles_a + shingles_b - shared_shingles, 0) as jaccard,
        agreeing_positions / permutations as minhash_estimate
    from intersected
),

pivoted as (
    select
        pair_kind,
        document_a,
        document_b,
        any_value(shingles_a) filter (where normalisation = 'raw') as raw_shingles_a,
        any_value(shingles_b) filter (where normalisation = 'raw') as raw_shingles_b,
        any_value(shared_shingles) filter (where normalisation = 'raw') as raw_shared_shingles,
        any_value(jaccard) filter (where normalisation = 'raw') as raw_similarity,
        any_value(minhash_estimate) filter (where normalisation = 'raw') as raw_minhash_estimate,
        any_value(shingles_a) filter (where normalisation = 'normalised')
            as normalised_shingles_a,
        any_value(shingles_b) filter (where normalisation = 'normalised')
            as normalised_shingles_b,
        any_value(shared_shingles) filter (where normalisation = 'normalised')
            as normalised_shared_shingles,
        any_value(jaccard) filter (where normalisation = 'normalised') as normalised_similarity,
        any_value(minhash_estimate) filter (where normalisation = 'normalised')
            as normalised_minhash_estimate
    from measured
    group by pair_kind, document_a, document_b
)

select
    cast(pair_kind as varchar) as pair_kind,
    cast(document_a as bigint) as document_a,
    cast(document_b as bigint) as document_b,
    cast(raw_shingles_a as bigint) as raw_shingles_a,
    cast(raw_shingles_b as bigint) as raw_shingles_b,
    cast(raw_shared_shingles as bigint) as raw_shared_shingles,
    cast(raw_similarity as double) as raw_similarity,
    cast(raw_minhash_estimate as double) as raw_minhash_estimate,
    cast(normalised_shingles_a as bigint) as normalised_shingles_a,
    cast(normalised_shingles_b as bigint) as normalised_shingles_b,
    cast(normalised_shared_shingles as bigint) as normalised_shared_shingles,
    cast(normalised_similarity as double) as normalised_similarity,
    cast(normalised_minhash_estimate as double) as normalised_minhash_estimate,
    cast(greatest(raw_similarity, normalised_similarity) as double) as similarity
from pivoted
