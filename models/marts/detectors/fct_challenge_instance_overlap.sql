with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

codebases as (
    select * from {{ ref('int_code_documents_indexed') }}
    where document_kind = 'challenge_codebase'
),

challenge_files as (
    select * from {{ ref('stg_platform__challenge_files') }}
),

pairs as (
    select * from {{ ref('int_code_pairs_compared') }}
    where pair_kind = 'instance' and is_compared_exactly
),

files_counted as (
    select
        challenge_id,
        count(*) as files
    from challenge_files
    group by challenge_id
),

overlapping as (
    select
        codebases_a.challenge_id as challenge_a,
        codebases_b.challenge_id as challenge_b,
        challenges_a.template_id as template_a,
        challenges_b.template_id as template_b,
        coalesce(challenges_a.template_id = challenges_b.template_id, false)
            as is_same_template,
        files_a.files as files_a,
        files_b.files as files_b,
        pairs.raw_similarity,
        pairs.normalised_similarity,
        pairs.similarity,
        pairs.normalised_shingles_a,
        pairs.normalised_shingles_b,
        pairs.normalised_shared_shingles
    from pairs
    inner join codebases as codebases_a
        on pairs.document_a = codebases_a.document_number
    inner join codebases as codebases_b
        on pairs.document_b = codebases_b.document_number
    inner join challenges as challenges_a
        on codebases_a.challenge_id = challenges_a.challenge_id
    inner join challenges as challenges_b
        on codebases_b.challenge_id = challenges_b.challenge_id
    inner join files_counted as files_a
        on codebases_a.challenge_id = files_a.challenge_id
    inner join files_counted as files_b
        on codebases_b.challenge_id = files_b.challenge_id
    where pairs.similarity > {{ var('contamination_similarity_threshold') }}
),

labelled as (
    select
        *,
        case
            when raw_similarity > {{ var('contamination_similarity_threshold') }} then 'raw'
            else 'normalised_only'
        end as match_level
    from overlapping
)

select
    cast(challenge_a as varchar) as challenge_a,
    cast(challenge_b as varchar) as challenge_b,
    cast(template_a as varchar) as template_a,
    cast(template_b as varchar) as template_b,
    cast(is_same_template as boolean) as is_same_template,
    cast(files_a as bigint) as files_a,
    cast(files_b as bigint) as files_b,
    cast(raw_similarity as double) as raw_similarity,
    cast(normalised_similarity as double) as normalised_similarity,
    cast(similarity as double) as similarity,
    cast(normalised_shingles_a as bigint) as normalised_shingles_a,
    cast(normalised_shingles_b as bigint) as normalised_shingles_b,
    cast(normalised_shared_shingles as bigint) as normalised_shared_shingles,
    cast(match_level as varchar) as match_level,
    cast({{ var('contamination_similarity_threshold') }} as double) as similarity_threshold
from labelled
