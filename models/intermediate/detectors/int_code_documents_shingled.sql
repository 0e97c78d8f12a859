{#
    One row per (code document, normalisation): the distinct hashes of the document's
    token shingles. Documents are challenge files, reference documents and challenge
    codebases (the union of a challenge's files' shingles). Tokenised once; 'raw' keeps
    tokens as written (white space folded), 'normalised' drops comments and folds
    identifiers to ID and literals to LIT, so renamed copies still share shingles.
#}
with

challenge_files as (
    select * from {{ ref('stg_platform__challenge_files') }}
),

reference_corpus as (
    select * from {{ ref('stg_platform__reference_corpus') }}
),

texts as (
    select
        'challenge_file' as document_kind,
        challenge_id,
        file_path,
        cast(null as varchar) as document_id,
        content
    from challenge_files
    union all
    select
        'reference_document' as document_kind,
        cast(null as varchar) as challenge_id,
        cast(null as varchar) as file_path,
        document_id,
        content
    from reference_corpus
),

tokenised as (
    select
        document_kind,
        challenge_id,
        file_path,
        document_id,
        {{ code_tokens('content') }} as tokens
    from texts
),

normalised as (
    select
        document_kind,
        challenge_id,
        file_path,
        document_id,
        {{ code_raw_tokens('tokens') }} as raw_tokens,
        {{ code_normalised_tokens('tokens') }} as normalised_tokens
    from tokenised
),

shingled_texts as (
    select
        document_kind,
        challenge_id,
        file_path,
        document_id,
        'raw' as normalisation,
        len(raw_tokens) as tokens,
        {{ shingle_hashes('raw_tokens', var('shingle_tokens')) }} as shingles
    from normalised
    union all
    select
        document_kind,
        challenge_id,
        file_path,
        document_id,
        'normalised' as normalisation,
        len(normalised_tokens) as tokens,
        {{ shingle_hashes('normalised_tokens', var('shingle_tokens')) }} as shingles
    from normalised
),

shingled_codebases as (
    select
        'challenge_codebase' as document_kind,
        challenge_id,
        cast(null as varchar) as file_path,
        cast(null as varchar) as document_id,
        normalisation,
        sum(tokens) as tokens,
        list_distinct(flatten(list(shingles))) as shingles
    from shingled_texts
    where document_kind = 'challenge_file'
    group by challenge_id, normalisation
),

shingled as (
    select * from shingled_texts
    union all
    select * from shingled_codebases
),

numbered as (
    select
        dense_rank() over (
            order by document_kind, challenge_id, file_path, document_id
        ) as document_number,
        document_kind,
        challenge_id,
        file_path,
        document_id,
        normalisation,
        tokens,
        len(shingles) as shingle_count,
        shingles
    from shingled
),

marked as (
    select
        *,
        {# one rule for both normalisations: the normalised set is the smaller one #}
        max(shingle_count) filter (where normalisation = 'normalised')
            over (partition by document_number)
            >= {{ var('contamination_min_shingles') }} as is_compared
    from numbered
)

select
    cast(document_number as bigint) as document_number,
    cast(document_kind as varchar) as document_kind,
    cast(challenge_id as varchar) as challenge_id,
    cast(file_path as varchar) as file_path,
    cast(document_id as varchar) as document_id,
    cast(normalisation as varchar) as normalisation,
    cast(tokens as bigint) as tokens,
    cast(shingle_count as bigint) as shingle_count,
    cast(is_compared as boolean) as is_compared,
    shingles
from marked
