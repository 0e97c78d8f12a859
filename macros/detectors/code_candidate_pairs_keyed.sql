{#
    The candidate pairs of code documents (int_code_candidate_pairs_banded, on this run's
    document numbers) with both documents' keys (int_code_documents_indexed.document_key,
    which do not move when documents come and go): a select of pair_kind, document_a,
    document_b, document_key_a and document_key_b. int_code_pairs_measured stores its
    measures under the keys (and drops the pairs no longer among these);
    int_code_pairs_compared puts them back on the numbers.
#}
{% macro code_candidate_pairs_keyed() -%}
    select
        candidates.pair_kind,
        candidates.document_a,
        candidates.document_b,
        documents_a.document_key as document_key_a,
        documents_b.document_key as document_key_b
    from {{ ref('int_code_candidate_pairs_banded') }} as candidates
    inner join {{ ref('int_code_documents_indexed') }} as documents_a
        on candidates.document_a = documents_a.document_number
    inner join {{ ref('int_code_documents_indexed') }} as documents_b
        on candidates.document_b = documents_b.document_number
{%- endmacro %}
