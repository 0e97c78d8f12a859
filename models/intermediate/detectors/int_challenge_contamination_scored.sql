{#
    Empty unless a reference corpus was given (optional table `reference_corpus` with at
    least one usable document): nothing to compare against is not "clean".
    A challenge is flagged when a (file, document) pair's Jaccard similarity exceeds
    contamination_similarity_threshold, or when a file that is neither scaffold nor on an
    ignored path (int_code_files_classified) is contained in a document, or a document in
    such a file, above contamination_containment_threshold (a file copied from a larger
    public text, or a public text embedded in a larger file: Jaccard misses both).
#}
{%- set threshold = var('contamination_similarity_threshold') %}
{%- set containment_threshold = var('contamination_containment_threshold') %}
with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

reference_corpus as (
    select * from {{ ref('stg_platform__reference_corpus') }}
),

documents as (
    select * from {{ ref('int_code_documents_indexed') }}
),

shingled as (
    select * from {{ ref('int_code_documents_shingled') }}
    where normalisation = 'normalised'
),

candidates as (
    select * from {{ ref('int_code_candidate_pairs_banded') }}
    where pair_kind = 'contamination'
),

pairs as (
    select * from {{ ref('int_code_pairs_compared') }}
    where pair_kind = 'contamination' and is_compared_exactly
),

classified_files as (
    select * from {{ ref('int_code_files_classified') }}
),

corpus_present as (
    select count(*) > 0 as has_documents
    from reference_corpus
),

files_counted as (
    select
        documents.challenge_id,
        count(*) as files,
        count(*) filter (where shingled.is_compared) as compared_files,
        count(*) filter (where classified_files.is_scaffold) as scaffold_files
    from documents
    inner join shingled
        on documents.document_number = shingled.document_number
    inner join classified_files
        on documents.document_number = classified_files.document_number
    where documents.document_kind = 'challenge_file'
    group by documents.challenge_id
),

candidates_counted as (
    select
        files.challenge_id,
        count(distinct candidates.document_b) as candidate_documents
    from candidates
    inner join documents as files
        on candidates.document_a = files.document_number
    group by files.challenge_id
),

pairs_described as (
    select
        files.challenge_id,
        files.file_path,
        reference_documents.document_id,
        reference_documents.source,
        reference_documents.published_at,
        pairs.raw_similarity,
        pairs.normalised_similarity,
        pairs.similarity,
        not classified_files.is_scaffold and not classified_files.is_ignored
            as is_containment_judged,
        pairs.raw_containment_a,
        pairs.normalised_containment_a,
        pairs.containment_a,
        pairs.raw_containment_b,
        pairs.normalised_containment_b,
        pairs.containment_b
    from pairs
    inner join documents as files
        on pairs.document_a = files.document_number
    inner join documents as reference_documents
        on pairs.document_b = reference_documents.document_number
    inner join classified_files
        on pairs.document_a = classified_files.document_number
),

{#- both directions of containment, for files that are neither scaffold nor ignored #}
containments as (
    select
        challenge_id,
        file_path,
        document_id,
        'file_in_document' as containment_direction,
        raw_containment_a as raw_containment,
        normalised_containment_a as normalised_containment,
        containment_a as containment
    from pairs_described
    where is_containment_judged
    union all
    select
        challenge_id,
        file_path,
        document_id,
        'document_in_file' as containment_direction,
        raw_containment_b as raw_containment,
        normalised_containment_b as normalised_containment,
        containment_b as containment
    from pairs_described
    where is_containment_judged
),

containments_ranked as (
    select
        *,
        row_number() over (
            partition by challenge_id
            order by
                containment desc, raw_containment desc, document_id, file_path,
                containment_direction desc
        ) as containment_rank
    from containments
),

containments_summarised as (
    select
        challenge_id,
        max(raw_containment) as raw_containment,
        max(normalised_containment) as normalised_containment,
        max(containment) as containment,
        any_value(file_path) filter (where containment_rank = 1) as containment_file_path,
        any_value(document_id) filter (where containment_rank = 1) as containment_document_id,
        any_value(containment_direction) filter (where containment_rank = 1)
            as containment_direction
    from containments_ranked
    group by challenge_id
),

ranked as (
    select
        *,
        row_number() over (
            partition by challenge_id
            order by
                similarity desc, normalised_similarity desc, raw_similarity desc,
                document_id, file_path
        ) as match_rank
    from pairs_described
),

matches_summarised as (
    select
        challenge_id,
        max(raw_similarity) as raw_similarity,
        max(normalised_similarity) as normalised_similarity,
        min(published_at) filter (
            where similarity > {{ threshold }}
            or is_containment_judged
            and greatest(containment_a, containment_b) > {{ containment_threshold }}
        ) as first_published_at
    from pairs_described
    group by challenge_id
),

best_matches as (
    select * from ranked
    where match_rank = 1
),

assessed as (
    select
        files_counted.challenge_id,
        challenges.template_id,
        files_counted.files,
        files_counted.compared_files,
        coalesce(candidates_counted.candidate_documents, 0) as candidate_documents,
        matches_summarised.raw_similarity,
        matches_summarised.normalised_similarity,
        greatest(matches_summarised.raw_similarity, matches_summarised.normalised_similarity)
            as similarity,
        best_matches.file_path as best_file_path,
        best_matches.document_id as best_document_id,
        best_matches.source as best_document_source,
        best_matches.published_at as best_document_published_at,
        best_matches.raw_similarity as best_raw_similarity,
        best_matches.normalised_similarity as best_normalised_similarity,
        matches_summarised.first_published_at,
        containments_summarised.raw_containment,
        containments_summarised.normalised_containment,
        containments_summarised.containment,
        containments_summarised.containment_file_path,
        containments_summarised.containment_document_id,
        containments_summarised.containment_direction,
        files_counted.scaffold_files,
        case
            when files_counted.compared_files > 0 then 'compared'
            else 'not_compared'
        end as status,
        case
            when files_counted.compared_files = 0
                then 'no file has at least {{ var("contamination_min_shingles") }} distinct '
                    || 'normalised shingles (contamination_min_shingles)'
        end as reason
    from files_counted
    cross join corpus_present
    inner join challenges
        on files_counted.challenge_id = challenges.challenge_id
    left join candidates_counted
        on files_counted.challenge_id = candidates_counted.challenge_id
    left join matches_summarised
        on files_counted.challenge_id = matches_summarised.challenge_id
    left join best_matches
        on files_counted.challenge_id = best_matches.challenge_id
    left join containments_summarised
        on files_counted.challenge_id = containments_summarised.challenge_id
    where corpus_present.has_documents
),

rules_applied as (
    select
        *,
        coalesce(similarity > {{ threshold }}, false) as is_similar,
        coalesce(containment > {{ containment_threshold }}, false) as is_contained
    from assessed
),

flagged as (
    select
        *,
        case
            when raw_similarity > {{ threshold }}
                or raw_containment > {{ containment_threshold }}
                then 'raw'
            when normalised_similarity > {{ threshold }}
                or normalised_containment > {{ containment_threshold }}
                then 'normalised_only'
            else 'none'
        end as match_level,
        case
            when is_similar and is_contained then 'similarity_and_containment'
            when is_similar then 'similarity'
            when is_contained then 'containment'
            else 'none'
        end as flag_rule,
        is_similar or is_contained as is_flagged
    from rules_applied
)

select
    cast(challenge_id as varchar) as challenge_id,
    cast(template_id as varchar) as template_id,
    cast(files as bigint) as files,
    cast(compared_files as bigint) as compared_files,
    cast(candidate_documents as bigint) as candidate_documents,
    cast(raw_similarity as double) as raw_similarity,
    cast(normalised_similarity as double) as normalised_similarity,
    cast(similarity as double) as similarity,
    cast(best_file_path as varchar) as best_file_path,
    cast(best_document_id as varchar) as best_document_id,
    cast(best_document_source as varchar) as best_document_source,
    cast(best_document_published_at as date) as best_document_published_at,
    cast(best_raw_similarity as double) as best_raw_similarity,
    cast(best_normalised_similarity as double) as best_normalised_similarity,
    cast(first_published_at as date) as first_published_at,
    cast(match_level as varchar) as match_level,
    cast({{ threshold }} as double) as similarity_threshold,
    cast(raw_containment as double) as raw_containment,
    cast(normalised_containment as double) as normalised_containment,
    cast(containment as double) as containment,
    cast(containment_file_path as varchar) as containment_file_path,
    cast(containment_document_id as varchar) as containment_document_id,
    cast(containment_direction as varchar) as containment_direction,
    cast(scaffold_files as bigint) as scaffold_files,
    cast({{ containment_threshold }} as double) as containment_threshold,
    cast(flag_rule as varchar) as flag_rule,
    cast(is_flagged as boolean) as is_flagged,
    cast(status as varchar) as status,
    cast(reason as varchar) as reason
from flagged
