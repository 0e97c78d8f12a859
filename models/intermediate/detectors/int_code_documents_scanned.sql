{#
    One row per (code document, normalisation) with what the near-duplicate search needs of
    its text, found with `scanned_with`: the distinct hashes of its token shingles and, for
    a document with at least `contamination_min_shingles` distinct normalised shingles, its
    MinHash signature and LSH band hashes. Documents are challenge files, reference
    documents and challenge codebases (the union of a challenge's files' shingles), named by
    `document_key` (int_code_documents_indexed). 'raw' keeps tokens as written (white space
    folded); 'normalised' drops comments and folds identifiers to ID and literals to LIT, so
    renamed copies still share shingles.

    Incremental: a run scans only the documents whose content digest or `scanned_with`
    differ from the stored rows (a new or edited file or document; a codebase whose files
    changed; other shingle or signature vars; a changed scanning macro, this model's code or
    DuckDB's version, whose hash() the shingles are made of), and the post-hook drops the
    rows of documents that are gone. Tokenising and signing are most of the contamination
    models' cost (about 60 s of an 85 s build at 10,000 files x 100,000 documents), and a
    reference corpus rarely changes: a daily run whose documents did not change scans none
    (about 1 s to compare the digests there; docs/contamination.md). Equal to a full
    refresh: each stored row is the scan of the content whose digest is beside it, with
    the scanner named beside it.
#}
{%- set k = challenge_fairness.validated_var('shingle_tokens') %}
{%- set permutations = var('minhash_permutations') %}
{%- set rows_per_band = lsh_rows_per_band() %}
{%- set containment_rows_per_band = lsh_rows_per_band('contamination_containment_bands') %}
{#- What a scan is made of: this model's code and the SQL its macros write, with the vars in
    it (DuckDB's version is added in SQL). #}
{%- set scanner = [
    model.raw_code,
    code_shingled('texts', k),
    minhash_signature('shingles', permutations),
    signature_bands('signature', var('minhash_bands'), rows_per_band),
    signature_bands('signature', var('contamination_containment_bands'), containment_rows_per_band),
    'contamination_min_shingles=' ~ var('contamination_min_shingles'),
] | join('\n') %}
{%- set scanned_with = "'" ~ local_md5(scanner) ~ " on DuckDB ' || version()" %}
{{ config(
    materialized='incremental',
    incremental_strategy='delete+insert',
    unique_key='document_key',
    on_schema_change='fail',
    post_hook="
        delete from {{ this }} as stored
        where not exists (
            select 1
            from {{ ref('int_code_documents_indexed') }} as documents
            where documents.document_key = stored.document_key
        )",
) }}
with

documents as (
    select * from {{ ref('int_code_documents_indexed') }}
),

{#- Each text relation is read by CTEs that are read once (DuckDB keeps a CTE read twice
    whole): a file's or document's text is digested and, when the stored scan is not of
    it, tokenised in one pass; a codebase's digest and the files of the codebases to scan
    are read apart (a few files per challenge). #}
file_texts as (
    select
        documents.document_key,
        documents.document_kind,
        md5(challenge_files.content) as content_digest,
        challenge_files.content
    from {{ ref('int_keyed__challenge_files') }} as challenge_files
    inner join documents
        on challenge_files.challenge_id = documents.challenge_id
        and challenge_files.file_path = documents.file_path
        and documents.document_kind = 'challenge_file'
),

reference_texts as (
    select
        documents.document_key,
        documents.document_kind,
        md5(reference_corpus.content) as content_digest,
        reference_corpus.content
    from {{ ref('stg_platform__reference_corpus') }} as reference_corpus
    inner join documents
        on reference_corpus.document_id = documents.document_id
        and documents.document_kind = 'reference_document'
),

{#- a codebase is its files: their paths and contents' digests, in path order #}
codebase_digests as (
    select
        documents.document_key,
        documents.document_kind,
        documents.challenge_id,
        md5(to_json(list(
            list_value(challenge_files.file_path, md5(challenge_files.content))
            order by challenge_files.file_path
        ))) as content_digest
    from {{ ref('int_keyed__challenge_files') }} as challenge_files
    inner join documents
        on challenge_files.challenge_id = documents.challenge_id
        and documents.document_kind = 'challenge_codebase'
    group by documents.document_key, documents.document_kind, documents.challenge_id
),

codebase_file_texts as (
    select
        challenge_id,
        content
    from {{ ref('int_keyed__challenge_files') }}
),

texts as (
    select * from file_texts
    union all
    select * from reference_texts
),

{#- Grouped on the (unique) key: a relation of fewer than 122,880 rows is one row group,
    which one thread scans, and the tokenising, shingling and signing that follow would run
    on that thread; the grouping's result is read by every thread (10,000 files x 100,000
    documents, this query alone on 2 threads: 45 s with the grouping, 86 s without). #}
texts_to_scan as (
    select
        document_key,
        any_value(document_kind) as document_kind,
        any_value(content_digest) as content_digest,
        any_value(content) as content,
        {{ scanned_with }} as scanned_with
    from texts
    {%- if is_incremental() %}
    where not exists (
            select 1
            from {{ this }} as stored
            where stored.document_key = texts.document_key
                and stored.content_digest = texts.content_digest
                and stored.scanned_with = {{ scanned_with }}
        )
    {%- endif %}
    group by document_key
),

codebases_to_scan as (
    select
        codebase_digests.*,
        {{ scanned_with }} as scanned_with
    from codebase_digests
    {%- if is_incremental() %}
    where not exists (
            select 1
            from {{ this }} as stored
            where stored.document_key = codebase_digests.document_key
                and stored.content_digest = codebase_digests.content_digest
                and stored.scanned_with = {{ scanned_with }}
        )
    {%- endif %}
),

texts_shingled as (
    {{ code_shingled('texts_to_scan', k) | indent(4) }}
),

{#- the files of the codebases to scan, tokenised again (a few per challenge) #}
codebase_files_to_scan as (
    select
        codebases_to_scan.document_key,
        codebases_to_scan.document_kind,
        codebases_to_scan.content_digest,
        codebases_to_scan.scanned_with,
        codebase_file_texts.content
    from codebases_to_scan
    inner join codebase_file_texts
        on codebases_to_scan.challenge_id = codebase_file_texts.challenge_id
),

codebase_files_shingled as (
    {{ code_shingled('codebase_files_to_scan', k) | indent(4) }}
),

codebases_shingled as (
    select
        document_key,
        document_kind,
        content_digest,
        scanned_with,
        sum(raw_token_count) as raw_token_count,
        sum(normalised_token_count) as normalised_token_count,
        list_distinct(flatten(list(raw_shingles))) as raw_shingles,
        list_distinct(flatten(list(normalised_shingles))) as normalised_shingles
    from codebase_files_shingled
    group by document_key, document_kind, content_digest, scanned_with
),

shingled as (
    select * from texts_shingled
    union all
    select * from codebases_shingled
),

normalisations as (
    select 'raw' as normalisation
    union all
    select 'normalised' as normalisation
),

unpivoted as (
    select
        shingled.document_key,
        shingled.document_kind,
        shingled.content_digest,
        shingled.scanned_with,
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
),

signed as (
    select
        *,
        case
            when is_compared then {{ minhash_signature('shingles', permutations) }}
        end as signature
    from unpivoted
)

select
    cast(document_key as varchar) as document_key,
    cast(document_kind as varchar) as document_kind,
    cast(normalisation as varchar) as normalisation,
    cast(content_digest as varchar) as content_digest,
    cast(scanned_with as varchar) as scanned_with,
    cast(tokens as bigint) as tokens,
    cast(len(shingles) as bigint) as shingle_count,
    cast(is_compared as boolean) as is_compared,
    {#- in order: a set, stored the same way by every run (list_distinct and a codebase's
        list() leave their order to the hash table and the threads) #}
    list_sort(shingles) as shingles,
    signature,
    case
        when is_compared
            then {{ signature_bands('signature', var('minhash_bands'), rows_per_band) }}
    end as band_hashes,
    case
        when is_compared
            and normalisation = 'raw'
            and document_kind in ('challenge_file', 'reference_document')
            then {{ signature_bands(
                'signature', var('contamination_containment_bands'), containment_rows_per_band
            ) }}
    end as containment_band_hashes
from signed
