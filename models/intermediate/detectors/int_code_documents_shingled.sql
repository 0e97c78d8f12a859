{#
    One row per (code document, normalisation): the distinct hashes of the document's
    token shingles. Documents are challenge files, reference documents and challenge
    codebases (the union of a challenge's files' shingles). 'raw' keeps tokens as written
    (white space folded); 'normalised' drops comments and folds identifiers to ID and
    literals to LIT, so renamed copies still share shingles.
    Each CTE is read once, so DuckDB streams the texts instead of keeping every token list
    in memory (a CTE read twice is materialised); the few challenge files are tokenised a
    second time for their codebases.
#}
{%- set k = challenge_fairness.validated_var('shingle_tokens') %}
with

documents as (
    select * from {{ ref('int_code_documents_indexed') }}
),

challenge_files as (
    select * from {{ ref('int_keyed__challenge_files') }}
),

reference_corpus as (
    select * from {{ ref('stg_platform__reference_corpus') }}
),

normalisations as (
    select 'raw' as normalisation
    union all
    select 'normalised' as normalisation
),

texts as (
    select
        documents.document_number,
        documents.document_kind,
        challenge_files.content
    from documents
    inner join challenge_files
        on documents.challenge_id = challenge_files.challenge_id
        and documents.file_path = challenge_files.file_path
    where documents.document_kind = 'challenge_file'
    union all
    select
        documents.document_number,
        documents.document_kind,
        reference_corpus.content
    from documents
    inner join reference_corpus
        on documents.document_id = reference_corpus.document_id
    where documents.document_kind = 'reference_document'
),

texts_tokenised as (
    select
        document_number,
        document_kind,
        {{ code_tokens('content') }} as tokens
    from texts
),

texts_normalised as (
    select
        document_number,
        document_kind,
        {{ code_raw_tokens('tokens') }} as raw_tokens,
        {{ code_normalised_tokens('tokens') }} as normalised_tokens
    from texts_tokenised
),

texts_shingled as (
    select
        document_number,
        document_kind,
        len(raw_tokens) as raw_token_count,
        len(normalised_tokens) as normalised_token_count,
        {{ shingle_hashes('raw_tokens', k) }} as raw_shingles,
        {{ shingle_hashes('normalised_tokens', k) }} as normalised_shingles
    from texts_normalised
),

codebase_files_tokenised as (
    select
        challenge_id,
        {{ code_tokens('content') }} as tokens
    from challenge_files
),

codebase_files_normalised as (
    select
        challenge_id,
        {{ code_raw_tokens('tokens') }} as raw_tokens,
        {{ code_normalised_tokens('tokens') }} as normalised_tokens
    from codebase_files_tokenised
),

codebase_files_shingled as (
    select
        challenge_id,
        len(raw_tokens) as raw_token_count,
        len(normalised_tokens) as normalised_token_count,
        {{ shingle_hashes('raw_tokens', k) }} as raw_shingles,
        {{ shingle_hashes('normalised_tokens', k) }} as normalised_shingles
    from codebase_files_normalised
),

codebases_shingled as (
    select
        documents.document_number,
        documents.document_kind,
        sum(files.raw_token_count) as raw_token_count,
        sum(files.normalised_token_count) as normalised_token_count,
        list_distinct(flatten(list(files.raw_shingles))) as raw_shingles,
        list_distinct(flatten(list(files.normalised_shingles))) as normalised_shingles
    from codebase_files_shingled as files
    inner join documents
        on files.challenge_id = documents.challenge_id
        and documents.document_kind = 'challenge_codebase'
    group by documents.document_number, documents.document_kind
),

shingled as (
    select * from texts_shingled
    union all
    select * from codebases_shingled
),

unpivoted as (
    select
        shingled.document_number,
        shingled.document_kind,
        normalisations.normalisation,
        case
            when normalisations.normalisation = 'raw' then shingled.raw_token_count
            else shingled.normalised_token_count
        end as tokens,
        case
            when normalisations.normalisation = 'raw' then shingled.raw_shingles
            else shingled.normalised_shingles
        end as shingles,
        {# one rule for both normalisations: the normalised set is the smaller one #}
        len(shingled.normalised_shingles) >= {{ var('contamination_min_shingles') }}
            as is_compared
    from shingled
    cross join normalisations
)

select
    cast(document_number as bigint) as document_number,
    cast(document_kind as varchar) as document_kind,
    cast(normalisation as varchar) as normalisation,
    cast(tokens as bigint) as tokens,
    cast(len(shingles) as bigint) as shingle_count,
    cast(is_compared as boolean) as is_compared,
    shingles
from unpivoted
