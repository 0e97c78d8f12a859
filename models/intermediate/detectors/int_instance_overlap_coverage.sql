{# One row: whether challenge codebases could be compared with each other. #}
{%- set has_files = source_table_exists('challenge_files') %}
with

codebases as (
    select * from {{ ref('int_code_documents_shingled') }}
    where normalisation = 'normalised' and document_kind = 'challenge_codebase'
),

counted as (
    select
        count(*) as codebases,
        count(*) filter (where is_compared) as compared_codebases
    from codebases
),

covered as (
    select
        'challenge_instance_overlap' as detector,
        {% if not has_files -%}
        false as is_available,
        'missing optional table: challenge_files' as missing_inputs,
        {%- else -%}
        codebases > 1 as is_available,
        case
            when codebases = 0 then 'challenge_files has no usable rows'
            when codebases = 1 then 'only one challenge has files'
        end as missing_inputs,
        {%- endif %}
        {# challenge codebases long enough to be compared #}
        compared_codebases as rows_analysed
    from counted
)

select
    cast(detector as varchar) as detector,
    cast(is_available as boolean) as is_available,
    cast(missing_inputs as varchar) as missing_inputs,
    cast(rows_analysed as bigint) as rows_analysed
from covered
