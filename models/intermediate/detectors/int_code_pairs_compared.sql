{#
    One row per candidate pair of code documents: the MinHash estimates of their Jaccard
    similarity in both normalisations, and, for pairs whose estimate reaches a comparison
    floor, the exact Jaccard similarity of their shingle sets (|A n B| / |A u B|) and the
    exact containment of each side in the other (|A n B| / |A|, |A n B| / |B|), under this
    run's document numbers. The estimates, the floors and the shared shingles are measured
    and stored per pair of document keys by int_code_pairs_measured (a run measures only
    new pairs and pairs of new or changed documents); this model puts them on the pairs'
    numbers and judges them.
    Normalised containment counts only when the containing set has at most
    `contamination_containment_max_size_ratio` times the contained one's shingles: the
    normalised shingles of a much larger text contain most of any small file's by chance
    (measured on the standard library: 0.86 for a 92-shingle module in a 2,011-shingle one).
#}
{%- set max_size_ratio = var('contamination_containment_max_size_ratio') | float %}
with

candidates as (
    {{ code_candidate_pairs_keyed() | indent(4) }}
),

measured as (
    select * from {{ ref('int_code_pairs_measured') }}
),

{#- A candidate without its measures (none is expected) keeps NULL estimates, which the
    model's row checks reject, rather than leaving the judgement silently. #}
compared as (
    select
        candidates.pair_kind,
        candidates.document_a,
        candidates.document_b,
        measured.raw_minhash_estimate,
        measured.normalised_minhash_estimate,
        measured.raw_shingles_a,
        measured.raw_shingles_b,
        measured.raw_shared_shingles,
        measured.raw_shared_shingles / nullif(
            measured.raw_shingles_a + measured.raw_shingles_b - measured.raw_shared_shingles, 0
        ) as raw_similarity,
        measured.normalised_shingles_a,
        measured.normalised_shingles_b,
        measured.normalised_shared_shingles,
        measured.normalised_shared_shingles / nullif(
            measured.normalised_shingles_a + measured.normalised_shingles_b
            - measured.normalised_shared_shingles, 0
        ) as normalised_similarity,
        coalesce(measured.is_compared_exactly, false) as is_compared_exactly
    from candidates
    left join measured
        on candidates.pair_kind = measured.pair_kind
        and candidates.document_key_a = measured.document_key_a
        and candidates.document_key_b = measured.document_key_b
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
