{#
    One row per candidate pair of code documents: the MinHash estimates of their Jaccard
    similarity (share of agreeing signature positions) in both normalisations, and, for
    pairs whose estimate reaches a comparison floor, the exact Jaccard similarity of their
    shingle sets (|A n B| / |A u B|) and the exact containment of each side in the other
    (|A n B| / |A|, |A n B| / |B|).
    Jaccard floor: the threshold minus four standard errors of the estimate at the
    threshold, t - 4 sqrt(t (1 - t) / P) (0.32 for t = 0.5, P = 128): a pair at the
    threshold falls below it with probability 3e-5, and the many unrelated candidates LSH
    lets through are not compared set by set.
    Containment floor (file-grain pairs: 'contamination', 'instance_file'): a pair whose
    smaller set (n_min of n_a + n_b shingles) is contained at exactly the containment
    threshold c has Jaccard J_c = c n_min / (n_a + n_b - c n_min); the pair is compared
    when its estimate reaches J_c - 4 sqrt(J_c (1 - J_c) / P), the same four standard
    errors. Normalised containment counts only when the containing set has at most
    `contamination_containment_max_size_ratio` times the contained one's shingles: the
    normalised shingles of a much larger text contain most of any small file's by chance
    (measured on the standard library: 0.86 for a 92-shingle module in a 2,011-shingle one).
#}
{%- set threshold = challenge_fairness.validated_var('contamination_similarity_threshold') | float %}
{%- set permutations = var('minhash_permutations') | int %}
{%- set comparison_floor = threshold - 4 * (threshold * (1 - threshold) / permutations) ** 0.5 %}
{%- set containment_threshold = var('contamination_containment_threshold') | float %}
{%- set max_size_ratio = var('contamination_containment_max_size_ratio') | float %}
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

document_sizes as (
    select
        document_number,
        normalisation,
        shingle_count
    from {{ ref('int_code_documents_shingled') }}
    where is_compared
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
        / len(signatures_a.signature) as minhash_estimate,
        sizes_a.shingle_count as shingles_a,
        sizes_b.shingle_count as shingles_b
    from candidates
    cross join normalisations
    inner join signatures as signatures_a
        on candidates.document_a = signatures_a.document_number
        and normalisations.normalisation = signatures_a.normalisation
    inner join signatures as signatures_b
        on candidates.document_b = signatures_b.document_number
        and normalisations.normalisation = signatures_b.normalisation
    inner join document_sizes as sizes_a
        on candidates.document_a = sizes_a.document_number
        and normalisations.normalisation = sizes_a.normalisation
    inner join document_sizes as sizes_b
        on candidates.document_b = sizes_b.document_number
        and normalisations.normalisation = sizes_b.normalisation
),

{#- the Jaccard of a pair whose smaller side is contained at exactly the threshold #}
containment_jaccard as (
    select
        *,
        case
            when pair_kind in ('contamination', 'instance_file')
                and (
                    normalisation = 'raw'
                    or greatest(shingles_a, shingles_b)
                    <= {{ max_size_ratio }} * least(shingles_a, shingles_b)
                )
                then {{ containment_threshold }} * least(shingles_a, shingles_b)
                    / (
                        shingles_a + shingles_b
                        - {{ containment_threshold }} * least(shingles_a, shingles_b)
                    )
        end as threshold_jaccard
    from estimated
),

floors_reached as (
    select
        *,
        minhash_estimate >= {{ comparison_floor }}
        or coalesce(
            minhash_estimate >= threshold_jaccard
            - 4 * sqrt(threshold_jaccard * (1 - threshold_jaccard) / {{ permutations }}),
            false
        ) as reaches_floor
    from containment_jaccard
),

estimates_pivoted as (
    select
        pair_kind,
        document_a,
        document_b,
        max(minhash_estimate) filter (where normalisation = 'raw') as raw_minhash_estimate,
        max(minhash_estimate) filter (where normalisation = 'normalised')
            as normalised_minhash_estimate,
        bool_or(reaches_floor) as is_worth_comparing
    from floors_reached
    group by pair_kind, document_a, document_b
),

worth_comparing as (
    select * from estimates_pivoted
    where is_worth_comparing
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
        estimates_pivoted.* exclude (is_worth_comparing),  -- noqa: RF02
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
),

{#- containment of each side in the other (file-grain pairs only); normalised containment
    only while the containing set has at most max_size_ratio times the contained one's
    shingles, NULL beyond #}
contained as (
    select
        *,
        pair_kind in ('contamination', 'instance_file') as is_file_grain
    from compared
),

judged as (
    select
        *,
        case when is_file_grain then raw_shared_shingles / raw_shingles_a end
            as raw_containment_a,
        case when is_file_grain then raw_shared_shingles / raw_shingles_b end
            as raw_containment_b,
        case
            when is_file_grain
                and normalised_shingles_b <= {{ max_size_ratio }} * normalised_shingles_a
                then normalised_shared_shingles / normalised_shingles_a
        end as normalised_containment_a,
        case
            when is_file_grain
                and normalised_shingles_a <= {{ max_size_ratio }} * normalised_shingles_b
                then normalised_shared_shingles / normalised_shingles_b
        end as normalised_containment_b
    from contained
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
    cast(greatest(raw_similarity, normalised_similarity) as double) as similarity,
    cast(raw_containment_a as double) as raw_containment_a,
    cast(raw_containment_b as double) as raw_containment_b,
    cast(normalised_containment_a as double) as normalised_containment_a,
    cast(normalised_containment_b as double) as normalised_containment_b,
    cast(greatest(raw_containment_a, normalised_containment_a) as double) as containment_a,
    cast(greatest(raw_containment_b, normalised_containment_b) as double) as containment_b
from judged
