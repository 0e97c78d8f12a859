{#
    A pair is reported when either rule fires:
    - similarity: the Jaccard similarity of the two codebases (every file's shingles
      together) exceeds contamination_similarity_threshold;
    - containment: a file of one challenge that is neither scaffold nor on an ignored path
      (int_code_files_classified) has more than contamination_containment_threshold of its
      shingles in a file of the other challenge. Whole-codebase Jaccard falls as each
      codebase grows around a shared file; the file's own containment does not.
    The codebases' exact similarities are recomputed here for the reported pairs, so a pair
    found by containment alone has them too.
#}
{%- set threshold = var('contamination_similarity_threshold') %}
{%- set containment_threshold = var('contamination_containment_threshold') %}
with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

codebases as (
    select * from {{ ref('int_code_documents_indexed') }}
    where document_kind = 'challenge_codebase'
),

codebase_shingles as (
    select * from {{ ref('int_code_documents_shingled') }}
    where document_kind = 'challenge_codebase'
),

files as (
    select * from {{ ref('int_code_files_classified') }}
),

codebase_pairs as (
    select * from {{ ref('int_code_pairs_compared') }}
    where pair_kind = 'instance' and is_compared_exactly
),

file_pairs as (
    select * from {{ ref('int_code_pairs_compared') }}
    where pair_kind = 'instance_file' and is_compared_exactly
),

files_counted as (
    select
        challenge_id,
        count(*) as files,
        count(*) filter (where is_scaffold) as scaffold_files
    from files
    group by challenge_id
),

similar_codebases as (
    select
        codebases_a.challenge_id as challenge_a,
        codebases_b.challenge_id as challenge_b
    from codebase_pairs
    inner join codebases as codebases_a
        on codebase_pairs.document_a = codebases_a.document_number
    inner join codebases as codebases_b
        on codebase_pairs.document_b = codebases_b.document_number
    where codebase_pairs.similarity > {{ threshold }}
),

{#- each direction of each compared file pair: the contained file and where it is found;
    scaffold and ignored files are not judged #}
file_containments as (
    select
        files_a.challenge_id as challenge_a,
        files_b.challenge_id as challenge_b,
        files_a.challenge_id as contained_challenge_id,
        files_a.file_path as contained_file_path,
        files_b.file_path as containing_file_path,
        file_pairs.raw_containment_a as raw_containment,
        file_pairs.normalised_containment_a as normalised_containment,
        file_pairs.containment_a as containment
    from file_pairs
    inner join files as files_a
        on file_pairs.document_a = files_a.document_number
    inner join files as files_b
        on file_pairs.document_b = files_b.document_number
    where not files_a.is_scaffold and not files_a.is_ignored
    union all
    select
        files_a.challenge_id as challenge_a,
        files_b.challenge_id as challenge_b,
        files_b.challenge_id as contained_challenge_id,
        files_b.file_path as contained_file_path,
        files_a.file_path as containing_file_path,
        file_pairs.raw_containment_b as raw_containment,
        file_pairs.normalised_containment_b as normalised_containment,
        file_pairs.containment_b as containment
    from file_pairs
    inner join files as files_a
        on file_pairs.document_a = files_a.document_number
    inner join files as files_b
        on file_pairs.document_b = files_b.document_number
    where not files_b.is_scaffold and not files_b.is_ignored
),

containments_ranked as (
    select
        *,
        row_number() over (
            partition by challenge_a, challenge_b
            order by
                containment desc, raw_containment desc, contained_challenge_id,
                contained_file_path, containing_file_path
        ) as containment_rank
    from file_containments
),

containments_summarised as (
    select
        challenge_a,
        challenge_b,
        max(raw_containment) as raw_containment,
        max(normalised_containment) as normalised_containment,
        max(containment) as containment,
        any_value(contained_challenge_id) filter (where containment_rank = 1)
            as contained_challenge_id,
        any_value(contained_file_path) filter (where containment_rank = 1)
            as contained_file_path,
        any_value(containing_file_path) filter (where containment_rank = 1)
            as containing_file_path
    from containments_ranked
    group by challenge_a, challenge_b
),

contained_pairs as (
    select
        challenge_a,
        challenge_b
    from containments_summarised
    where containment > {{ containment_threshold }}
),

reported as (
    select * from similar_codebases
    union
    select * from contained_pairs
),

normalisations as (
    select 'raw' as normalisation
    union all
    select 'normalised' as normalisation
),

{#- exact codebase similarity of every reported pair (a pair found by containment alone
    may not have been an LSH candidate as codebases) #}
codebases_intersected as (
    select
        reported.challenge_a,
        reported.challenge_b,
        normalisations.normalisation,
        shingles_a.shingle_count as shingles_a,
        shingles_b.shingle_count as shingles_b,
        {{ shared_elements('shingles_a.shingles', 'shingles_b.shingles') }} as shared_shingles
    from reported
    cross join normalisations
    inner join codebases as codebases_a
        on reported.challenge_a = codebases_a.challenge_id
    inner join codebases as codebases_b
        on reported.challenge_b = codebases_b.challenge_id
    inner join codebase_shingles as shingles_a
        on codebases_a.document_number = shingles_a.document_number
        and normalisations.normalisation = shingles_a.normalisation
    inner join codebase_shingles as shingles_b
        on codebases_b.document_number = shingles_b.document_number
        and normalisations.normalisation = shingles_b.normalisation
),

codebases_compared as (
    select
        challenge_a,
        challenge_b,
        max(shared_shingles / (shingles_a + shingles_b - shared_shingles))
        filter (where normalisation = 'raw') as raw_similarity,
        max(shared_shingles / (shingles_a + shingles_b - shared_shingles))
        filter (where normalisation = 'normalised') as normalised_similarity,
        max(shingles_a) filter (where normalisation = 'normalised') as normalised_shingles_a,
        max(shingles_b) filter (where normalisation = 'normalised') as normalised_shingles_b,
        max(shared_shingles) filter (where normalisation = 'normalised')
            as normalised_shared_shingles
    from codebases_intersected
    group by challenge_a, challenge_b
),

overlapping as (
    select
        codebases_compared.challenge_a,
        codebases_compared.challenge_b,
        challenges_a.template_id as template_a,
        challenges_b.template_id as template_b,
        coalesce(challenges_a.template_id = challenges_b.template_id, false)
            as is_same_template,
        files_a.files as files_a,
        files_b.files as files_b,
        files_a.scaffold_files as scaffold_files_a,
        files_b.scaffold_files as scaffold_files_b,
        codebases_compared.raw_similarity,
        codebases_compared.normalised_similarity,
        greatest(codebases_compared.raw_similarity, codebases_compared.normalised_similarity)
            as similarity,
        codebases_compared.normalised_shingles_a,
        codebases_compared.normalised_shingles_b,
        codebases_compared.normalised_shared_shingles,
        containments_summarised.raw_containment,
        containments_summarised.normalised_containment,
        containments_summarised.containment,
        containments_summarised.contained_challenge_id,
        containments_summarised.contained_file_path,
        containments_summarised.containing_file_path
    from codebases_compared
    inner join challenges as challenges_a
        on codebases_compared.challenge_a = challenges_a.challenge_id
    inner join challenges as challenges_b
        on codebases_compared.challenge_b = challenges_b.challenge_id
    inner join files_counted as files_a
        on codebases_compared.challenge_a = files_a.challenge_id
    inner join files_counted as files_b
        on codebases_compared.challenge_b = files_b.challenge_id
    left join containments_summarised
        on codebases_compared.challenge_a = containments_summarised.challenge_a
        and codebases_compared.challenge_b = containments_summarised.challenge_b
),

labelled as (
    select
        *,
        case
            when similarity > {{ threshold }}
                and coalesce(containment > {{ containment_threshold }}, false)
                then 'similarity_and_containment'
            when similarity > {{ threshold }} then 'similarity'
            else 'containment'
        end as flag_rule,
        case
            when raw_similarity > {{ threshold }}
                or coalesce(raw_containment > {{ containment_threshold }}, false)
                then 'raw'
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
    cast({{ threshold }} as double) as similarity_threshold,
    cast(raw_containment as double) as raw_containment,
    cast(normalised_containment as double) as normalised_containment,
    cast(containment as double) as containment,
    cast(contained_challenge_id as varchar) as contained_challenge_id,
    cast(contained_file_path as varchar) as contained_file_path,
    cast(containing_file_path as varchar) as containing_file_path,
    cast(scaffold_files_a as bigint) as scaffold_files_a,
    cast(scaffold_files_b as bigint) as scaffold_files_b,
    cast({{ containment_threshold }} as double) as containment_threshold,
    cast(flag_rule as varchar) as flag_rule
from labelled
