{# One row: whether challenge code could be compared with a reference corpus. #}
{%- set missing = [] %}
{%- for table_name in ['challenge_files', 'reference_corpus'] %}
    {%- if not source_table_exists(table_name) %}{% do missing.append(table_name) %}{% endif %}
{%- endfor %}
with

documents as (
    select * from {{ ref('int_code_documents_shingled') }}
    where normalisation = 'normalised'
        and document_kind in ('challenge_file', 'reference_document')
),

counted as (
    select
        count(*) filter (where document_kind = 'challenge_file') as files,
        count(*) filter (where document_kind = 'reference_document') as reference_documents,
        count(*) filter (where is_compared) as compared_documents
    from documents
),

covered as (
    select
        'challenge_contamination' as detector,
        {% if missing -%}
        false as is_available,
        'missing optional table(s): {{ missing | join(", ") }}' as missing_inputs,
        {%- else -%}
        files > 0 and reference_documents > 0 as is_available,
        case
            when files = 0 and reference_documents = 0
                then 'challenge_files and reference_corpus have no usable rows'
            when files = 0 then 'challenge_files has no usable rows'
            when reference_documents = 0 then 'reference_corpus has no usable rows'
        end as missing_inputs,
        {%- endif %}
        {# challenge files and reference documents long enough to be compared #}
        compared_documents as rows_analysed
    from counted
)

select
    cast(detector as varchar) as detector,
    cast(is_available as boolean) as is_available,
    cast(missing_inputs as varchar) as missing_inputs,
    cast(rows_analysed as bigint) as rows_analysed
from covered
