{#
    Every raw challenge row, typed, with the first rule it breaks (NULL when clean).
    `variables` NULL is read as `{}` (no variables); a combination is identified by its
    canonical JSON (keys sorted), so key order and spacing do not split it.
    `tags` is a list; a platform that stores it as text is parsed per row ('[a, b]' or a
    JSON array as a list, 'a, b' split on commas, '' no tags); text that does not parse is
    rejected (tags_not_list) instead of failing the build.
#}
-- depends_on: {{ ref('stg_platform__appended_files') }}
{{ scan_stage_config('table') }}
{%- if scan_stage_from_files() %}
{{ scan_stage_files() }}
{%- else %}
with

source as (
    select * from {{ source_rows('challenges') }}
),

duplicates as (
    {{ key_duplicates(
        'source',
        'challenge_id',
        ['template_id', 'variables', 'briefing_style', 'experiment_id', 'experiment_arm', 'tags']
    ) }}
),

typed as (
    select
        source.*,
        coalesce(cast(source.variables as string), '{}') as variables_text,
        {{ parsed_tags('source.tags', source_column_type('challenges', 'tags')) }} as parsed_tags,
        duplicates.duplicate_kind
    from source
    left join duplicates
        on source.source_row_number = duplicates.source_row_number
),

checked as (
    select
        source_row_number,
        cast(challenge_id as string) as challenge_id,
        cast(template_id as string) as template_id,
        variables_text,
        cast(briefing_style as string) as briefing_style,
        cast(experiment_id as string) as experiment_id,
        cast(experiment_arm as string) as experiment_arm,
        parsed_tags as tags,
        {{ optional_column('challenges', 'briefing_text', 'string', 'typed') }} as briefing_text,
        case
            when nullif(trim(cast(challenge_id as string)), '') is null then 'null_challenge_id'
            when duplicate_kind = 'conflicting' then 'conflicting_challenge_id'
            when duplicate_kind = 'duplicate' then 'duplicate_challenge_id'
            when nullif(trim(cast(template_id as string)), '') is null then 'null_template_id'
            when tags is not null and parsed_tags is null then 'tags_not_list'
            else {{ json_object_problem('variables_text') }}
        end as rejection_reason,
        {{ record_to_json(
            ['challenge_id', 'template_id', 'variables', 'briefing_style',
             'experiment_id', 'experiment_arm', 'tags'],
            'typed'
        ) }} as raw_record
    from typed
)

select
    source_row_number,
    challenge_id,
    template_id,
    case
        when rejection_reason is null
            then cast({{ canonical_json_object("variables_text") }} as string)
    end as variable_combination,
    briefing_style,
    experiment_id,
    experiment_arm,
    tags,
    briefing_text,
    rejection_reason,
    case when rejection_reason is not null then raw_record end as raw_record
from checked
{#- Stored in source order: downstream scans and sums see the rows in the same order on every build. #}
order by source_row_number
{%- endif %}
