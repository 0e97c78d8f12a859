{#
    One row per candidate pair of code documents: the MinHash estimates of their Jaccard
    similarity (share of agreeing signature positions) in both normalisations, and, for
    pairs whose larger estimate reaches the comparison floor, the exact Jaccard similarity
    of their shingle sets (|A n B| / |A u B|). The floor is the threshold minus four
    standard errors of the estimate at the threshold, t - 4 sqrt(t (1 - t) / P) (0.32 for
    t = 0.5, P = 128): a pair at the threshold falls below it with probability 3e-5, and
    the many unrelated candidates LSH lets through are not compared set by set.
#}
{%- set threshold = challenge_fairness.validated_var('contamination_similarity_threshold') | float %}
{%- set permutations = var('minhash_permutations') | int %}
{%- set comparison_floor = threshold - 4 * (threshold * (1 - threshold) / permutations) ** 0.5 %}
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
    select 'raw' as normalisation
    union all
    select 'normalised' as normalisation
),

estimated as (
    select
        candidates.pair_kind,
        candidates.document_a,
        candidates.document_b,
        normalisations.normalisation,
        {{ signature_agreement('signatures_a.signature', 'signatures_b.signature') }}
            / len(signatures_a.signature) as minhash_estimate
    from candidates
    cross join normalisations
    inner join signatures as signatures_a
        on candidates.document_a = signatures_a.document_number
        and normalisations.normalisation = signatures_a.normalisation
    inner join signatures as signatures_b
        on candidates.document_b = signatures_b.document_number
        and normalisations.normalisation = signatures_b.normalisation
),

estimates_pivoted as (
    select
        pair_kind,
        document_a,
        document_b,
        max(minhash_estimate) filter (where normalisation = 'raw') as raw_minhash_estimate,
        max(minhash_estimate) filter (where normalisation = 'normalised')
            as normalised_minhash_estimate
    from estimated
    group by pair_kind, document_a, document_b
),

worth_comparing as (
    select * from estimates_pivoted
    where greatest(raw_minhash_estimate, normalised_minhash_estimate)
        >= {{ comparison_floor }}
),

intersected as (
    select
        worth_comparing.pair_kind,
        worth_comparing.document_a,
        worth_comparing.document_b,
        normalisations.normalisation,
        documents_a.shingle_count as shingles_a,
        documents_b.shingle_count as shingles_b,
        {{ shared_elements('documents_a.shingles', 'documents_b.shingles') }} as shared_shingles
    from worth_comparing
    cross join normalisations
    inner join documents as documents_a
        on worth_comparing.document_a = documents_a.document_number
        and normalisations.normalisation = documents_a.normalisation
    inner join documents as documents_b
        on worth_comparing.document_b = documents_b.document_number
        and normalisations.normalisation = documents_b.normalisation
),

exact_pivoted as (
    select
        pair_kind,
        document_a,
        document_b,
        max(shingles_a) filter (where normalisation = 'raw') as raw_shingles_a,
        max(shingles_b) filter (where normalisation = 'raw') as raw_shingles_b,
        max(shared_shingles) filter (where normalisation = 'raw') as raw_shared_shingles,
        max(shingles_a) filter (where normalisation = 'normalised') as normalised_shingles_a,
        max(shingles_b) filter (where normalisation = 'normalised') as normalised_shingles_b,
        max(shared_shingles) filter (where normalisation = 'normalised')
            as normalised_shared_shingles
    from intersected
    group by pair_kind, document_a, document_b
),

compared as (
    select
        estimates_pivoted.*,
        exact_pivoted.raw_shingles_a,
        exact_pivoted.raw_shingles_b,
        exact_pivoted.raw_shared_shingles,
        exact_pivoted.raw_shared_shingles / nullif(
            exact_pivoted.raw_shingles_a + exact_pivoted.raw_shingles_b
            - exact_pivoted.raw_shared_shingles, 0
        ) as raw_similarity,
        exact_pivoted.normalised_shingles_a,
        exact_pivoted.normalised_shingles_b,
        exact_pivoted.normalised_shared_shingles,
        exact_pivoted.normalised_shared_shingles / nullif(
            exact_pivoted.normalised_shingles_a + exact_pivoted.normalised_shingles_b
            - exact_pivoted.normalised_shared_shingles, 0
        ) as normalised_similarity,
        exact_pivoted.document_a is not null as is_compared_exactly
    from estimates_pivoted
    left join exact_pivoted
        on estimates_pivoted.pair_kind = exact_pivoted.pair_kind
        and estimates_pivoted.document_a = exact_pivoted.document_a
        and estimates_pivoted.document_b = exact_pivoted.document_b
)

select
    cast(pair_kind as varchar) as pair_kind,
    cast(document_a as bigint) as document_a,
    cast(document_b as bigint) as document_b,
    cast(raw_minhash_estimate as double) as raw_minhash_estimate,
    cast(normalised_minhash_estimate as double) as normalised_minhash_estimate,
    cast(is_compared_exactly as boolean) as is_compared_exactly,
    cast(raw_shingles_a as bigint) as raw_shingles_a,
    cast(raw_shingles_b as bigint) as raw_shingles_b,
    cast(raw_shared_shingles as bigint) as raw_shared_shingles,
    cast(raw_similarity as double) as raw_similarity,
    cast(normalised_shingles_a as bigint) as normalised_shingles_a,
    cast(normalised_shingles_b as bigint) as normalised_shingles_b,
    cast(normalised_shared_shingles as bigint) as normalised_shared_shingles,
    cast(normalised_similarity as double) as normalised_similarity,
    cast(greatest(raw_similarity, normalised_similarity) as double) as similarity
from compared
