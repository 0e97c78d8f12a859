{#
    One row per clean attempt labelled with a solution approach, from the optional column
    `attempts.approach` (absent column, NULL or blank label: no row). An exact repeat of a
    raw attempt row is one clean attempt; its label is taken from the first labelled copy
    (base_platform__attempts keeps every raw row's label). Without the column, empty: no
    scan of the staged attempts.
#}
-- depends_on: {{ ref('base_platform__attempts') }}
-- depends_on: {{ ref('int_keyed__attempts') }}
{%- if 'approach' not in source_column_names('attempts') %}
select
    cast(null as string) as attempt_id,
    cast(null as string) as approach
where false
{%- else %}
with

labelled as (
    select
        attempt_id,
        approach,
        source_row_number
    from {{ ref('base_platform__attempts') }}
    where approach is not null
        and attempt_id is not null
),

attempts as (
    select * from {{ ref('int_keyed__attempts') }}
),

first_labels as (
    select
        attempt_id,
        min_by(approach, source_row_number) as approach
    from labelled
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
