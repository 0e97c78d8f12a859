{#
    One row per usable challenge file: whether it is template scaffolding or on an ignored
    path, so that per-file containment does not flag it.
    Scaffold: the template's instances (challenges of the template with files) number at
    least `scaffold_min_instances`, and at least `scaffold_min_instance_share` of them hold
    a near-identical file at the same path (this file's instance counted; near-identical:
    exact Jaccard similarity, raw or normalised, of at least `scaffold_min_similarity`
    between the two files, from the 'instance_file' pairs LSH proposed). Config files,
    manifests and boilerplate every instance ships are scaffolding; a main file two
    instances of a large template share is not.
    Ignored: the path matches one of the SQL GLOB patterns of var
    `contamination_ignored_paths` ('*' also matches '/').
#}
{%- set patterns = var('contamination_ignored_paths') %}
{%- if patterns is string or patterns is mapping %}
    {{ exceptions.raise_compiler_error(
        "contamination_ignored_paths must be a list of GLOB patterns, got " ~ patterns) }}
{%- endif %}
with

documents as (
    select * from {{ ref('int_code_documents_indexed') }}
    where document_kind = 'challenge_file'
),

shingled as (
    select * from {{ ref('int_code_documents_shingled') }}
    where document_kind = 'challenge_file' and normalisation = 'normalised'
),

file_pairs as (
    select * from {{ ref('int_code_pairs_compared') }}
    where pair_kind = 'instance_file' and is_compared_exactly
),

template_instances_counted as (
    select
        template_id,
        count(distinct challenge_id) as template_instances
    from documents
    where template_id is not null
    group by template_id
),

same_path_pairs as (
    select
        files_a.document_number as document_a,
        files_b.document_number as document_b,
        files_a.challenge_id as challenge_a,
        files_b.challenge_id as challenge_b
    from file_pairs
    inner join documents as files_a
        on file_pairs.document_a = files_a.document_number
    inner join documents as files_b
        on file_pairs.document_b = files_b.document_number
    where files_a.template_id = files_b.template_id
        and files_a.file_path = files_b.file_path
        and file_pairs.similarity >= {{ var('scaffold_min_similarity') }}
),

copies as (
    select
        document_a as document_number,
        challenge_b as other_challenge_id
    from same_path_pairs
    union all
    select
        document_b as document_number,
        challenge_a as other_challenge_id
    from same_path_pairs
),

copies_counted as (
    select
        document_number,
        count(distinct other_challenge_id) as other_instances
    from copies
    group by document_number
),

classified as (
    select
        documents.document_number,
        documents.challenge_id,
        documents.template_id,
        documents.file_path,
        coalesce(shingled.is_compared, false) as is_compared,
        coalesce(template_instances_counted.template_instances, 1) as template_instances,
        1 + coalesce(copies_counted.other_instances, 0) as instances_with_file,
        {% if patterns -%}
        (
            {%- for pattern in patterns %}
            documents.file_path glob '{{ pattern | replace("'", "''") }}'
            {%- if not loop.last %} or{% endif %}
            {%- endfor %}
        )
        {%- else -%}
        false
        {%- endif %} as is_ignored
    from documents
    left join shingled
        on documents.document_number = shingled.document_number
    left join template_instances_counted
        on documents.template_id = template_instances_counted.template_id
    left join copies_counted
        on documents.document_number = copies_counted.document_number
),

final as (
    select
        *,
        template_instances >= {{ var('scaffold_min_instances') }}
        and instances_with_file
        >= {{ var('scaffold_min_instance_share') }} * template_instances
            as is_scaffold
    from classified
)

select
    cast(document_number as bigint) as document_number,
    cast(challenge_id as varchar) as challenge_id,
    cast(template_id as varchar) as template_id,
    cast(file_path as varchar) as file_path,
    cast(is_compared as boolean) as is_compared,
    cast(template_instances as bigint) as template_instances,
    cast(instances_with_file as bigint) as instances_with_file,
    cast(is_scaffold as boolean) as is_scaffold,
    cast(is_ignored as boolean) as is_ignored
from final
