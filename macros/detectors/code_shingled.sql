{#
    A code text's shingles, for each row of `relation` (a CTE or relation with the columns
    document_key, document_kind, content_digest, scanned_with and `content`): the text
    tokenised (code_tokens), as written and normalised (code_raw_tokens,
    code_normalised_tokens), with each list's token count and the distinct hashes of its
    `shingle_tokens`-token shingles (shingle_hashes). A select, one row per row of
    `relation`; int_code_documents_scanned runs it over the documents' texts and over the
    files of the codebases it scans.
#}
{% macro code_shingled(relation, shingle_tokens) -%}
    {%- set carried = 'document_key, document_kind, content_digest, scanned_with' %}
    select
        {{ carried }},
        len(raw_tokens) as raw_token_count,
        len(normalised_tokens) as normalised_token_count,
        {{ challenge_fairness.shingle_hashes('raw_tokens', shingle_tokens) }} as raw_shingles,
        {{ challenge_fairness.shingle_hashes('normalised_tokens', shingle_tokens) }} as normalised_shingles
    from (
        select
            {{ carried }},
            {{ challenge_fairness.code_raw_tokens('tokens') }} as raw_tokens,
            {{ challenge_fairness.code_normalised_tokens('tokens') }} as normalised_tokens
        from (
            select
                {{ carried }},
                {{ challenge_fairness.code_tokens('content') }} as tokens
            from {{ relation }}
        ) as tokenised
    ) as normalised
{%- endmacro %}
