{#
    One row per clean attempt labelled with a solution approach, from the optional column
    `attempts.approach` (absent column, NULL or blank label: no row). An exact repeat of a
    raw attempt row is one clean attempt; its label is taken from the first labelled copy.
#}
{{ scan_stage_config('view') }}
{%- if scan_stage_from_files() %}
{{ scan_stage_files() }}
{%- else %}
with

source as (
    select * from {{ source_rows('attempts') }}
),

attempts as (
    select * from {{ ref('stg_platform__attempts') }}
),

labelled as (
    select
        cast(source.attempt_id as string) as attempt_id,
        nullif(trim({{ optional_column('attempts', 'approach', 'string') }}), '') as approach,
        source.source_row_number
    from source
),

first_labels as (
    select
        attempt_id,
        min_by(approach, source_row_number) as approach
    from labelled
    where approach is not null
        and attempt_id is not null
    group by attempt_id
),

renamed as (
    select
        attempts.attempt_id,
        first_labels.approach
    from first_labels
    inner join attempts
        on first_labels.attempt_id = attempts.attempt_id
)

select * from renamed
{%- endif %}
